import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { DaemonUrlError, daemonOrigin, resolveDaemonUrl } from '../../src/client/base-url.js';
import { LatchClientError } from '../../src/client/client-errors.js';
import { RESPONSE_BYTES_MAX } from '../../src/client/http-transport.js';
import { LatchClient } from '../../src/client/latch-client.js';
import { ensureHome } from '../../src/datadir/home.js';
import { ensureToken, readToken, rotateToken, tokenPath } from '../../src/datadir/token.js';
import { errorBody, startStubDaemon, type StubDaemon } from './stub-daemon.js';

let stub: StubDaemon;
let client: LatchClient;
let root: string;
let home: string;

beforeEach(async () => {
  stub = await startStubDaemon();
  root = mkdtempSync(path.join(os.tmpdir(), 'latch-client-'));
  home = path.join(root, 'home');
  ensureHome(home);
  ensureToken(home);
  stub.proofToken = () => readToken(home);
  client = new LatchClient({ home, baseUrl: stub.url, env: {} });
});
afterEach(async () => {
  client.close();
  await stub.close();
  rmSync(root, { recursive: true, force: true });
});

/** rejection awaits a call that must fail and returns its LatchClientError. */
async function rejection(call: Promise<unknown>): Promise<LatchClientError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof LatchClientError, `expected a LatchClientError, got ${String(error)}`);
    return error;
  }
  assert.fail('the call succeeded');
}

const bearerOf = (index: number): string | undefined => stub.seen[index]?.headers['authorization'];
const AUTHORIZATION = { policy_id: 'pw_abc', amount: '12.50' };

describe('retry once after a bearer refusal (docs/decisions.md §10)', () => {
  const calls: Array<[string, (c: LatchClient) => Promise<unknown>]> = [
    ['POST /authorize', (c) => c.authorize({ card_id: 'card_a', amount: '12.50', merchant_name: 'shop.example.com' })],
    ['GET /cards', (c) => c.cards()],
    ['POST /v1 proxy', (c) => c.proxy('POST', '/v1/authorizations/pw_a/revoke', { jws: 'x.y.z' })],
  ];
  for (const code of ['missing_bearer_token', 'invalid_bearer_token']) {
    for (const [name, call] of calls) {
      test(`${name}: ${code} → re-read the token file, send the identical request exactly once more`, async () => {
        client.close();
        client = new LatchClient({ home, baseUrl: stub.url, env: {} });
        await client.health().catch(() => undefined);
        stub.seen.length = 0;
        // The first call reads the file; then the token rotates, and the daemon refuses the old one.
        stub.script.push({ status: 200, body: { cards: [] } });
        await client.cards();
        const rotated = rotateToken(home);
        stub.seen.length = 0;
        stub.script.push({ status: 401, body: errorBody(code) }, { status: 200, body: { ...AUTHORIZATION, cards: [], status: 'ok' } });
        await call(client);
        assert.equal(stub.seen.length, 2);
        const [first, second] = stub.seen as [typeof stub.seen[0], typeof stub.seen[0]];
        assert.notEqual(bearerOf(0), `Bearer ${rotated}`);
        assert.equal(bearerOf(1), `Bearer ${rotated}`);
        assert.equal(second.method, first.method);
        assert.equal(second.url, first.url);
        assert.equal(second.body, first.body, 'same body: nothing widened');
        assert.equal(second.headers['idempotency-key'], first.headers['idempotency-key'], 'same Idempotency-Key');
      });
    }
  }

  test('a second refusal is the error: no third attempt', async () => {
    stub.script.push({ status: 401, body: errorBody('invalid_bearer_token') }, { status: 401, body: errorBody('invalid_bearer_token') });
    const error = await rejection(client.cards());
    assert.equal(stub.seen.length, 2);
    assert.equal(error.code, 'invalid_bearer_token');
    assert.equal(error.status, 401);
    assert.match(error.remedy, /data directory/);
  });

  test('a missing token file: sent without a token, then the file (now written) is read and the request repeated', async () => {
    const token = rotateToken(home);
    rmSync(tokenPath(home));
    client.close();
    client = new LatchClient({ home, baseUrl: stub.url, env: {} });
    stub.script.push(() => {
      // A daemon that is starting creates the token file just now.
      ensureToken(home);
      return { status: 401, body: errorBody('missing_bearer_token') };
    });
    stub.script.push({ status: 200, body: { cards: [] } });
    await client.cards();
    assert.equal(stub.seen.length, 2);
    assert.equal(bearerOf(0), undefined);
    assert.notEqual(bearerOf(1), undefined);
    assert.notEqual(bearerOf(1), `Bearer ${token}`);
  });

  test('a token file still missing at the re-read is token_unreadable after one request', async () => {
    rmSync(tokenPath(home));
    client.close();
    client = new LatchClient({ home, baseUrl: stub.url, env: {} });
    stub.script.push({ status: 401, body: errorBody('missing_bearer_token') });
    const error = await rejection(client.wallet());
    assert.equal(error.code, 'token_unreadable');
    assert.equal(error.status, null);
    assert.equal(stub.seen.length, 1);
  });

  const notRetried: Array<[number, string]> = [
    [401, 'local_key_not_recognized'],
    [401, 'invalid_signature'],
    [402, 'insufficient_funds'],
    [403, 'scope_mismatch'],
    [404, 'card_not_found'],
    [409, 'idempotency_key_in_use'],
    [502, 'upstream_unavailable'],
    [503, 'upstream_unavailable'],
    [500, 'internal_error'],
  ];
  for (const [status, code] of notRetried) {
    test(`${status} ${code} is not retried, and the error keeps the code, status and Idempotency-Key`, async () => {
      stub.script.push({ status, body: errorBody(code, 'the daemon says no') });
      const error = await rejection(client.authorize({ card_id: 'card_a', amount: '5.00', merchant_name: 'shop.example.com' }));
      assert.equal(stub.seen.length, 1);
      assert.equal(error.code, code);
      assert.equal(error.status, status);
      assert.equal(error.message, 'the daemon says no');
      assert.equal(error.idempotencyKey, stub.seen[0]?.headers['idempotency-key']);
      assert.ok(error.remedy.length > 0);
    });
  }

  test('a 401 without the common error body is not retried', async () => {
    stub.script.push({ status: 401, body: 'nope', raw: true });
    const error = await rejection(client.cards());
    assert.equal(error.code, 'invalid_response');
    assert.equal(stub.seen.length, 1);
  });
});

