/**
 * The daemon holds its ports on both loopback families. Before, it listened on 127.0.0.1 only,
 * and another local user could bind [::1] on the same port while the daemon ran: every client
 * whose "localhost" resolved to ::1 first then handed that user its token.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { LatchClient } from '../../src/client/latch-client.js';
import { createDaemon, type DaemonHandle } from '../../src/daemon/create-daemon.js';
import { ensureHome } from '../../src/datadir/home.js';
import { createLocalServer } from '../../src/http/local-server.js';
import { CaptureLog } from '../http/front-door-fixture.js';

/** bindError tries to listen on host:port and returns the error code, or undefined when it bound. */
function bindError(host: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'ERROR'));
    server.listen({ host, port, exclusive: true, ipv6Only: host.includes(':') }, () => server.close(() => resolve(undefined)));
  });
}

/** The machine has an IPv6 loopback when a socket can bind ::1 at all. */
const ipv6Loopback = (await bindError('::1', 0)) === undefined;
const skip = ipv6Loopback ? false : 'this machine has no IPv6 loopback (::1); the daemon then listens on 127.0.0.1 only and logs it';

let root: string;
let home: string;
let daemon: DaemonHandle;
let ports: { portA: number; portB: number };

before(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'latch-loopback-'));
  home = path.join(root, 'home');
  ensureHome(home);
  daemon = createDaemon({ home, portA: 0, portB: 0, env: {}, logStream: new PassThrough() });
  const bound = await daemon.listen();
  ports = { portA: bound.portA as number, portB: bound.portB as number };
});
after(async () => {
  await daemon.close({ deadlineMs: 100 });
  rmSync(root, { recursive: true, force: true });
});

describe('a squatter on the other loopback family while the daemon runs', { skip }, () => {
  for (const [listener, port] of [['A', () => ports.portA], ['B', () => ports.portB]] as const) {
    test(`binding [::1] on the port of listener ${listener} fails: the daemon holds it`, async () => {
      assert.equal(await bindError('::1', port()), 'EADDRINUSE');
      assert.equal(await bindError('127.0.0.1', port()), 'EADDRINUSE');
    });
  }

  test('the daemon answers on [::1] too, and proves itself for that address', async () => {
    const client = new LatchClient({ home, baseUrl: `http://[::1]:${ports.portA}`, env: {} });
    try {
      await client.verifyDaemon();
      assert.equal((await client.health()).status, 'ok');
    } finally {
      client.close();
    }
  });

  test('a listener whose [::1] port is already taken does not start half-protected', async () => {
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen({ host: '::1', port: 0, ipv6Only: true }, resolve));
    const port = (squatter.address() as net.AddressInfo).port;
    const server = createLocalServer({ listener: 't', port, frontDoor: async () => undefined, log: new CaptureLog() });
    try {
      await assert.rejects(server.listen(), { code: 'EADDRINUSE' });
      assert.equal(server.address(), undefined, 'nothing stays bound on 127.0.0.1');
    } finally {
      await server.close(0);
      await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }
  });
});

test('the daemon always holds 127.0.0.1 on both listeners', async () => {
  const bound = daemon.addresses().map(({ listener, address }) => `${listener} ${address}`).sort();
  assert.deepEqual(bound, ['a 127.0.0.1', 'b 127.0.0.1']);
});
