/** `latch console` against the real daemon: one line, the login link, which then works once. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addAgent } from '../../src/datadir/agents.js';
import { CONSOLE_LOGIN_PAGE, removeDataDirTemporaries } from '../../src/datadir/home.js';
import { REPO_ROOT } from '../support/paths.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';
import { waitUntil } from '../support/wait.js';

/**
 * fakeOpeners puts `xdg-open` and `open` first on a PATH; each writes its argv and its whole
 * environment to the record file, which is what another local user could read of it in /proc.
 */
function fakeOpeners(root: string): { bin: string; record: string } {
  const bin = path.join(root, 'bin');
  const record = path.join(root, 'opener-record.txt');
  mkdirSync(bin);
  for (const name of ['xdg-open', 'open']) {
    const script = path.join(bin, name);
    writeFileSync(script, `#!/bin/sh\n{ for a in "$0" "$@"; do printf 'ARG %s\\n' "$a"; done; env; } > '${record}.part' && mv '${record}.part' '${record}'\n`);
    chmodSync(script, 0o755);
  }
  return { bin, record };
}

/** runConsoleProcess runs `latch console` as its own process (so its opener inherits its environment). */
function runConsoleProcess(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'console'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('latch console', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ console: true });
  });
  after(async () => stack?.close());

  const env = () => ({ LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` });

  test('--no-open prints exactly one line, the one-time login link, and it logs in once', async () => {
    const run = await runLatch(['console', '--no-open'], env());
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 1, run.stdout);
    const url = lines[0] as string;
    assert.match(url, new RegExp(`^http://localhost:${stack.portConsole}/login#[A-Za-z0-9_-]{43}$`));
    const code = url.split('#')[1] as string;
    const login = (value: string) =>
      fetch(`http://127.0.0.1:${stack.portConsole}/console/api/login`, {
        method: 'POST',
        headers: { host: `localhost:${stack.portConsole}`, origin: `http://localhost:${stack.portConsole}`, 'content-type': 'application/json' },
        body: JSON.stringify({ code: value }),
      });
    assert.equal((await login(code)).status, 200);
    assert.equal((await login(code)).status, 401);
  });

  test('--json prints {url, expires_at}; the code is never in the daemon log', async () => {
    const run = await runLatch(['console', '--no-open', '--json'], env());
    assert.equal(run.code, 0, run.stderr);
    const link = JSON.parse(run.stdout) as { url: string; expires_at: string };
    assert.ok(Date.parse(link.expires_at) > Date.now());
    assert.ok(!stack.logs().includes(link.url.split('#')[1] as string), 'the login code reached the log');
  });

  test('the opener gets a private page, never the login code: not in its argv, not in its environment', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'latch-opener-'));
    try {
      const { bin, record } = fakeOpeners(root);
      const run = await runConsoleProcess({ ...process.env, ...env(), PATH: `${bin}:${process.env['PATH'] ?? ''}` });
      assert.equal(run.code, 0, run.stderr);
      const url = run.stdout.trim();
      const code = url.split('#')[1] as string;
      assert.match(code, /^[A-Za-z0-9_-]{43}$/);
      const seen = await waitUntil(() => existsSync(record) && readFileSync(record, 'utf8'), 'the fake opener recorded its arguments');
      assert.ok(!seen.includes(code), 'the login code reached the opener');
      assert.ok(!seen.includes(code.slice(0, 16)), 'part of the login code reached the opener');
      const args = seen.split('\n').filter((line) => line.startsWith('ARG ')).map((line) => line.slice(4));
      const page = path.join(stack.home, CONSOLE_LOGIN_PAGE);
      assert.deepEqual(args.slice(1), [page]);
      assert.equal(statSync(page).mode & 0o777, 0o600);
      const html = readFileSync(page, 'utf8');
      assert.ok(html.includes(`content="0;url=${url}"`), html);
      // The page's code is the one the daemon made: it logs in once.
      const login = (value: string) =>
        fetch(`http://127.0.0.1:${stack.portConsole}/console/api/login`, {
          method: 'POST',
          headers: { host: `localhost:${stack.portConsole}`, origin: `http://localhost:${stack.portConsole}`, 'content-type': 'application/json' },
          body: JSON.stringify({ code: value }),
        });
      assert.equal((await login(code)).status, 200);
      assert.equal((await login(code)).status, 401);
      // Once its code has expired the page is removed by the cleaner every start runs.
      assert.equal(removeDataDirTemporaries(stack.home), 0);
      assert.ok(existsSync(page));
      const old = new Date(Date.now() - 120_000);
      utimesSync(page, old, old);
      assert.equal(removeDataDirTemporaries(stack.home), 1);
      assert.ok(!existsSync(page));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('an agent cannot make a login link (exit 7)', async () => {
    addAgent(stack.home, 'curious');
    const run = await runLatch(['console', '--no-open', '--agent', 'curious'], env());
    assert.equal(run.code, 7, run.stdout + run.stderr);
    assert.match(run.stderr, /agent_not_permitted/);
  });
});
