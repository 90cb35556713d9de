/**
 * The serving gate of a local listener: connections are accepted once the port is bound, but no
 * request reaches the front door (or the daemon proof) before the daemon has regenerated its
 * token. Held requests are answered once the gate opens, and dropped if it fails.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLocalServer } from '../../src/http/local-server.js';
import { waitUntil } from '../support/wait.js';
import { CaptureLog } from './front-door-fixture.js';
import { sendRaw } from './raw-client.js';

/**
 * gate is the server's `ready` promise, opened or failed by the test. It counts the server's waits
 * on it: one when the server is made, then one per request held at the gate, so a test can see a
 * request waiting there instead of sleeping and hoping it arrived.
 */
function gate(): { ready: Promise<void>; open(): void; fail(error: Error): void; waits(): number } {
  let open: () => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  let waits = 0;
  const then = ready.then.bind(ready);
  ready.then = ((onOpen?: () => unknown, onFail?: (error: unknown) => unknown) => {
    waits++;
    return then(onOpen, onFail);
  }) as typeof ready.then;
  return { ready, open, fail, waits: () => waits };
}

test('a request that arrives before the gate opens is served only after it opens', async () => {
  const { ready, open, waits } = gate();
  const events: string[] = [];
  const server = createLocalServer({
    listener: 't',
    port: 0,
    log: new CaptureLog(),
    ready,
    frontDoor: async (_request, response) => {
      events.push('front door');
      response.end('served');
    },
  });
  const port = await server.listen();
  try {
    const answer = sendRaw(port, { target: '/health', headers: [['Host', `127.0.0.1:${port}`], ['Latch-Challenge', 'A'.repeat(43)]] });
    await waitUntil(() => waits() === 2, 'the request is held at the gate');
    assert.equal(events.length, 0, 'a held request does not reach the front door');
    events.push('open');
    open();
    const response = await answer;
    assert.equal(response.status, 200);
    assert.equal(response.body, 'served');
    assert.deepEqual(events, ['open', 'front door']);
  } finally {
    await server.close(100);
  }
});

test('a request held at a gate that fails is dropped, never served', async () => {
  const { ready, fail, waits } = gate();
  let served = 0;
  const server = createLocalServer({ listener: 't', port: 0, log: new CaptureLog(), ready, frontDoor: async () => void served++ });
  const port = await server.listen();
  try {
    const answer = sendRaw(port, { target: '/health', headers: [['Host', `127.0.0.1:${port}`]] });
    await waitUntil(() => waits() === 2, 'the request is held at the gate');
    fail(new Error('the credentials could not be regenerated'));
    await assert.rejects(answer, /no complete HTTP response/);
    assert.equal(served, 0);
  } finally {
    await server.close(100);
  }
});
