/**
 * The Idempotency-Key memory survives the daemon: after a clean restart, and after kill -9 of a
 * daemon running as a child process, a retry with the same key and body gets the same
 * authorization (the daemon re-sends the window it signed, so the cloud replays its first answer),
 * and the same key with another body is still 422 idempotency_key_reused.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { createDaemon } from '../../src/daemon/create-daemon.js';
import { killAll, killHard, startChild, waitForLine, type Child } from '../adversarial/child-process.js';
import { assertError } from '../support/e2e-assert.js';
import { JsonClient, startStack, type Stack } from '../support/stack.js';
import { readToken } from '../../src/datadir/token.js';

const STARTUP_MS = 30_000;

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await killAll();
  await stack.close();
});

const authorizationCount = () => stack.sandbox.state().authorizations.size;

/** retryAcrossRestart authorizes under key, restarts the daemon with restart(), and retries. */
async function retryAcrossRestart(key: string, merchant: string, restart: (client: JsonClient) => Promise<JsonClient>, client: JsonClient): Promise<void> {
  const body = { card_id: stack.cards[0].card_id, amount: '1.25', merchant_name: merchant };
  const first = await client.post('/authorize', body, { 'idempotency-key': key });
  assert.equal(first.status, 200, first.text);
  const count = authorizationCount();

  const restarted = await restart(client);
  const retry = await restarted.post('/authorize', body, { 'idempotency-key': key });
  assert.equal(retry.status, 200, retry.text);
  assert.equal(retry.body.policy_id, first.body.policy_id);
  assert.deepEqual(retry.body, first.body);
  assert.equal(authorizationCount(), count, 'no second authorization');

  const other = await restarted.post('/authorize', { ...body, amount: '1.26' }, { 'idempotency-key': key });
  assertError(other, 422, 'idempotency_key_reused');
  assert.equal(authorizationCount(), count);
}

test('after a clean restart, the same key and body replay the same authorization', async () => {
  let current = stack.daemon;
  try {
    await retryAcrossRestart(
      'restart-order-1',
      'restart.example.com',
      async () => {
        await current.close({ deadlineMs: 1_000 });
        current = createDaemon({ home: stack.home, portA: 0, portB: 0, env: { LATCH_HOME: stack.home }, logStream: new PassThrough().resume() });
        const ports = await current.listen();
        return new JsonClient(`http://127.0.0.1:${ports.portA}`, () => readToken(stack.home));
      },
      stack.a,
    );
    assert.equal(statSync(path.join(stack.home, 'state.journal')).mode & 0o777, 0o600);
  } finally {
    await current.close({ deadlineMs: 1_000 });
  }
});

async function startDaemonChild(): Promise<{ child: Child; client: JsonClient }> {
  const child = startChild('src/cli/main.ts', ['daemon', '--port-a', '0', '--port-b', '0'], { LATCH_HOME: stack.home });
  const line = await waitForLine(child, (text) => text.includes('"daemon_listening"'), STARTUP_MS);
  const portA = (JSON.parse(line) as { port_a: number }).port_a;
  return { child, client: new JsonClient(`http://127.0.0.1:${portA}`, () => readToken(stack.home)) };
}

test('after kill -9 of the daemon, the same key and body replay the same authorization', async () => {
  const first = await startDaemonChild();
  let second: Child | undefined;
  try {
    await retryAcrossRestart(
      'killed-order-1',
      'killed.example.com',
      async () => {
        await killHard(first.child);
        assert.equal(first.child.process.signalCode, 'SIGKILL');
        const restarted = await startDaemonChild();
        second = restarted.child;
        return restarted.client;
      },
      first.client,
    );
  } finally {
    await killHard(first.child);
    if (second !== undefined) await killHard(second);
  }
});
