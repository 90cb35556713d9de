/**
 * The console's login code against a program running as the owner (docs/decisions.md §37): it
 * reads every file the owner can read, as fast as it can, and trades every code-shaped string it
 * finds the moment it appears, as the poller of issue 45 did (79 ms, then a 12-hour owner
 * session). Once the owner has a passphrase (always, in the separate-user setup: it is how the
 * owner's account reaches the daemon at all) the code alone signs nobody in; the person's browser,
 * which adds the passphrase or a passkey, still signs in with the very code the poller tried.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { CONSOLE_LOGIN_PAGE } from '../../src/datadir/home.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';
import { waitUntil } from '../support/wait.js';

const PASSPHRASE = 'correct horse battery staple';
const CODE_SHAPE = /[A-Za-z0-9_-]{43}/g;

/** Every regular file under root that this process can read (the owner's whole view of it). */
function readableFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const file = path.join(dir, name);
      try {
        const stat = statSync(file);
        if (stat.isDirectory()) walk(file);
        else if (stat.isFile() && stat.size < 1_000_000) found.push(file);
      } catch {
        // Gone between the listing and the look: the next pass sees what replaced it.
      }
    }
  };
  walk(root);
  return found;
}

describe('the console login code and a program running as the owner', () => {
  let stack: Stack;
  let origin = '';
  before(async () => {
    stack = await startStack({ console: true });
    origin = `http://localhost:${stack.portConsole}`;
    setApprovalPassphrase(stack.home, PASSPHRASE);
  });
  after(async () => stack?.close());

  const login = (body: Record<string, unknown>) =>
    fetch(`${origin}/console/api/login`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  test('the poller reads the page latch console writes, trades its code at once, and gets no session; the person signs in with the same code', async () => {
    const attempts: Array<{ code: string; status: number; cookie: string | null; error: string }> = [];
    const tried = new Set<string>();
    let stop = false;
    const poller = (async () => {
      while (!stop) {
        for (const file of readableFiles(stack.root)) {
          let text = '';
          try {
            text = readFileSync(file, 'latin1');
          } catch {
            continue;
          }
          for (const code of text.match(CODE_SHAPE) ?? []) {
            if (tried.has(code)) continue;
            tried.add(code);
            const answer = await login({ code });
            const body = (await answer.json()) as { error?: { code: string } };
            attempts.push({ code, status: answer.status, cookie: answer.headers.get('set-cookie'), error: body.error?.code ?? '' });
          }
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();

    // The opener the CLI hands the page's path to does nothing here: no desktop browser is started.
    const bin = path.join(stack.root, 'bin');
    mkdirSync(bin, { recursive: true });
    for (const name of ['xdg-open', 'open']) {
      writeFileSync(path.join(bin, name), '#!/bin/sh\nexit 0\n');
      chmodSync(path.join(bin, name), 0o755);
    }
    const savedPath = process.env['PATH'];
    process.env['PATH'] = `${bin}:${savedPath ?? ''}`;
    const run = await runLatch(['console'], { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` }).finally(() => {
      process.env['PATH'] = savedPath;
    });
    assert.equal(run.code, 0, run.stderr);
    const code = run.stdout.trim().split('#')[1] as string;
    assert.match(code, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(readFileSync(path.join(stack.home, CONSOLE_LOGIN_PAGE), 'utf8').includes(code), 'the page the poller reads holds the code');
    const seen = await waitUntil(() => attempts.find((attempt) => attempt.code === code), 'the poller tried the code from the page');
    stop = true;
    await poller;

    assert.equal(seen.status, 403, JSON.stringify(seen));
    assert.equal(seen.error, 'owner_presence_required');
    for (const attempt of attempts) {
      assert.notEqual(attempt.status, 200, `the poller got a session with ${attempt.error}`);
      assert.equal(attempt.cookie, null, 'no session cookie, ever');
    }

    // The person: the same code and a wrong passphrase keeps the code; the right one signs in, once.
    const wrong = await login({ code, passphrase: 'not the passphrase' });
    assert.equal(wrong.status, 401);
    const right = await login({ code, passphrase: PASSPHRASE });
    assert.equal(right.status, 200, await right.clone().text());
    assert.match(String(right.headers.get('set-cookie')), /^__Host-latch_console=/);
    assert.equal((await login({ code, passphrase: PASSPHRASE })).status, 401, 'the code works once');
  });

  test('passkey sign-in without a registered passkey, or without an assertion, signs nobody in', async () => {
    const options = await fetch(`${origin}/console/api/signin/passkey-options`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(options.status, 401);
    assert.equal(((await options.json()) as { error: { code: string } }).error.code, 'passkey_not_verified');
    for (const body of [{}, { passkey: {} }, { passkey: { id: 'x', client_data_json: 'e30', authenticator_data: 'AA', signature: 'AA' } }]) {
      const answer = await fetch(`${origin}/console/api/signin`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      assert.ok(answer.status === 400 || answer.status === 401, `${JSON.stringify(body)}: ${answer.status}`);
      assert.equal(answer.headers.get('set-cookie'), null);
    }
  });
});
