/** `latch console` against the real daemon: one line, the login link, which then works once. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addAgent } from '../../src/datadir/agents.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';

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

  test('an agent cannot make a login link (exit 7)', async () => {
    addAgent(stack.home, 'curious');
    const run = await runLatch(['console', '--no-open', '--agent', 'curious'], env());
    assert.equal(run.code, 7, run.stdout + run.stderr);
    assert.match(run.stderr, /agent_not_permitted/);
  });
});
