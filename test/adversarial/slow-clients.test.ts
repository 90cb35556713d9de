/**
 * Slow clients against the real daemon with shortened limits (header time 1 s, request time 2 s,
 * keep-alive 1 s). Each attack would hold its connection for a minute or more if nothing cut it
 * off; the assertions are outcomes — the server closed the connection while the attacker still
 * had bytes to send, answered 408 request_timeout where an answer is possible, processed
 * nothing — with deadlines far above the limits, never durations.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startStack, type Stack } from '../support/stack.js';
import { startLimitedDaemon, type LimitedDaemon } from './limited-daemon.js';
import { holdSocket, waitFor, type HeldSocket } from './wire.js';

const LIMITS = { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000, keepAliveTimeoutMs: 1_000, socketIdleTimeoutMs: 4_000 };
/** Far above every limit: a connection not closed by then was not cut off by the daemon. */
const CLOSED_WITHIN_MS = 20_000;

let stack: Stack;
let daemon: LimitedDaemon;
before(async () => {
  stack = await startStack();
  daemon = await startLimitedDaemon(stack.home, LIMITS);
});
after(async () => {
  await daemon.close();
  await stack.close();
});

const portOf = (listener: 'a' | 'b'): number => (listener === 'a' ? daemon.portA : daemon.portB);

/** trickle writes text one byte per interval until the socket closes or the text runs out. */
function trickle(held: HeldSocket, text: string, intervalMs = 100): { sentAll: () => boolean; stop: () => void } {
  let index = 0;
  const timer = setInterval(() => {
    if (held.isClosed() || index >= text.length) {
      clearInterval(timer);
      return;
    }
    held.socket.write(text[index] as string);
    index += 1;
  }, intervalMs);
  return { sentAll: () => index >= text.length, stop: () => clearInterval(timer) };
}

async function allocated(): Promise<string> {
  return (await stack.a.get('/wallet/balance')).body.allocated as string;
}

function assertTimedOut(held: HeldSocket, what: string): void {
  const text = held.received();
  assert.match(text, /^HTTP\/1\.1 408 /, `${what}: ${text.slice(0, 200)}`);
  assert.match(text, /"code":"request_timeout"/, what);
}

// Every attack waits on the daemon's clock, so they run side by side.
describe('slow clients', { concurrency: true }, () => {
  describe('slowloris', { concurrency: true }, () => {
    for (const listener of ['a', 'b'] as const) {
      test(`${listener}: headers sent one byte every 100 ms (a minute's worth) are cut off with 408`, async () => {
        const p = portOf(listener);
        const held = holdSocket(p);
        const request = `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${p}\r\nAuthorization: Bearer ${stack.token()}\r\nX-Pad: ${'a'.repeat(600)}\r\n\r\n`;
        const writer = trickle(held, request);
        await waitFor(held.isClosed, CLOSED_WITHIN_MS, 'the slowloris connection was not closed');
        writer.stop();
        assert.equal(writer.sentAll(), false, 'closed while the attacker still had header bytes to send');
        assertTimedOut(held, `listener ${listener}`);
      });
    }

    test('50 slowloris connections at once are all cut off, and /health answers meanwhile', async () => {
      const helds = Array.from({ length: 50 }, () => holdSocket(daemon.portA));
      const writers = helds.map((held) => trickle(held, `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${daemon.portA}\r\nX-Pad: ${'a'.repeat(600)}\r\n\r\n`, 200));
      const health = await fetch(`http://127.0.0.1:${daemon.portA}/health`);
      assert.equal(health.status, 200);
      await Promise.all(helds.map((held) => waitFor(held.isClosed, CLOSED_WITHIN_MS, 'a slowloris connection stayed open')));
      for (const writer of writers) writer.stop();
      assert.ok(writers.every((writer) => !writer.sentAll()));
    });
  });

  describe('silent and half-finished requests', { concurrency: true }, () => {
    for (const listener of ['a', 'b'] as const) {
      test(`${listener}: a connection that never sends a byte is closed with 408`, async () => {
        const held = holdSocket(portOf(listener));
        await waitFor(held.isClosed, CLOSED_WITHIN_MS, 'the idle connection was not closed');
        assertTimedOut(held, 'silent');
      });
    }

    test('half a request line, then silence → 408, closed', async () => {
      const held = holdSocket(daemon.portA);
      held.socket.write('GET /hea');
      await waitFor(held.isClosed, CLOSED_WITHIN_MS, 'not closed');
      assertTimedOut(held, 'half line');
    });

    test('headers without their final blank line → 408, closed', async () => {
      const held = holdSocket(daemon.portB);
      held.socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${daemon.portB}\r\n`);
      await waitFor(held.isClosed, CLOSED_WITHIN_MS, 'not closed');
      assertTimedOut(held, 'no blank line');
    });
  });

  describe('slow and short bodies', { concurrency: true }, () => {
    const surfaces = (): Array<[string, number, string, string]> => [
      ['A /wallet/allocate', daemon.portA, '/wallet/allocate', JSON.stringify({ card_id: stack.cards[0].card_id, amount: '1.00' })],
      ['B /wallet/allocate', daemon.portB, '/wallet/allocate', JSON.stringify({ card_id: stack.cards[0].card_id, amount: 1 })],
      ['A /v1/wallet/allocate', daemon.portA, '/v1/wallet/allocate', JSON.stringify({ card_id: stack.cards[0].card_id, amount: '1.00' })],
    ];
    for (const index of [0, 1, 2]) {
      test(`a body trickled one byte at a time, and a body shorter than its Content-Length → 408, nothing allocated (surface ${index + 1})`, async () => {
        const [name, port, path, body] = surfaces()[index] as [string, number, string, string];
        const before = await allocated();
        const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${stack.token()}\r\nContent-Type: application/json\r\n`;
        // The body would be complete after 60 s of one byte per 100 ms: whitespace, then the JSON.
        const padded = `${' '.repeat(600 - body.length)}${body}`;
        const slow = holdSocket(port);
        slow.socket.write(`${head}Content-Length: ${padded.length}\r\n\r\n`);
        const writer = trickle(slow, padded);
        const short = holdSocket(port);
        short.socket.write(`${head}Content-Length: ${body.length + 10}\r\n\r\n${body}`);
        await waitFor(() => slow.isClosed() && short.isClosed(), CLOSED_WITHIN_MS, `${name}: not closed`);
        writer.stop();
        assert.equal(writer.sentAll(), false);
        assertTimedOut(slow, `${name} slow body`);
        assertTimedOut(short, `${name} short body`);
        assert.equal(await allocated(), before, 'nothing was processed');
      });
    }
  });

  describe('keep-alive', { concurrency: true }, () => {
    test('an idle keep-alive connection is closed after its answer; a busy one is served', async () => {
      const held = holdSocket(daemon.portA);
      const request = `GET /health HTTP/1.1\r\nHost: 127.0.0.1:${daemon.portA}\r\n\r\n`;
      held.socket.write(request);
      await waitFor(() => held.received().includes('"status":"ok"'), CLOSED_WITHIN_MS, 'no answer');
      held.socket.write(request);
      await waitFor(() => (held.received().match(/"status":"ok"/g) ?? []).length === 2, CLOSED_WITHIN_MS, 'no second answer on the same connection');
      await waitFor(held.isClosed, CLOSED_WITHIN_MS, 'the idle keep-alive connection was not closed');
      assert.equal((held.received().match(/HTTP\/1\.1 /g) ?? []).length, 2, 'closed without another answer');
    });
  });
});
