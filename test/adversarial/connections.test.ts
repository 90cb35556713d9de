/**
 * 1,000 concurrent connections against one listener with the default cap (256).
 *
 * What Latch promises here (SECURITY.md): the cap protects the daemon's memory and file
 * descriptors, not its availability to you. While a local process holds every slot, new
 * connections to that listener are dropped at once; requests on the connections already accepted
 * are still answered, the other listener has its own cap and answers, and once the holders are
 * gone — closed by the attacker or cut off by the header timeout — /health answers again on a
 * fresh connection. Outcomes only: how many connections were kept and served, never how fast.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_SERVER_LIMITS } from '../../src/http/local-server.js';
import { startStack, type Stack } from '../support/stack.js';
import { startLimitedDaemon, type LimitedDaemon } from './limited-daemon.js';
import { holdSocket, sleep, waitFor, type HeldSocket } from './wire.js';

const CONNECTIONS = 1_000;
const CAP = DEFAULT_SERVER_LIMITS.connectionsMax;
/** Client and server sockets live in this one process: 1,000 + 256 + the stack's own. */
const DESCRIPTORS_NEEDED = 2 * CONNECTIONS + 512;

function descriptorLimit(): number {
  try {
    const text = execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim();
    return text === 'unlimited' ? Number.POSITIVE_INFINITY : Number(text);
  } catch {
    return 0;
  }
}
const skip = descriptorLimit() < DESCRIPTORS_NEEDED ? `needs ulimit -n of at least ${DESCRIPTORS_NEEDED}` : false;

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

/** openMany opens n connections at once and waits until the server has dropped all it will drop. */
async function openMany(port: number, n: number): Promise<{ kept: HeldSocket[]; dropped: HeldSocket[] }> {
  const sockets = Array.from({ length: n }, () => holdSocket(port));
  // Connections over the cap are accepted and destroyed by Node at once; wait for that to settle.
  await waitFor(() => sockets.filter((s) => s.isClosed()).length >= n - CAP, 30_000, 'the connections over the cap were not dropped');
  await sleep(500);
  const kept = sockets.filter((s) => !s.isClosed());
  return { kept, dropped: sockets.filter((s) => s.isClosed()) };
}

/** health asks for /health on a fresh connection; undefined when the connection is refused or dropped. */
async function freshHealth(port: number): Promise<number | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`, { headers: { authorization: `Bearer ${stack.token()}` } });
    await response.text();
    return response.status;
  } catch {
    return undefined;
  }
}

/** askOn sends GET /health on an already-open connection and returns the status line's code. */
function askOn(held: HeldSocket, port: number): Promise<number | undefined> {
  held.socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
  return held.closed.then(() => {
    const match = /^HTTP\/1\.1 (\d{3}) /.exec(held.received());
    return match === null ? undefined : Number(match[1]);
  });
}

/** saturate fills A's slots, checks who is served, then frees them and checks a fresh /health. */
async function saturate(daemon: LimitedDaemon): Promise<void> {
  const { kept, dropped } = await openMany(daemon.portA, CONNECTIONS);
  assert.ok(kept.length <= CAP, `at most ${CAP} connections kept, got ${kept.length}`);
  assert.ok(kept.length >= CAP / 2, `the listener accepted up to its cap (kept ${kept.length})`);
  assert.ok(dropped.length >= CONNECTIONS - CAP);
  assert.ok(dropped.every((s) => s.received() === ''), 'a dropped connection gets no answer at all');

  // Saturated: a new connection to A is dropped (the documented limit of the cap) ...
  assert.equal(await freshHealth(daemon.portA), undefined, 'a fresh connection is dropped while every slot is held');
  // ... while the B listener, with its own cap, answers ...
  assert.equal(await freshHealth(daemon.portB), 200);
  // ... and every accepted connection is served.
  const statuses = await Promise.all(kept.map((held) => askOn(held, daemon.portA)));
  assert.deepEqual(
    statuses.filter((status) => status !== 200),
    [],
    'every held slot answers /health',
  );

  // The slots are free again: a fresh connection is served.
  let status: number | undefined;
  for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
    status = await freshHealth(daemon.portA);
    if (status !== 200) await sleep(200);
  }
  assert.equal(status, 200);
}

describe('1,000 concurrent connections', { skip }, () => {
  test('the cap holds; accepted connections are served; B is unaffected; a fresh /health answers once they are gone', async () => {
    // Time limits far above the test's length, so that only the cap decides who is served.
    const daemon = await startLimitedDaemon(stack.home, { headersTimeoutMs: 120_000, requestTimeoutMs: 240_000 });
    try {
      await saturate(daemon);
    } finally {
      await daemon.close();
    }
  });

  test('1,000 silent connections are cut off by the header timeout, freeing the slots without the attacker’s help', async () => {
    const daemon: LimitedDaemon = await startLimitedDaemon(stack.home, { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 });
    try {
      const { kept } = await openMany(daemon.portA, CONNECTIONS);
      assert.ok(kept.length <= CAP);
      // The attacker keeps its sockets open; only the daemon can end them.
      await Promise.all(kept.map((held) => waitFor(held.isClosed, 30_000, 'a silent connection held its slot')));
      assert.ok(kept.every((held) => /^HTTP\/1\.1 408 /.test(held.received())), 'each was answered 408 request_timeout');
      let status: number | undefined;
      for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
        status = await freshHealth(daemon.portA);
        if (status !== 200) await sleep(200);
      }
      assert.equal(status, 200, '/health answers once the daemon has cut the holders off');
    } finally {
      await daemon.close();
    }
  });
});
