/**
 * `latch console` writes the login link into a page the browser opens from the owner's files, so
 * it takes only a console link on this machine (issue 34 review): whatever answers on the daemon's
 * port with another URL (another host or scheme, markup, a query) gets nothing written and nothing
 * opened. A fake daemon answers POST /console/login-code with each URL; the opener records calls.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { isConsoleLoginUrl } from '../../src/client/console-link.js';
import { loginPageHtml, writeLoginPage } from '../../src/cli/login-page.js';
import { CONSOLE_LOGIN_PAGE, ensureHome } from '../../src/datadir/home.js';
import { ensureToken, readToken } from '../../src/datadir/token.js';
import { CHALLENGE_HEADER, daemonProof, PROOF_HEADER, proofAddress } from '../../src/http/daemon-proof.js';
import { REPO_ROOT } from '../support/paths.js';

const CODE = 'A'.repeat(42) + 'g';
const root = mkdtempSync(path.join(tmpdir(), 'latch-console-link-'));
chmodSync(root, 0o700);
const home = path.join(root, 'home');
const bin = path.join(root, 'bin');
const record = path.join(root, 'opener-called');
let answerUrl = '';
let server: http.Server;
let port = 0;

before(async () => {
  ensureHome(home);
  ensureToken(home);
  mkdirSync(bin);
  for (const name of ['xdg-open', 'open']) {
    writeFileSync(path.join(bin, name), `#!/bin/sh\nprintf '%s\\n' "$@" > '${record}'\n`);
    chmodSync(path.join(bin, name), 0o755);
  }
  // A fake daemon of this data directory: it proves itself with the token (as a daemon that was
  // compromised or replaced by an older build would), then answers the login link under test.
  server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const challenge = request.headers[CHALLENGE_HEADER];
      if (request.url === '/health' && typeof challenge === 'string') {
        response.writeHead(200, { 'content-type': 'application/json', [PROOF_HEADER]: daemonProof(readToken(home), challenge, proofAddress('127.0.0.1', port)) });
        response.end(JSON.stringify({ status: 'ok' }));
        return;
      }
      response.writeHead(request.url === '/console/login-code' ? 201 : 404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ url: answerUrl, expires_at: '2030-01-01T00:00:00Z' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(root, { recursive: true, force: true });
});

function runConsole(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'console'], {
      cwd: REPO_ROOT,
      env: { PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: process.env['HOME'] ?? '/root', LATCH_HOME: home, LATCH_URL: `http://127.0.0.1:${port}` },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const WRONG_URLS: ReadonlyArray<[string, string]> = [
  ['another host', `https://evil.example/login#${CODE}`],
  ['plain http to another host', `http://evil.example:7724/login#${CODE}`],
  ['a host that starts like localhost', `http://localhost.evil.example:7724/login#${CODE}`],
  ['user info before localhost', `http://localhost:7724@evil.example/login#${CODE}`],
  ['a javascript: URL', `javascript:alert(1)//http://localhost:7724/login#${CODE}`],
  ['a file: URL', 'file:///etc/passwd'],
  ['markup after the code', `http://localhost:7724/login#${CODE}"><script>alert(1)</script>`],
  ['a query', `http://localhost:7724/login?next=https://evil.example#${CODE}`],
  ['another path', `http://localhost:7724/api/login#${CODE}`],
  ['a short code', `http://localhost:7724/login#${CODE.slice(1)}`],
  ['a port out of range', `http://localhost:70000/login#${CODE}`],
  ['no port', `http://localhost/login#${CODE}`],
  ['a newline', `http://localhost:7724/login#${CODE}\n`],
];

test('latch console refuses a login link that is not http://localhost:PORT/login#CODE: no page, no opener, invalid_response', async () => {
  for (const [name, url] of WRONG_URLS) {
    answerUrl = url;
    const run = await runConsole();
    assert.notEqual(run.code, 0, `${name}: ${run.stdout}`);
    assert.match(run.stderr, /invalid_response|not http:\/\/localhost:PORT\/login#CODE/, `${name}: ${run.stderr}`);
    assert.equal(existsSync(path.join(home, CONSOLE_LOGIN_PAGE)), false, `${name}: a login page was written`);
    assert.equal(existsSync(record), false, `${name}: the opener was called`);
    assert.doesNotMatch(run.stdout, /evil|javascript|file:/, `${name}: the link was printed`);
  }
});

test('the real shape of link is written and opened; the page writer refuses any other link by itself', async () => {
  answerUrl = `http://localhost:7724/login#${CODE}`;
  const run = await runConsole();
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), answerUrl);
  assert.ok(existsSync(path.join(home, CONSOLE_LOGIN_PAGE)));
  assert.ok(existsSync(record), 'the opener was called');
  for (const [name, url] of WRONG_URLS) {
    assert.equal(isConsoleLoginUrl(url), false, name);
    assert.throws(() => writeLoginPage(home, url), /refusing to write a login page/, name);
  }
  assert.match(loginPageHtml(answerUrl), /login#A{42}g/);
});
