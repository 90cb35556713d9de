/**
 * The data directory attacked while the daemon runs (a child process, so that a frozen event loop
 * fails the test instead of freezing it). A FIFO put in place of a data file would block a
 * blocking open() until someone writes to it, stopping both listeners, /health and the signal
 * handlers at once; a directory made group-writable after start would let another user swap the
 * files. Each must be refused at the next request with 503 data_directory_unavailable while the
 * daemon keeps answering and still stops on SIGTERM. Control cases put the file or mode back and
 * see the same request served, so the refusals can fail.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DATA_FILES } from '../../src/datadir/home.js';
import { readToken } from '../../src/datadir/token.js';
import { startStack, type Stack } from '../support/stack.js';
import { killAll, startDaemonChild, type Child } from './child-process.js';

/** A bound on every wait, so that a frozen daemon fails the test rather than hanging it. */
const ANSWER_DEADLINE_MS = 10_000;

let stack: Stack;
before(async () => {
  stack = await startStack();
  // Each test runs its own daemon as a child process on the same data directory.
  await stack.daemon.close({ deadlineMs: 1_000 });
});
after(async () => {
  await killAll();
  chmodSync(stack.home, 0o700);
  await stack.close();
});

/** get sends one request and gives up after the deadline (a frozen daemon never answers). */
async function get(portA: number, target: string, token?: string): Promise<{ status: number; code: string | undefined }> {
  const response = await fetch(`http://127.0.0.1:${portA}${target}`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(ANSWER_DEADLINE_MS),
  });
  const body = (await response.json().catch(() => undefined)) as { error?: { code?: string } } | undefined;
  return { status: response.status, code: body?.error?.code };
}

/** stopWithSigterm sends SIGTERM and reports the exit code, or 'still running' after the deadline. */
async function stopWithSigterm(child: Child): Promise<number | null | 'still running'> {
  child.process.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), ANSWER_DEADLINE_MS)));
  const outcome = await Promise.race([child.exited, deadline]);
  clearTimeout(timer);
  return outcome;
}

/** withFifoInPlaceOf replaces a data file with a FIFO of mode 0600 for the duration of use. */
async function withFifoInPlaceOf(file: string, use: () => Promise<void>): Promise<void> {
  const saved = readFileSync(file);
  unlinkSync(file);
  execFileSync('mkfifo', ['-m', '600', file]);
  try {
    await use();
  } finally {
    unlinkSync(file);
    writeFileSync(file, saved, { mode: 0o600 });
  }
}

describe('a FIFO in place of a data file at runtime', () => {
  for (const name of [DATA_FILES.token, DATA_FILES.deviceKey, DATA_FILES.config]) {
    test(`${name} replaced by a FIFO → 503 data_directory_unavailable at once; /health answers; SIGTERM stops the daemon`, async () => {
      const { child, portA } = await startDaemonChild(stack.home, { variantB: false });
      const token = readToken(stack.home);
      const control = await get(portA, '/v1/wallet', token);
      assert.equal(control.status, 200, 'control: the request is served before the swap');
      await withFifoInPlaceOf(path.join(stack.home, name), async () => {
        const refused = await get(portA, '/v1/wallet', token);
        assert.deepEqual(refused, { status: 503, code: 'data_directory_unavailable' });
        const health = await get(portA, '/health');
        assert.ok(health.status === 200 || (health.status === 503 && health.code === 'data_directory_unavailable'), `/health: ${JSON.stringify(health)}`);
        assert.match(child.stderr(), new RegExp(`"data_directory_unavailable".*${name.replace('.', '\\.')}`), 'the log names the file');
        assert.equal(await stopWithSigterm(child), 0, 'SIGTERM stops the daemon cleanly');
      });
    });
  }
});

describe('the data directory’s mode at runtime', () => {
  test('made group-writable after start → the next request is 503 and the log names chmod 700; put back → served again', async () => {
    const { child, portA } = await startDaemonChild(stack.home, { variantB: false });
    const token = readToken(stack.home);
    assert.equal((await get(portA, '/v1/wallet', token)).status, 200, 'control: served before the change');
    chmodSync(stack.home, 0o770);
    try {
      assert.deepEqual(await get(portA, '/v1/wallet', token), { status: 503, code: 'data_directory_unavailable' });
      assert.ok(child.stderr().includes(`chmod 700 ${stack.home}`), 'the log names the fix');
    } finally {
      chmodSync(stack.home, 0o700);
    }
    assert.equal((await get(portA, '/v1/wallet', token)).status, 200, 'served again once the mode is private');
    assert.equal(await stopWithSigterm(child), 0);
  });
});