describe('the token file', () => {
  test('an unsafe token file is refused before anything is sent, and its value appears nowhere', async () => {
    const token = rotateToken(home);
    chmodSync(tokenPath(home), 0o644);
    const error = await rejection(client.cards());
    assert.equal(error.code, 'token_unreadable');
    assert.equal(stub.seen.length, 0);
    assert.match(error.remedy, /chmod 600/);
    assert.ok(!JSON.stringify(error.toJSON()).includes(token));
    assert.ok(!error.message.includes(token));
  });

  test('GET /health never carries the token', async () => {
    stub.script.push({ status: 200, body: { status: 'ok', version: '0.1.0', uptime_seconds: 1, signing_key: null } });
    await client.health();
    assert.equal(bearerOf(0), undefined);
  });
});

describe('transport failures', () => {
  test('nothing listening is daemon_unreachable', async () => {
    await stub.close();
    const error = await rejection(client.health());
    assert.equal(error.code, 'daemon_unreachable');
    assert.equal(error.status, null);
    assert.equal(error.specClass, 'Local daemon unavailable');
  });

  test('a write whose connection drops is daemon_no_answer with its Idempotency-Key, never retried', async () => {
    stub.script.push({ hangUp: true });
    const error = await rejection(client.allocate({ card_id: 'card_a', amount: '1.00' }, { idempotencyKey: 'retry-me-1' }));
    assert.equal(error.code, 'daemon_no_answer');
    assert.equal(error.idempotencyKey, 'retry-me-1');
    assert.match(error.remedy, /may have taken effect/);
    assert.equal(stub.seen.length, 1);
  });

  test('a read whose connection drops says the read may be repeated', async () => {
    stub.script.push({ hangUp: true });
    const error = await rejection(client.wallet());
    assert.equal(error.code, 'daemon_no_answer');
    assert.match(error.remedy, /repeat the read/);
  });

  test('no answer within the deadline is daemon_no_answer', async () => {
    client.close();
    client = new LatchClient({ home, baseUrl: stub.url, env: {}, timeoutMs: 200 });
    stub.script.push({ silent: true });
    const error = await rejection(client.cards());
    assert.equal(error.code, 'daemon_no_answer');
  });

  const answers: Array<[string, { status: number; body: unknown; raw?: boolean }]> = [
    ['not JSON', { status: 200, body: '<html>', raw: true }],
    ['a JSON array', { status: 200, body: [] }],
    ['an object without the fields', { status: 200, body: { other: 1 } }],
    ['an error status without an error body', { status: 404, body: { message: 'no' } }],
    ['an error code of the wrong shape', { status: 400, body: { error: { code: 'Not A Code', message: 'x' } } }],
    ['more than the answer limit', { status: 200, body: 'x'.repeat(RESPONSE_BYTES_MAX + 10), raw: true }],
  ];
  for (const [name, answer] of answers) {
    test(`${name} is invalid_response`, async () => {
      stub.script.push(answer);
      const error = await rejection(client.cards());
      assert.equal(error.code, 'invalid_response');
    });
  }
});

