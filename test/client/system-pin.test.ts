/**
 * Root's pin (docs/decisions.md §30): the daemon's key and address in a file only root can write,
 * which the owner's client prefers to everything in the owner's own data directory. An agent
 * running as the owner rewrites daemon_key.pub, listen.json, config.json and daemon_token there,
 * and starts its own daemon that proves its own key: the owner's client still talks only to the
 * daemon root pinned, and the passphrase never reaches the fake. A pin that anyone but root could
 * have written is refused, never read as "no pin". Creating root-owned files needs root.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import http from 'node:http';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LatchClient } from '../../src/client/latch-client.js';
import { LatchClientError } from '../../src/client/client-errors.js';
import { readPinnedKey, writePinnedKey } from '../../src/client/pinned-key.js';
import { toBase64Url } from '../../src/crypto/base64url.js';
import { keyIdOf } from '../../src/crypto/jwk.js';
import { clearApprovalPassphrase, setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { loadConfig } from '../../src/datadir/config.js';
import { mergeSystemPin, parseSystemPins, readSystemPins, SYSTEM_PIN_ENV, SystemPinError, writeSystemPin } from '../../src/datadir/system-pin.js';
import { currentAccountName, systemPinChoice } from '../../src/client/system-daemon.js';
import { runLatch } from '../support/stack.js';
import { keyProofMessage } from '../../src/http/daemon-proof.js';
import { startStack, type Stack } from '../support/stack.js';

const ME = currentAccountName() ?? 'root';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const skip = isRoot ? false : 'needs root to make root-owned pin files (CI runs as root)';
const PASSPHRASE = 'root pinned this daemon';
const OTHER_UID = 54_321;

/** A key the fake daemon proves with: node:crypto's Ed25519, so the test needs no signer of Latch's. */
function fakeSigningKey(): { publicKey: Uint8Array; sign: (message: Uint8Array) => Uint8Array } {
  const pair = generateKeyPairSync('ed25519');
  const privateKey: KeyObject = pair.privateKey;
  const jwk = pair.publicKey.export({ format: 'jwk' }) as { x: string };
  return { publicKey: new Uint8Array(Buffer.from(jwk.x, 'base64url')), sign: (message) => new Uint8Array(sign(null, message, privateKey)) };
}

