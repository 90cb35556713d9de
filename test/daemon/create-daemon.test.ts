import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { fromBase64Url } from '../../src/crypto/base64url.js';
import { createDaemon, type DaemonHandle, type DaemonOptions } from '../../src/daemon/create-daemon.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { createDeviceKey } from '../support/device-key.js';
import { readToken, rotateToken, tokenPath } from '../../src/datadir/token.js';
import { errorCode, sendRaw, type RawResponse } from '../http/raw-client.js';
import { CaptureStream, tempHome } from './daemon-fixture.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function startDaemon(options: Partial<DaemonOptions> = {}): Promise<{ daemon: DaemonHandle; home: string; portA: number; portB: number; log: CaptureStream }> {
  const dir = tempHome();
  cleanups.push(dir.remove);
  const log = new CaptureStream();
  const daemon = createDaemon({ home: dir.home, portA: 0, portB: 0, logStream: log, env: {}, ...options });
  cleanups.push(() => daemon.close({ deadlineMs: 1_000 }));
  const ports = await daemon.listen();
  return { daemon, home: dir.home, portA: ports.portA ?? -1, portB: ports.portB ?? -1, log };
}

function get(port: number, target: string, token?: string): Promise<RawResponse> {
  const headers: Array<[string, string]> = [['Host', `127.0.0.1:${port}`]];
  if (token !== undefined) headers.push(['Authorization', `Bearer ${token}`]);
  return sendRaw(port, { target, headers });
}

describe('startup', () => {
  test('creates the data directory at 0700 and the token at 0600', async () => {
    const { home } = await startDaemon();
    assert.equal(statSync(home).mode & 0o777, 0o700);
    assert.equal(statSync(tokenPath(home)).mode & 0o777, 0o600);
    assert.match(readToken(home), /^[A-Za-z0-9_-]{43}$/);
  });

  test('both listeners are bound to 127.0.0.1 only', async () => {
    const { daemon, portA, portB } = await startDaemon();
    assert.deepEqual(daemon.addresses(), [
      { listener: 'a', address: '127.0.0.1', port: portA },
      { listener: 'b', address: '127.0.0.1', port: portB },
    ]);
  });

  test('either listener can be turned off', async () => {
    const onlyB = await startDaemon({ variantA: false });
    assert.deepEqual(onlyB.daemon.addresses().map((a) => a.listener), ['b']);
    assert.equal(onlyB.portA, -1);
    const onlyA = await startDaemon({ variantB: false });
    assert.deepEqual(onlyA.daemon.addresses().map((a) => a.listener), ['a']);
    assert.throws(() => createDaemon({ home: '/nonexistent', variantA: false, variantB: false }), /both listeners are disabled/);
  });

  test('a port in use rejects listen and leaves nothing bound', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const busyPort = (blocker.address() as net.AddressInfo).port;
    const dir = tempHome();
    cleanups.push(dir.remove);
    const daemon = createDaemon({ home: dir.home, portA: 0, portB: busyPort, logStream: new CaptureStream(), env: {} });
    await assert.rejects(daemon.listen(), { code: 'EADDRINUSE' });
    assert.deepEqual(daemon.addresses(), []);
  });

  const refusals: Array<[string, (home: string) => string, RegExp]> = [
    ['data directory 0755', (home) => (chmodSync(home, 0o755), home), /chmod 700 /],
    ['daemon_token 0644', (home) => (writePrivate(home, 'daemon_token', 'x'.repeat(43)), chmodSync(path.join(home, 'daemon_token'), 0o644), path.join(home, 'daemon_token')), /chmod 600 /],
    ['device.key 0640', (home) => (writePrivate(home, 'device.key', '{}'), chmodSync(path.join(home, 'device.key'), 0o640), path.join(home, 'device.key')), /chmod 600 /],
    ['config.json 0604', (home) => (writePrivate(home, 'config.json', '{}'), chmodSync(path.join(home, 'config.json'), 0o604), path.join(home, 'config.json')), /chmod 600 /],
    ['daemon_token owned by another user', (home) => (writePrivate(home, 'daemon_token', 'x'.repeat(43)), chownSync(path.join(home, 'daemon_token'), 65534, 65534), path.join(home, 'daemon_token')), /chown /],
    ['data directory owned by another user', (home) => (chownSync(home, 65534, 65534), home), /chown /],
  ];
  for (const [name, spoil, fix] of refusals) {
    test(`refuses to start: ${name}`, { skip: process.getuid?.() !== 0 && name.includes('another user') ? 'needs root to chown' : false }, async () => {
      const dir = tempHome();
      cleanups.push(dir.remove);
      mkdirSync(dir.home, { mode: 0o700 });
      const file = spoil(dir.home);
      const daemon = createDaemon({ home: dir.home, portA: 0, portB: 0, logStream: new CaptureStream(), env: {} });
      await assert.rejects(daemon.listen(), (error: unknown) => {
        assert.ok(error instanceof DataDirError);
        assert.equal(error.file, file);
        assert.match(error.fix, fix);
        assert.ok(error.message.includes(file));
        return true;
      });
      assert.deepEqual(daemon.addresses(), []);
    });
  }
});

