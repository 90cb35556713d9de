import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { REPO_ROOT } from '../support/paths.js';
import { AdminClient } from '../support/sandbox-client.js';
import { encodeFrame } from '../../src/store/frame.js';

const MAIN = path.join(REPO_ROOT, 'src', 'sandbox', 'main.ts');

function start(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      if (stdout.includes('\n')) resolve(stdout.slice(0, stdout.indexOf('\n')));
    });
    child.once('exit', () => reject(new Error(`exited early: ${stderr}`)));
  });
  // Tests that expect a refusal never await the line.
  firstLine.catch(() => undefined);
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
  // A child that should have refused to start but did not must not hang the suite.
  const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
  void exited.then(() => clearTimeout(guard));
  return { child, firstLine, exited, output: () => ({ stdout, stderr }) };
}

test('main: prints {cloud_url, admin_key_path} once listening and closes cleanly on SIGTERM', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'latch-sandbox-main-'));
  try {
    const dataDir = path.join(root, 'sandbox');
    const running = start(['--port', '0', '--data-dir', dataDir]);
    const line = JSON.parse(await running.firstLine) as { cloud_url: string; admin_key_path: string };
    assert.deepEqual(Object.keys(line).sort(), ['admin_key_path', 'cloud_url']);
    assert.match(line.cloud_url, /^http:\/\/127\.0\.0\.1:[0-9]+$/);
    assert.equal(line.admin_key_path, path.join(dataDir, 'admin_key'));
    assert.equal(statSync(line.admin_key_path).mode & 0o777, 0o600);
    assert.equal(statSync(dataDir).mode & 0o777, 0o700);
    const adminKey = readFileSync(line.admin_key_path, 'utf8').trim();
    const admin = new AdminClient(line.cloud_url, adminKey);
    assert.equal((await admin.request('POST', '/v1/sandbox/setup-tokens', {})).status, 201);
    running.child.kill('SIGTERM');
    const [code] = await running.exited;
    assert.equal(code, 0);
    assert.ok(!running.output().stderr.includes(adminKey), 'the admin key never reaches the log');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('main: refuses to start on a damaged journal, a public admin key, or missing arguments', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'latch-sandbox-main-'));
  try {
    const missing = start(['--port', '0']);
    assert.equal((await missing.exited)[0], 1);
    assert.match(missing.output().stderr, /--data-dir is required/);

    const dataDir = path.join(root, 'sandbox');
    const first = start(['--port', '0', '--data-dir', dataDir]);
    await first.firstLine;
    first.child.kill('SIGINT');
    const ex = await first.exited;
    assert.deepEqual(ex, [0, null], JSON.stringify(first.output()));

    chmodSync(path.join(dataDir, 'admin_key'), 0o644);
    const exposed = start(['--port', '0', '--data-dir', dataDir]);
    assert.equal((await exposed.exited)[0], 1);
    assert.match(exposed.output().stderr, /admin_key/);
    chmodSync(path.join(dataDir, 'admin_key'), 0o600);

    // Two intact records, then damage to the first: not a torn tail.
    const journal = path.join(dataDir, 'journal');
    const records = Buffer.concat([encodeFrame(Buffer.from('{"seq":1}')), encodeFrame(Buffer.from('{"seq":2}'))]);
    records[0] = 0;
    writeFileSync(journal, records, { mode: 0o600 });
    const damaged = start(['--port', '0', '--data-dir', dataDir]);
    assert.equal((await damaged.exited)[0], 1);
    assert.match(damaged.output().stderr, /journal .* is damaged at byte 0/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
