/**
 * Embedding: a host program runs two Latch daemons in its own process through the package's
 * entry (src/index.ts), each with its own data directory and ports, talks to them with the
 * exported client, and closes them, leaving no server, socket or timer behind.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, test } from 'node:test';
import { readToken } from '../../src/datadir/token.js';
import { createDaemon, latchVersion, LatchClient, LatchClientError, resolveHome, type DaemonHandle } from '../../src/index.js';

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** The kinds of resource that a leak would leave: servers, sockets, timers. */
const WATCHED = new Set(['TCPServerWrap', 'TCPSocketWrap', 'Timeout', 'FSReqCallback', 'FileHandle']);

/** activeResources counts the watched resources that keep this process alive. */
function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) {
    if (WATCHED.has(kind)) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return counts;
}

/**
 * resourcesAfterClose lets closed handles finish closing (libuv frees them a few event-loop
 * turns after close() resolves) and returns the counts once they equal baseline, or after a
 * bounded number of turns whatever remains, for the assertion to show.
 */
async function resourcesAfterClose(baseline: Map<string, number>): Promise<Map<string, number>> {
  const same = (a: Map<string, number>): boolean => JSON.stringify([...a].sort()) === JSON.stringify([...baseline].sort());
  for (let turn = 0; turn < 200; turn += 1) {
    if (same(activeResources())) break;
    await nextTurn();
  }
  return activeResources();
}

function tempRoot(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'latch-embed-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof LatchClientError, `expected a LatchClientError, got ${String(error)}`);
    return error.code;
  }
  assert.fail('the call succeeded');
}

describe('embedding two daemons in one process', () => {
  test('separate data directories and ports; each token opens only its own daemon; close leaves nothing running', async () => {
    const root = tempRoot();
    const baseline = await resourcesAfterClose(new Map());

    const homes = [path.join(root, 'one'), path.join(root, 'two')] as const;
    const daemons: DaemonHandle[] = homes.map((home) => createDaemon({ home, portA: 0, portB: 0, env: {}, logStream: new PassThrough() }));
    // If an assertion fails first, the daemons still close (close is idempotent).
    for (const d of daemons) cleanups.push(() => d.close({ deadlineMs: 0 }));
    const ports = [await daemons[0]!.listen(), await daemons[1]!.listen()];
    const bound = ports.flatMap((p) => [p.portA, p.portB]);
    assert.equal(new Set(bound).size, 4, `four distinct ports: ${bound.join(', ')}`);
    assert.ok(bound.every((port) => typeof port === 'number' && port > 0));

    // Each daemon made its own token in its own directory.
    const tokens = homes.map((home) => readToken(home));
    assert.notEqual(tokens[0], tokens[1]);

    const client = (home: string, port: number | undefined): LatchClient => {
      const made = new LatchClient({ home, baseUrl: `http://127.0.0.1:${port}`, env: {}, timeoutMs: 5_000 });
      cleanups.push(() => made.close());
      return made;
    };
    const own = [client(homes[0], ports[0]!.portA), client(homes[1], ports[1]!.portA)];
    for (const c of own) {
      const health = await c.health();
      assert.equal(health.status, 'ok');
      assert.equal(health.version, latchVersion());
      assert.equal(health.signing_key, null);
      // The token is accepted (no device yet, so the answer is device_not_enrolled, not a token error).
      assert.equal(await codeOf(c.cards()), 'device_not_enrolled');
    }
    // A client of daemon one never sends its token to daemon two: daemon two cannot prove it
    // knows that token. And the token opens nothing there when sent anyway.
    const crossed = client(homes[0], ports[1]!.portA);
    assert.equal(await codeOf(crossed.cards()), 'daemon_not_verified');
    const sentAnyway = await fetch(`http://127.0.0.1:${ports[1]!.portA}/cards`, { headers: { authorization: `Bearer ${readToken(homes[0]!)}` } });
    assert.equal(sentAnyway.status, 401);
    assert.equal(((await sentAnyway.json()) as { error: { code: string } }).error.code, 'invalid_bearer_token');

    // Close the daemons while the clients still hold keep-alive connections: close must drop them.
    await Promise.all(daemons.map((d) => d.close({ deadlineMs: 1_000 })));
    assert.deepEqual(daemons.map((d) => d.addresses()), [[], []]);
    for (const c of [...own, crossed]) c.close();
    assert.deepEqual(await resourcesAfterClose(baseline), baseline);
  });

  test('a daemon that fails to listen (port taken by the other) leaves nothing bound, and the other keeps serving', async () => {
    const root = tempRoot();
    const baseline = await resourcesAfterClose(new Map());
    const first = createDaemon({ home: path.join(root, 'one'), portA: 0, variantB: false, env: {}, logStream: new PassThrough() });
    cleanups.push(() => first.close({ deadlineMs: 0 }));
    const { portA } = await first.listen();
    const second = createDaemon({ home: path.join(root, 'two'), portA: 0, portB: portA, env: {}, logStream: new PassThrough() });
    await assert.rejects(second.listen(), { code: 'EADDRINUSE' });
    assert.deepEqual(second.addresses(), []);
    const c = new LatchClient({ home: path.join(root, 'one'), baseUrl: `http://127.0.0.1:${portA}`, env: {}, timeoutMs: 5_000 });
    assert.equal((await c.health()).status, 'ok');
    c.close();
    await first.close({ deadlineMs: 1_000 });
    await second.close();
    assert.deepEqual(await resourcesAfterClose(baseline), baseline);
  });

  test('resolveHome is the data directory rule embedders use: LATCH_HOME, else ~/.latch', () => {
    assert.equal(resolveHome({ LATCH_HOME: '/srv/latch' }), '/srv/latch');
    assert.equal(resolveHome({}), path.join(os.homedir(), '.latch'));
  });
});
