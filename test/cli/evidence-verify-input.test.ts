/**
 * `latch evidence verify` reads only regular files, and at most what it needs (issue 34 review):
 * a FIFO named as the pack or as --jwks used to block the command for ever waiting for a writer,
 * and /dev/zero was read without end. A missing file is a usage error (exit 2) naming it.
 * The CLI runs as its own process with a deadline, so a hang fails the test instead of freezing it.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.js';
import { REPO_ROOT } from '../support/paths.js';

const root = mkdtempSync(path.join(tmpdir(), 'latch-verify-input-'));
chmodSync(root, 0o700);
after(() => rmSync(root, { recursive: true, force: true }));

/** How long one verify may take on a loaded machine; reading a FIFO or /dev/zero took for ever. */
const RUN_DEADLINE_MS = 30_000;

function verify(args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'evidence', 'verify', ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', LATCH_HOME: path.join(root, 'no-such-home') },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: RUN_DEADLINE_MS,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const fifo = path.join(root, 'pack.fifo');
execFileSync('mkfifo', [fifo]);
const directory = path.join(root, 'a-directory');
mkdirSync(directory);
const pack = path.join(root, 'pack.json');
writeFileSync(pack, '{"not": "a pack"}\n');
const missing = path.join(root, 'no-such-file.json');

test('latch evidence verify refuses a FIFO, a device and a directory, as the pack and as --jwks, at once (exit 2 naming it)', async () => {
  const cases: Array<{ args: string[]; named: string }> = [];
  for (const special of [fifo, '/dev/zero', directory]) {
    cases.push({ args: [special], named: special });
    cases.push({ args: [pack, '--jwks', special], named: special });
  }
  const runs = await Promise.all(cases.map(async (item) => ({ item, run: await verify(item.args) })));
  for (const { item, run } of runs) {
    assert.equal(run.signal, null, `${item.args.join(' ')}: still running after ${RUN_DEADLINE_MS} ms`);
    assert.equal(run.code, EXIT.usage, `${item.args.join(' ')}: ${run.stderr}`);
    assert.ok(run.stderr.includes(item.named), `${item.args.join(' ')}: the message names the file: ${run.stderr}`);
    assert.match(run.stderr, /not a regular file|a directory, not a file/);
  }
});

test('latch evidence verify: a missing pack or --jwks file is a usage error (exit 2) that says so', async () => {
  for (const args of [[missing], [pack, '--jwks', missing], [missing, '--json']]) {
    const run = await verify(args);
    assert.equal(run.code, EXIT.usage, `${args.join(' ')}: ${run.stderr}`);
    assert.ok(run.stderr.includes(`${missing}: no such file`), `${args.join(' ')}: ${run.stderr}`);
  }
});