describe('/health', () => {
  test('Variant A: no token, public key material only, null before enrollment', async () => {
    const { portA } = await startDaemon();
    const response = await get(portA, '/health');
    assert.equal(response.status, 200);
    const body = JSON.parse(response.body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['approvals_locked_seconds', 'cloud_clock_skew_seconds', 'owner_presence', 'paused', 'signing_key', 'status', 'uptime_seconds', 'version']);
    assert.equal(body['status'], 'ok');
    assert.match(String(body['version']), /^\d+\.\d+\.\d+/);
    assert.ok(Number.isInteger(body['uptime_seconds']));
    assert.equal(body['signing_key'], null);
  });

  test('Variant A: signing_key names the loaded device key', async () => {
    const dir = tempHome();
    cleanups.push(dir.remove);
    mkdirSync(dir.home, { mode: 0o700 });
    const key = createDeviceKey(dir.home);
    const { portA } = await startDaemon({ home: dir.home });
    const body = JSON.parse((await get(portA, '/health')).body) as { signing_key: Record<string, string> };
    assert.deepEqual(Object.keys(body.signing_key).sort(), ['algorithm', 'key_id', 'public_key']);
    assert.equal(body.signing_key['algorithm'], 'Ed25519');
    assert.equal(body.signing_key['key_id'], key.keyId);
    assert.deepEqual(fromBase64Url(body.signing_key['public_key'] ?? ''), key.publicKey);
  });

  test('Variant A: a key enrolled while the daemon runs shows up without a restart', async () => {
    const { portA, home } = await startDaemon();
    assert.equal(JSON.parse((await get(portA, '/health')).body).signing_key, null);
    const key = createDeviceKey(home);
    assert.equal(JSON.parse((await get(portA, '/health')).body).signing_key.key_id, key.keyId);
  });

  test('Variant B: token required, then exactly {status, version, uptime_seconds}', async () => {
    const { portB, home } = await startDaemon();
    const without = await get(portB, '/health');
    assert.equal(without.status, 401);
    assert.equal(errorCode(without), 'missing_bearer_token');
    const response = await get(portB, '/health', readToken(home));
    assert.equal(response.status, 200);
    const body = JSON.parse(response.body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['status', 'uptime_seconds', 'version']);
  });

  test('the Host allow-list applies to /health on both listeners', async () => {
    const { portA, portB, home } = await startDaemon();
    for (const port of [portA, portB]) {
      for (const hostHeader of ['evil.com:7723', `localhost.evil.com:${port}`, `127.0.0.1:${port === portA ? portB : portA}`]) {
        const response = await sendRaw(port, { target: '/health', headers: [['Host', hostHeader], ['Authorization', `Bearer ${readToken(home)}`]] });
        assert.equal(response.status, 403, `${hostHeader} on ${port}`);
        assert.equal(errorCode(response), 'forbidden_host');
      }
    }
  });
});

describe('token', () => {
  test('rotation takes effect without a restart', async () => {
    const { portB, home } = await startDaemon();
    const before = readToken(home);
    assert.equal((await get(portB, '/health', before)).status, 200);
    const rotated = rotateToken(home);
    const old = await get(portB, '/health', before);
    assert.equal(old.status, 401);
    assert.equal(errorCode(old), 'invalid_bearer_token');
    assert.equal((await get(portB, '/health', rotated)).status, 200);
  });

  test('a token file made public while running is refused (fail closed, 503 data_directory_unavailable)', async () => {
    const { portB, home, log } = await startDaemon();
    const token = readToken(home);
    chmodSync(tokenPath(home), 0o644);
    const response = await get(portB, '/health', token);
    assert.equal(response.status, 503);
    assert.equal(errorCode(response), 'data_directory_unavailable');
    assert.doesNotMatch(response.raw, /daemon_token|chmod/, 'the file and the fix stay in the local log');
    const logged = log.lines().find((line) => line['event'] === 'data_directory_unavailable');
    assert.ok(logged, 'the problem is logged');
    assert.equal(logged['file'], tokenPath(home));
    assert.equal(logged['problem'], 'insecure_permissions');
    assert.match(String(logged['fix']), /chmod 600/);
  });

  test('the token never appears in the captured log', async () => {
    const { portA, portB, home, log } = await startDaemon();
    const token = readToken(home);
    await get(portB, '/health', token);
    await get(portB, `/health?token=${token}`);
    await get(portB, '/health', `${token}x`);
    await get(portA, `/nowhere/${token}`, token);
    await get(portA, '/health');
    const rotated = rotateToken(home);
    await get(portB, '/health', rotated);
    const text = log.text();
    assert.ok(log.lines().filter((line) => line['event'] === 'request').length >= 6);
    assert.equal(text.includes(token), false);
    assert.equal(text.includes(rotated), false);
  });
});

describe('several daemons', () => {
  test('two daemons in one process keep their own homes, ports and tokens', async () => {
    const first = await startDaemon();
    const second = await startDaemon();
    assert.notEqual(first.portA, second.portA);
    const firstToken = readToken(first.home);
    const secondToken = readToken(second.home);
    assert.notEqual(firstToken, secondToken);
    assert.equal((await get(first.portB, '/health', firstToken)).status, 200);
    assert.equal((await get(second.portB, '/health', secondToken)).status, 200);
    assert.equal((await get(first.portB, '/health', secondToken)).status, 401);
    await first.daemon.close();
    assert.equal((await get(second.portA, '/health')).status, 200);
  });

  test('close is idempotent and listen may be called once', async () => {
    const { daemon } = await startDaemon();
    await assert.rejects(daemon.listen(), /once/);
    await daemon.close();
    await daemon.close();
    assert.deepEqual(daemon.addresses(), []);
  });
});

function writePrivate(home: string, name: string, text: string): void {
  writeFileSync(path.join(home, name), text, { mode: 0o600 });
}
