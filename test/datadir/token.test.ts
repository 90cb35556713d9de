import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, readdirSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { ensureToken, readToken, rotateToken, tokenPath } from '../../src/datadir/token.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { tempHome } from './temp-home.js';
import { waitUntil } from '../support/wait.js';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const execFileAsync = promisify(execFile);

test('ensureToken creates a 43-character base64url token at 0600 and returns it on every call', () => {
  const home = tempHome();
  const token = ensureToken(home);
  assert.match(token, TOKEN);
  assert.equal(Buffer.from(token, 'base64url').length, 32);
  assert.equal(statSync(tokenPath(home)).mode & 0o777, 0o600);
  assert.equal(readFileSync(tokenPath(home), 'utf8'), token);
  assert.equal(ensureToken(home), token);
  assert.equal(readToken(home), token);
});

test('tokens differ between homes (fresh randomness each time)', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 20; i += 1) seen.add(ensureToken(tempHome()));
  assert.equal(seen.size, 20);
});

test('rotateToken replaces the token atomically at 0600 and leaves no temporary file', () => {
  const home = tempHome();
  const first = ensureToken(home);
  const second = rotateToken(home);
  assert.match(second, TOKEN);
  assert.notEqual(second, first);
  assert.equal(readToken(home), second);
  assert.equal(statSync(tokenPath(home)).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(home), ['daemon_token']);
});

test('readToken tolerates one trailing newline from an editor', () => {
  const home = tempHome();
  const token = ensureToken(home);
  for (const ending of ['\n', '\r\n']) {
    writeFileSync(tokenPath(home), token + ending, { mode: 0o600 });
    assert.equal(readToken(home), token);
  }
});

test('readToken refuses malformed token files without echoing their contents', () => {
  const home = tempHome();
  const valid = ensureToken(home);
  const bad = [
    '',
    'short',
    valid.slice(0, 42),
    `${valid}A`,
    `${valid.slice(0, 42)}+`,
    `${valid.slice(0, 42)}=`,
    ` ${valid}`,
    `${valid}\n\n`,
    // The last character of 32 bytes in base64url carries 2 spare bits; non-zero ones are not canonical.
    `${valid.slice(0, 42)}${valid.endsWith('B') ? 'C' : 'B'}`,
    'SECRET-LOOKING-CONTENT-THAT-MUST-NOT-LEAK',
  ];
  for (const contents of bad) {
    writeFileSync(tokenPath(home), contents, { mode: 0o600 });
    assert.throws(() => readToken(home), (error: unknown) => {
      assert.ok(error instanceof DataDirError);
      assert.equal(error.code, contents.length > 64 ? 'too_large' : 'corrupt', JSON.stringify(contents));
      if (contents !== '') assert.ok(!error.message.includes(contents), 'the message never includes the file contents');
      assert.match(error.fix, /latch token rotate/);
      return true;
    });
  }
});

test('readToken: missing file, loose permissions and symbolic links are refused with the fix', () => {
  const home = tempHome();
  assert.throws(() => readToken(home), (error: unknown) => error instanceof DataDirError && error.code === 'missing');
  ensureToken(home);
  chmodSync(tokenPath(home), 0o644);
  assert.throws(() => readToken(home), (error: unknown) => error instanceof DataDirError && error.code === 'insecure_permissions' && error.fix === `chmod 600 ${tokenPath(home)}`);
  assert.throws(() => ensureToken(home), (error: unknown) => error instanceof DataDirError && error.code === 'insecure_permissions');
  unlinkSync(tokenPath(home));
  const elsewhere = path.join(home, 'elsewhere');
  writeFileSync(elsewhere, 'A'.repeat(43), { mode: 0o600 });
  symlinkSync(elsewhere, tokenPath(home));
  assert.throws(() => readToken(home), (error: unknown) => error instanceof DataDirError && error.code === 'symlink');
});

test('ensureToken from several processes at once yields one token for all of them', async () => {
  const home = tempHome();
  const tokenModule = new URL('../../src/datadir/token.ts', import.meta.url).href;
  const go = path.join(path.dirname(home), 'go');
  // Each child imports first and says so with a file, then spins until the go file appears, so
  // their creates race: go is written only once every child is ready, however slow the machine.
  const script = `
    const { existsSync, writeFileSync } = await import('node:fs');
    const { ensureToken } = await import(${JSON.stringify(tokenModule)});
    writeFileSync(process.env.READY_FILE, '');
    const pause = new Int32Array(new SharedArrayBuffer(4));
    while (!existsSync(${JSON.stringify(go)})) Atomics.wait(pause, 0, 0, 1);
    process.stdout.write(ensureToken(${JSON.stringify(home)}));`;
  const readyFiles = Array.from({ length: 4 }, (_, index) => path.join(path.dirname(home), `ready-${index}`));
  const children = readyFiles.map((readyFile) => execFileAsync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, READY_FILE: readyFile } }));
  await waitUntil(() => readyFiles.every((file) => existsSync(file)), 'all four children have imported ensureToken', 60_000);
  writeFileSync(go, '');
  const tokens = (await Promise.all(children)).map((result) => result.stdout);
  assert.equal(new Set(tokens).size, 1);
  assert.equal(tokens[0], readToken(home));
});
