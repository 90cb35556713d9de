/**
 * Enrollment end to end: `latch setup` against the real sandbox, the
 * "Setup token expired" class, "Local key not recognized" after the cloud forgets the key and
 * its remedy `latch setup --reconnect`, and device_not_enrolled before setup.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.js';
import { loadConfig } from '../../src/datadir/config.js';
import { deviceKeyPath } from '../../src/signer/device-key.js';
import { assertError } from '../support/e2e-assert.js';
import { startExtraDaemon } from '../support/extra-daemon.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

let homes = 0;
/** freshHome is a new, empty data directory path inside the stack's temporary root. */
function freshHome(): string {
  const home = path.join(stack.root, `home-${++homes}`);
  assert.ok(!existsSync(home));
  return home;
}

async function setupToken(fields: Record<string, unknown> = {}): Promise<string> {
  const answer = await stack.admin.post('/v1/sandbox/setup-tokens', fields);
  assert.equal(answer.status, 201, answer.text);
  return answer.body.setup_token;
}

describe('latch setup', () => {
  test('enrolls: device.key, config.json with device_id, key_id and cloud_url; the cloud knows the key', async () => {
    const home = freshHome();
    const result = await runLatch(['setup', '--token', await setupToken(), '--cloud', stack.sandbox.url, '--json'], { LATCH_HOME: home });
    assert.equal(result.code, EXIT.ok, result.stderr);
    const printed = JSON.parse(result.stdout) as Record<string, unknown>;
    const config = loadConfig(home);
    assert.equal(config.cloud_url, stack.sandbox.url);
    assert.equal(config.device_id, printed['device_id']);
    assert.equal(config.key_id, printed['key_id']);
    const device = stack.sandbox.state().devices.get(config.device_id as string);
    assert.equal(device?.key_id, config.key_id);
    assert.ok(existsSync(deviceKeyPath(home)));
    assert.ok(!result.stdout.includes(readFileSync(deviceKeyPath(home), 'utf8').slice(0, 40)));
  });

  test('an expired setup token: "Setup token expired" with its remedy, exit 7, nothing stored', async () => {
    const token = await setupToken({ lifetime_seconds: 1 });
    const moved = await stack.admin.post('/v1/sandbox/clock', { advance_seconds: 2 });
    assert.equal(moved.status, 200, moved.text);
    const home = freshHome();
    const result = await runLatch(['setup', '--token', token, '--cloud', stack.sandbox.url], { LATCH_HOME: home });
    assert.equal(result.code, EXIT.refused);
    assert.match(result.stderr, /Setup token expired \(setup_token_expired\)/);
    assert.match(result.stderr, /What to do: Get a new setup token \(from the sandbox: latch sandbox setup-token; from a real cloud: your cloud account's setup page\) and run latch setup --token <setup_token> again\./);
    assert.ok(!result.stderr.includes(token), 'the setup token is not echoed');
    assert.ok(!existsSync(deviceKeyPath(home)), 'no key is kept for a refused enrollment');
    assert.equal(loadConfig(home).device_id, undefined);
  });

  test('a used setup token is refused; an enrolled home needs --reconnect', async () => {
    const token = await setupToken();
    const home = freshHome();
    assert.equal((await runLatch(['setup', '--token', token, '--cloud', stack.sandbox.url], { LATCH_HOME: home })).code, EXIT.ok);
    const again = await runLatch(['setup', '--token', token, '--cloud', stack.sandbox.url], { LATCH_HOME: freshHome() });
    assert.equal(again.code, EXIT.refused);
    assert.match(again.stderr, /Setup token invalid \(setup_token_invalid\): This setup token was already used to connect a device/);
    assert.match(again.stderr, /What to do: Get a new setup token \(from the sandbox: latch sandbox setup-token/);
    assert.doesNotMatch(again.stderr, /expired|Devices area|dashboard/i);
    const twice = await runLatch(['setup', '--token', await setupToken(), '--cloud', stack.sandbox.url], { LATCH_HOME: home });
    assert.equal(twice.code, EXIT.usage);
    assert.match(twice.stderr, /--reconnect/);
  });

  test('the cloud unreachable: exit 9 (upstream unavailable), nothing stored', async () => {
    const home = freshHome();
    const result = await runLatch(['setup', '--token', 'anything', '--cloud', 'http://127.0.0.1:9'], { LATCH_HOME: home });
    assert.equal(result.code, EXIT.upstreamUnavailable, result.stderr);
    assert.ok(!existsSync(deviceKeyPath(home)));
  });
});

describe('device_not_enrolled', () => {
  test('before setup, cloud-backed endpoints and signing answer 409 device_not_enrolled; health has no key', async () => {
    const home = freshHome();
    mkdirSync(home, { mode: 0o700 });
    const daemon = await startExtraDaemon(home, {});
    try {
      const health = await daemon.a.get('/health');
      assert.equal(health.status, 200);
      assert.equal(health.body.signing_key, null);
      const card = stack.cards[0].card_id;
      const cases: Array<[string, string, unknown]> = [
        ['GET', '/cards', undefined],
        ['GET', `/cards/${card}`, undefined],
        ['POST', '/authorize', { card_id: card, amount: 1, merchant_name: 'shop.example.com' }],
        ['POST', '/merchant-bind', { card_id: card, merchant_name: 'shop.example.com' }],
        ['POST', '/recurring', { card_id: card, amount: 1, merchant_name: 'shop.example.com', interval: 'day' }],
        ['POST', '/sign-card-policy-window', { card_id: card, amount: 1, merchant_name: 'shop.example.com' }],
        ['POST', '/sign-policy-window', { amount: 1, merchant_name: 'shop.example.com' }],
        ['POST', '/sign-revocation', { policy_id: 'pw_abc' }],
        ['GET', '/transactions', undefined],
        ['GET', '/wallet/balance', undefined],
        ['POST', '/wallet/allocate', { card_id: card, amount: 1 }],
        ['GET', '/v1/wallet', undefined],
      ];
      for (const [method, target, body] of cases) assertError(await daemon.a.request(method, target, body), 409, 'device_not_enrolled');
      assert.ok(!existsSync(path.join(home, 'audit.log')), 'nothing was signed');

      // Enrolling while the daemon runs takes effect at the next request, without a restart.
      const enrolled = await runLatch(['setup', '--token', await setupToken({ account_id: stack.accountId }), '--cloud', stack.sandbox.url], { LATCH_HOME: home });
      assert.equal(enrolled.code, EXIT.ok, enrolled.stderr);
      const cards = await daemon.a.get('/cards');
      assert.equal(cards.status, 200, cards.text);
      assert.equal(cards.body.cards.length, 2);
      assert.equal((await daemon.a.get('/health')).body.signing_key.key_id, loadConfig(home).key_id);
    } finally {
      await daemon.close();
    }
  });
});

describe('local_key_not_recognized', () => {
  test('the cloud forgets the key: 401 with the reconnect remedy on every cloud call; --reconnect fixes it', async () => {
    const config = loadConfig(stack.home);
    const removed = await stack.admin.request('DELETE', `/v1/sandbox/devices/${config.device_id}`);
    assert.equal(removed.status, 200, removed.text);
    const card = stack.cards[0].card_id;
    const cases: Array<[string, string, unknown]> = [
      ['GET', '/cards', undefined],
      ['POST', '/authorize', { card_id: card, amount: 1, merchant_name: 'shop.example.com' }],
      ['GET', '/transactions', undefined],
      ['GET', '/wallet/balance', undefined],
      ['GET', '/v1/wallet', undefined],
      // A proxy write (a window the daemon does not hold is refused before the cloud: owner-presence §3).
      ['POST', '/v1/wallet/allocate', { card_id: card, amount: '1.00' }],
    ];
    for (const [method, target, body] of cases) {
      const answer = await stack.a.request(method, target, body);
      assertError(answer, 401, 'local_key_not_recognized');
      assert.match(answer.body.error.message, /latch setup --reconnect/, target);
    }
    // Health is local and stays fine (docs/decisions.md §7 rule 1).
    assert.equal((await stack.a.get('/health')).status, 200);

    // A refused reconnect (expired token) keeps the old key exactly as it was.
    const oldKey = readFileSync(deviceKeyPath(stack.home));
    const expired = await setupToken({ account_id: stack.accountId, lifetime_seconds: 1 });
    assert.equal((await stack.admin.post('/v1/sandbox/clock', { advance_seconds: 2 })).status, 200);
    const refused = await runLatch(['setup', '--reconnect', '--token', expired], { LATCH_HOME: stack.home });
    assert.equal(refused.code, EXIT.refused);
    assert.deepEqual(readFileSync(deviceKeyPath(stack.home)), oldKey);

    const reconnected = await runLatch(['setup', '--reconnect', '--token', await setupToken({ account_id: stack.accountId })], { LATCH_HOME: stack.home });
    assert.equal(reconnected.code, EXIT.ok, reconnected.stderr);
    const fresh = loadConfig(stack.home);
    assert.notEqual(fresh.key_id, config.key_id);
    assert.equal(fresh.cloud_url, stack.sandbox.url);

    // The running daemon picks the new key up at once.
    const cards = await stack.a.get('/cards');
    assert.equal(cards.status, 200, cards.text);
    assert.deepEqual(cards.body.cards.map((c: { card_id: string }) => c.card_id), stack.cards.map((c) => c.card_id));
    const created = await stack.a.post('/authorize', { card_id: card, amount: 1, merchant_name: 'shop.example.com' });
    assert.equal(created.status, 200, created.text);
    assert.equal((await stack.a.get('/health')).body.signing_key.key_id, fresh.key_id);
  });
});