/** A fake daemon that proves its own key on any address and records every byte it is sent. */
async function fakeDaemon(): Promise<{ port: number; seen: () => string; close: () => Promise<void> }> {
  const key = fakeSigningKey();
  let seen = '';
  let port = 0;
  const server = http.createServer((request, response) => {
    seen += `${request.method} ${request.url}\n${JSON.stringify(request.headers)}\n`;
    request.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    request.on('end', () => {
      const challenge = request.headers['latch-challenge'];
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (typeof challenge === 'string') {
        const signature = key.sign(keyProofMessage(challenge, `127.0.0.1:${port}`));
        headers['latch-key-proof'] = `${keyIdOf(key.publicKey)}.${toBase64Url(key.publicKey)}.${toBase64Url(signature)}`;
      }
      response.writeHead(request.url === '/owner/sessions' ? 201 : 200, headers);
      response.end(request.url === '/owner/sessions' ? JSON.stringify({ token: 'los_fake', expires_at: '2030-01-01T00:00:00Z' }) : JSON.stringify({ status: 'ok', version: '1', uptime_seconds: 1, signing_key: null, owner_presence: 'passphrase', approvals: [], has_more: false }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  return { port, seen: () => seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe("root's pin", { skip }, () => {
  let stack: Stack;
  let root: string;
  let pinFile: string;
  before(async () => {
    stack = await startStack();
    setApprovalPassphrase(stack.home, PASSPHRASE);
    // Root's own directory, as /etc/latch is: root-owned, writable by root alone.
    root = mkdtempSync(path.join(tmpdir(), 'latch-l36-pin-'));
    chmodSync(root, 0o755);
    pinFile = path.join(root, 'etc-latch', 'daemon.json');
  });
  after(async () => {
    clearApprovalPassphrase(stack.home);
    await stack.close();
    rmSync(root, { recursive: true, force: true });
  });

  test("an agent as the owner rewrites every file in the owner's LATCH_HOME and runs its own daemon: the owner's client uses root's pin, and the passphrase never reaches the fake", async () => {
    const keyId = loadConfig(stack.home).key_id as string;
    const env = { [SYSTEM_PIN_ENV]: pinFile };
    writeSystemPin(env, { key_id: keyId, url: `http://127.0.0.1:${stack.portA}`, data_dir: stack.home, user: 'latch', accounts: [ME] });
    const fake = await fakeDaemon();
    const own = mkdtempSync(path.join(tmpdir(), 'latch-l36-owner-'));
    try {
      // Everything the agent can write as the owner points at its fake daemon and its fake key.
      const fakeKey = fakeSigningKey().publicKey;
      writePinnedKey(own, fakeKey);
      writeFileSync(path.join(own, 'listen.json'), JSON.stringify({ v: 1, pid: process.pid, port_a: fake.port, port_b: null }), { mode: 0o600 });
      writeFileSync(path.join(own, 'config.json'), JSON.stringify({ key_id: keyIdOf(fakeKey) }), { mode: 0o600 });
      writeFileSync(path.join(own, 'daemon_token'), `${'A'.repeat(43)}\n`, { mode: 0o600 });
      assert.equal(readPinnedKey(own, env)?.source, 'system');

      const owner = new LatchClient({ home: own, env, ownerPassphrase: async () => PASSPHRASE });
      assert.equal(owner.baseUrl, `http://127.0.0.1:${stack.portA}`, "the address is root's, not listen.json's");
      const approvals = await owner.approvals();
      assert.ok(Array.isArray(approvals.approvals));
      assert.equal(owner.hasOwnerSession(), true, 'the owner called with a session, not with the planted daemon_token');
      await owner.endOwnerSession();
      owner.close();

      // Even pointed at the fake by LATCH_URL, the client proves root's key first and sends nothing.
      const misled = new LatchClient({ home: own, env: { ...env, LATCH_URL: `http://127.0.0.1:${fake.port}` }, ownerPassphrase: async () => PASSPHRASE });
      await assert.rejects(misled.approvals(), (error) => error instanceof LatchClientError && error.code === 'daemon_not_verified' && error.message.includes(pinFile));
      misled.close();
      assert.ok(!fake.seen().includes(PASSPHRASE), 'the passphrase never reached the fake daemon');
      assert.ok(!fake.seen().includes('A'.repeat(43)), 'nor the planted token');
      assert.doesNotMatch(fake.seen(), /POST \/owner\/sessions/);
    } finally {
      await fake.close();
      rmSync(own, { recursive: true, force: true });
    }
  });

  test('a pin anyone but root could have written is refused, never read as no pin: owner, mode, a symbolic link, a writable directory above it', () => {
    const dir = path.join(root, 'cases');
    mkdirSync(dir, { mode: 0o755 });
    const file = path.join(dir, 'daemon.json');
    const env = { [SYSTEM_PIN_ENV]: file };
    writeSystemPin(env, { key_id: 'k'.repeat(43), data_dir: '/var/lib/latch', user: 'latch', accounts: [ME] });
    assert.equal(readSystemPins(env)?.daemons[0]?.key_id, 'k'.repeat(43));
    const refused = (why: string) => assert.throws(() => readSystemPins(env), SystemPinError, why);

    chownSync(file, OTHER_UID, OTHER_UID);
    refused('a pin owned by another user');
    chownSync(file, 0, 0);
    chmodSync(file, 0o666);
    refused('a pin others may write');
    chmodSync(file, 0o644);
    chmodSync(dir, 0o777);
    refused('a directory others may write, not sticky');
    chmodSync(dir, 0o755);
    chownSync(dir, OTHER_UID, OTHER_UID);
    refused("a directory that is not root's");
    chownSync(dir, 0, 0);
    const linked = path.join(root, 'linked.json');
    symlinkSync(file, linked);
    assert.throws(() => readSystemPins({ [SYSTEM_PIN_ENV]: linked }), SystemPinError, 'a symbolic link');
    const linkedDir = path.join(root, 'linked-dir');
    symlinkSync(dir, linkedDir);
    assert.throws(() => readSystemPins({ [SYSTEM_PIN_ENV]: path.join(linkedDir, 'daemon.json') }), SystemPinError, 'a symbolic link above it');
    writeFileSync(file, '{"v":1,"key_id":"short"}\n');
    refused('not a pin');
    assert.throws(() => readSystemPins({ [SYSTEM_PIN_ENV]: path.join(dir, 'missing.json') }), SystemPinError, 'a named pin that is missing is an error, not no pin');
    // The client turns a refused pin into daemon_not_verified: it proves nothing against it.
    assert.throws(() => readPinnedKey(stack.home, env), (error) => error instanceof LatchClientError && error.code === 'daemon_not_verified');
  });

  test("another account's pin does not redirect this account: its own same-user daemon answers its CLI, and doctor says which pin applies and why", async () => {
    const file = path.join(root, 'others', 'daemon.json');
    const env = { [SYSTEM_PIN_ENV]: file };
    // A second person's system daemon, pinned for them only (issue 44 item 1).
    writeSystemPin(env, { key_id: 'o'.repeat(43), url: 'http://127.0.0.1:9', data_dir: '/var/lib/latch-other', user: 'latchother', accounts: ['someoneelse'] });
    const client = new LatchClient({ home: stack.home, env });
    try {
      assert.equal(client.systemDaemon, undefined, 'not redirected');
      assert.equal(client.baseUrl, `http://127.0.0.1:${stack.portA}`);
      const cards = await client.cards();
      assert.equal(cards.cards.length, 2);
    } finally {
      client.close();
    }
    assert.notEqual(readPinnedKey(stack.home, env)?.source, 'system');
    const cli = await runLatch(['cards', '--json'], { ...env, LATCH_HOME: stack.home });
    assert.equal(cli.code, 0, cli.stderr);
    const doctor = await runLatch(['doctor'], { ...env, LATCH_HOME: stack.home });
    assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
    assert.match(doctor.stdout, new RegExp(`root's pin +${file.replaceAll('/', '\\/')} does not name ${ME} \\(it pins latchother: someoneelse\\)`));
    const json = await runLatch(['doctor', '--json'], { ...env, LATCH_HOME: stack.home });
    assert.deepEqual((JSON.parse(json.stdout) as { system_pin: unknown }).system_pin, { file, applies: false, why: (systemPinChoice(stack.home, env) as { why: string }).why });

    // The same file, now naming this account too: redirected (the pin wins over LATCH_HOME).
    writeSystemPin(env, { key_id: 'p'.repeat(43), url: 'http://127.0.0.1:9', data_dir: '/var/lib/latch-mine', user: 'latchmine', accounts: [ME] });
    const pins = readSystemPins(env);
    assert.deepEqual(pins?.daemons.map((pin) => [pin.user, pin.accounts]), [['latchother', ['someoneelse']], ['latchmine', [ME]]], 'both daemons pinned, each for its accounts');
    const redirected = new LatchClient({ home: stack.home, env });
    assert.equal(redirected.systemDaemon?.user, 'latchmine');
    redirected.close();
    assert.equal(readPinnedKey(stack.home, env)?.keyId, 'p'.repeat(43));
  });

  test('a pin an older Latch wrote (one daemon, no accounts) still applies to every account, and doctor says to name them', () => {
    const dir = path.join(root, 'legacy');
    mkdirSync(dir, { mode: 0o755 });
    const file = path.join(dir, 'daemon.json');
    writeFileSync(file, JSON.stringify({ v: 1, key_id: 'l'.repeat(43), url: 'http://127.0.0.1:9', data_dir: '/var/lib/latch', user: 'latch' }), { mode: 0o644 });
    const env = { [SYSTEM_PIN_ENV]: file };
    const choice = systemPinChoice(stack.home, env);
    assert.equal(choice?.pin?.key_id, 'l'.repeat(43), 'fails closed: still redirected');
    assert.match(choice?.why ?? '', /older Latch and names no accounts, so it applies to every account; pin again/);
    // The service user itself, and the daemon's own data directory, are never redirected.
    assert.equal(systemPinChoice(stack.home, env, 'latch')?.pin, undefined);
    assert.equal(systemPinChoice('/var/lib/latch', env, 'alice')?.pin, undefined);
    // Re-pinning converts it: the old entry for the same user is replaced by one with accounts.
    writeSystemPin(env, { key_id: 'l'.repeat(43), url: 'http://127.0.0.1:9', data_dir: '/var/lib/latch', user: 'latch', accounts: ['alice'] });
    assert.deepEqual(readSystemPins(env)?.daemons.map((pin) => pin.accounts), [['alice']]);
    assert.equal(systemPinChoice(stack.home, env, 'bob')?.pin, undefined);
  });
});

test('merging pins: one entry per service user, an account moves to the daemon that names it last, --for replaces and the default adds', () => {
  const base = { url: 'http://127.0.0.1:7723', data_dir: '/var/lib/latch' };
  const first = mergeSystemPin(undefined, { ...base, key_id: 'a'.repeat(43), user: 'latch', accounts: ['alice'] }, true);
  const second = mergeSystemPin(first, { ...base, key_id: 'b'.repeat(43), data_dir: '/var/lib/latch2', user: 'latch2', accounts: ['bob', 'alice'] }, true);
  assert.deepEqual(second.daemons.map((pin) => [pin.user, pin.accounts]), [['latch', []], ['latch2', ['alice', 'bob']]]);
  const added = mergeSystemPin(second, { ...base, key_id: 'a'.repeat(43), user: 'latch', accounts: ['carol'] }, true);
  assert.deepEqual(added.daemons.map((pin) => [pin.user, pin.accounts]), [['latch2', ['alice', 'bob']], ['latch', ['carol']]]);
  const replaced = mergeSystemPin(added, { ...base, key_id: 'a'.repeat(43), user: 'latch', accounts: ['dave'] }, false);
  assert.deepEqual(replaced.daemons.find((pin) => pin.user === 'latch')?.accounts, ['dave']);
  // The text round-trips; malformed accounts, duplicate users and unknown versions are not pins.
  assert.deepEqual(parseSystemPins(JSON.stringify({ v: 2, daemons: replaced.daemons })), replaced);
  assert.equal(parseSystemPins(JSON.stringify({ v: 2, daemons: [{ ...base, key_id: 'a'.repeat(43), user: 'latch', accounts: ['Bad Name'] }] })), undefined);
  assert.equal(parseSystemPins(JSON.stringify({ v: 2, daemons: [{ ...base, key_id: 'a'.repeat(43), user: 'latch' }, { ...base, key_id: 'b'.repeat(43), user: 'latch' }] })), undefined);
  assert.equal(parseSystemPins(JSON.stringify({ v: 3, daemons: [] })), undefined);
});

test("a pin in a directory the user owns is not root's pin (the hole an agent as the owner used)", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'latch-l36-userpin-'));
  try {
    const file = path.join(dir, 'daemon.json');
    writeFileSync(file, JSON.stringify({ v: 1, key_id: 'k'.repeat(43), data_dir: '/var/lib/latch', user: 'latch' }));
    if (isRoot) {
      chownSync(dir, OTHER_UID, OTHER_UID);
      chownSync(file, OTHER_UID, OTHER_UID);
    }
    assert.throws(() => readSystemPins({ [SYSTEM_PIN_ENV]: file }), SystemPinError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