describe('requests', () => {
  test('amounts go exactly as given; defaults are left to the daemon', async () => {
    stub.script.push({ status: 200, body: AUTHORIZATION });
    await client.authorize({ card_id: 'card_a', amount: '12.50', merchant_name: 'shop.example.com' });
    assert.deepEqual(JSON.parse(stub.seen[0]?.body ?? ''), { card_id: 'card_a', amount: '12.50', merchant_name: 'shop.example.com' });
    assert.equal(stub.seen[0]?.headers['content-type'], 'application/json');
  });

  test('every write carries an Idempotency-Key: the caller\'s, or a fresh one per call', async () => {
    stub.script.push({ status: 200, body: AUTHORIZATION }, { status: 200, body: AUTHORIZATION }, { status: 200, body: AUTHORIZATION });
    const input = { card_id: 'card_a', amount: '1.00', merchant_name: 'shop.example.com' };
    await client.authorize(input);
    await client.authorize(input);
    await client.authorize(input, { idempotencyKey: 'my-key' });
    const keys = stub.seen.map((seen) => seen.headers['idempotency-key']);
    assert.ok(typeof keys[0] === 'string' && keys[0].startsWith('idem_'));
    assert.notEqual(keys[0], keys[1]);
    assert.equal(keys[2], 'my-key');
  });

  test('reads carry no Idempotency-Key', async () => {
    stub.script.push({ status: 200, body: { cards: [] } });
    await client.cards();
    assert.equal(stub.seen[0]?.headers['idempotency-key'], undefined);
  });

  test('path ids are encoded, so an id cannot reach another endpoint', async () => {
    stub.script.push({ status: 200, body: { card_id: 'x', balance: '1.00' } }, { status: 200, body: { id: 'x', amount: '1.00' } });
    await client.card('../health');
    await client.transaction('tx_a?limit=1');
    assert.equal(stub.seen[0]?.url, '/cards/..%2Fhealth');
    assert.equal(stub.seen[1]?.url, '/transactions/tx_a%3Flimit%3D1');
  });

  test('transactions builds its query from the given filters only', async () => {
    stub.script.push({ status: 200, body: { transactions: [], has_more: false } }, { status: 200, body: { transactions: [], has_more: false } });
    await client.transactions();
    await client.transactions({ limit: 5, card_id: 'card_a', status: 'settled' });
    assert.equal(stub.seen[0]?.url, '/transactions');
    assert.equal(stub.seen[1]?.url, '/transactions?limit=5&card_id=card_a&status=settled');
  });

  for (const [method, path] of [['GET', 'v1/wallet'], ['GET', '/v2/wallet'], ['GET', '/v1/wallet x'], ['GET', '/v1/wallet#x'], ['GET', '/v1/\nx'], ['G ET', '/v1/wallet']] as const) {
    test(`proxy refuses ${JSON.stringify(method)} ${JSON.stringify(path)} without sending`, async () => {
      const error = await rejection(client.proxy(method, path));
      assert.equal(error.code, 'invalid_request');
      assert.equal(stub.seen.length, 0);
    });
  }

  test('proxy returns the cloud\'s status and body', async () => {
    stub.script.push({ status: 201, body: { policy_id: 'pw_a' } });
    const answer = await client.proxy('post', '/v1/policy-windows', { jws: 'a.b.c' });
    assert.deepEqual(answer, { status: 201, body: { policy_id: 'pw_a' } });
    assert.equal(stub.seen[0]?.method, 'POST');
    assert.ok(stub.seen[0]?.headers['idempotency-key']);
  });
});

describe('the daemon URL', () => {
  const accepted: Array<[string, string]> = [
    ['http://127.0.0.1:7723', 'http://127.0.0.1:7723'],
    // localhost is mapped to the literal the daemon listens on; the name could resolve to ::1 first.
    ['http://localhost:9', 'http://127.0.0.1:9'],
    ['http://LOCALHOST:9/', 'http://127.0.0.1:9'],
    ['http://localhost', 'http://127.0.0.1'],
    ['http://[::1]:7723/', 'http://[::1]:7723'],
    ['http://127.0.0.1', 'http://127.0.0.1'],
  ];
  for (const [text, origin] of accepted) test(`accepts ${text}`, () => assert.equal(daemonOrigin(text), origin));
  const refused = [
    'https://127.0.0.1:7723',
    'http://example.com:7723',
    'http://10.0.0.1:7723',
    'http://127.0.0.1:7723/api',
    'http://127.0.0.1:7723/?x=1',
    'http://user:pw@127.0.0.1:7723',
    'http://127.0.0.1.evil.com',
    'http://127.0.0.2:7723',
    'file:///tmp/sock',
    '127.0.0.1:7723',
    '',
  ];
  for (const text of refused) test(`refuses ${JSON.stringify(text)}`, () => assert.equal(daemonOrigin(text), undefined));

  test('the option wins over LATCH_URL, which wins over the default', () => {
    assert.equal(resolveDaemonUrl(undefined, {}), 'http://127.0.0.1:7723');
    assert.equal(resolveDaemonUrl(undefined, { LATCH_URL: 'http://localhost:1' }), 'http://127.0.0.1:1');
    assert.equal(resolveDaemonUrl('http://127.0.0.1:2', { LATCH_URL: 'http://localhost:1' }), 'http://127.0.0.1:2');
  });

  test('an unusable LATCH_URL is an error naming it, not a silent default', () => {
    assert.throws(() => new LatchClient({ home, env: { LATCH_URL: 'http://example.com' } }), (error: unknown) => error instanceof DaemonUrlError && /LATCH_URL/.test(error.message));
  });
});
