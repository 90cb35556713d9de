/**
 * kill -9 in the data directory's busiest moments: the daemon (a child process, signing and
 * forwarding all the while) is killed together with a child looping `latch token rotate` and a
 * child looping `latch setup --reconnect` (a new device key and config.json each time), at a
 * seeded moment, five times. After each kill every file is an old or a new version — it parses
 * and is valid — the modes are 0600 in a 0700 directory, and the daemon starts again and signs.
 * The key and config.json are separate files, and the audit log is shared with the CLI; what
 * the kills did to those pairs is recorded and checked in the tests after the first.
 */
import assert from 'node:assert/strict';
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/datadir/config.js';
import { loadDeviceKey } from '../../src/signer/device-key.js';
import { keyNamedByConfig } from '../../src/signer/key-rollover.js';
import { readToken } from '../../src/datadir/token.js';
import { verifyAudit } from '../../src/verify/audit-verify.js';
import { startStack, type Stack } from '../support/stack.js';
import { killAll, killHard, startChild, startDaemonChild, waitForLine } from './child-process.js';
import { fuzzSeed, SeededRandom } from './seeded-random.js';
import { sleep } from './wire.js';

const ROUNDS = 5;
const STARTUP_MS = 30_000;

let stack: Stack;
before(async () => {
  stack = await startStack();
  // The crash rounds run their own daemon as a child process on the same data directory.
  await stack.daemon.close({ deadlineMs: 1_000 });
});
after(async () => {
  await killAll();
  await stack.close();
});

/** What each crash left behind, for the tests after the first. */
interface Aftermath {
  round: number;
  keyMatchesConfig: boolean;
  audit: ReturnType<typeof verifyAudit>;
  refusedSignatures: string[];
}
const aftermaths: Aftermath[] = [];

/** signStream keeps the daemon signing (local windows and cloud authorizations) until stopped or it dies. */
function signStream(portA: number): { stop: () => Promise<string[]> } {
  let stopped = false;
  const refusals: string[] = [];
  const done = (async () => {
    for (let i = 0; !stopped; i++) {
      const body = i % 2 === 0 ? { amount: 1, merchant_name: 'crash.example' } : { card_id: stack.cards[0].card_id, amount: 0.01, merchant_name: `crash-${i}.example`, ttl_minutes: 1 };
      try {
        const response = await fetch(`http://127.0.0.1:${portA}${i % 2 === 0 ? '/sign-policy-window' : '/authorize'}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${readToken(stack.home)}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        // A token rotated between reading it and sending, or a key replaced under way, is expected here.
        if (response.status >= 400 && response.status !== 401) refusals.push(`${response.status} ${text.slice(0, 200)}`);
      } catch {
        return;
      }
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await done;
      return refusals;
    },
  };
}

/** assertFilesIntact checks each file on its own: present, parseable, valid, private. */
function assertFilesIntact(round: number): void {
  const home = stack.home;
  assert.equal(lstatSync(home).mode & 0o777, 0o700, `round ${round}: the directory is 0700`);
  for (const name of readdirSync(home)) {
    const stats = lstatSync(path.join(home, name));
    assert.ok(stats.isFile(), `round ${round}: ${name} is a regular file`);
    assert.equal(stats.mode & 0o777, 0o600, `round ${round}: ${name} is 0600`);
  }
  assert.match(readToken(home), /^[A-Za-z0-9_-]{43}$/, `round ${round}: daemon_token`);
  assert.ok(loadDeviceKey(home) !== undefined, `round ${round}: device.key`);
  const config = loadConfig(home);
  assert.ok(config.device_id !== undefined && config.key_id !== undefined && config.cloud_url !== undefined, `round ${round}: config.json`);
}

test(`kill -9 of the daemon, a token rotation loop and a reconnect loop, ${ROUNDS} times: every file is whole, private and usable`, async () => {
  const random = new SeededRandom(fuzzSeed() ^ 0xc4a5);
  const writerEnv = { LATCH_HOME: stack.home, LATCH_CLOUD_URL: stack.sandbox.url, CRASH_ADMIN_KEY: stack.sandbox.adminKey, CRASH_ACCOUNT_ID: stack.accountId };
  for (let round = 1; round <= ROUNDS; round++) {
    const daemon = await startDaemonChild(stack.home);
    const stream = signStream(daemon.portA);
    const rotate = startChild('test/adversarial/crash-writer.ts', ['rotate'], writerEnv);
    const reconnect = startChild('test/adversarial/crash-writer.ts', ['reconnect'], writerEnv);
    // Both loops have completed a write, so the kill lands in the middle of the stream of writes.
    await waitForLine(rotate, (line) => line.startsWith('rotated'), STARTUP_MS);
    await waitForLine(reconnect, (line) => line.startsWith('reconnected'), STARTUP_MS);
    await sleep(random.int(400));
    await Promise.all([killHard(daemon.child), killHard(rotate), killHard(reconnect)]);
    const refusedSignatures = await stream.stop();

    assertFilesIntact(round);
    // The pair in force is the key config.json names (key-rollover.ts): a staged key once
    // config.json names it, device.key otherwise. It must always be a matching pair.
    const config = loadConfig(stack.home);
    const key = keyNamedByConfig(stack.home, undefined, config.key_id);
    aftermaths.push({ round, keyMatchesConfig: key?.keyId === config.key_id, audit: verifyAudit(stack.home), refusedSignatures });
  }

  // The daemon starts on what the last kill left and signs with the key on disk.
  const daemon = await startDaemonChild(stack.home);
  const token = readToken(stack.home);
  const health = (await (await fetch(`http://127.0.0.1:${daemon.portA}/health`)).json()) as { signing_key: { key_id: string } };
  assert.equal(health.signing_key.key_id, loadDeviceKey(stack.home)?.keyId);
  const signed = await fetch(`http://127.0.0.1:${daemon.portA}/sign-policy-window`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 1, merchant_name: 'after.example' }),
  });
  assert.equal(signed.status, 200, await signed.text());
  await killHard(daemon.child);
});

test('config.json always names the key in force: after every kill, and for the running daemon meanwhile', () => {
  assert.equal(aftermaths.length, ROUNDS);
  assert.deepEqual(aftermaths.filter((a) => !a.keyMatchesConfig).map((a) => a.round), [], 'rounds whose kill left key and config apart');
  for (const aftermath of aftermaths) assert.deepEqual(aftermath.refusedSignatures, [], `round ${aftermath.round}: signing was refused`);
});

test('after every kill, the audit chain verifies: the daemon and latch setup never fork it', () => {
  assert.equal(aftermaths.length, ROUNDS);
  for (const aftermath of aftermaths) assert.ok(aftermath.audit.ok, `round ${aftermath.round}: ${JSON.stringify(aftermath.audit.problem)}`);
});
