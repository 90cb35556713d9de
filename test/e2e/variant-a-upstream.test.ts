/**
 * "Upstream API unavailable" on Variant A (docs/decisions.md §7 rule 2, §7, §9, §13): the cloud down
 * → 502, too slow → 504, 5xx and off-shape answers → upstream_unavailable, safe retries only,
 * while /health and the local signing primitives keep working.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDaemon } from '../../src/daemon/create-daemon.js';
import { assertError } from '../support/e2e-assert.js';
import { startExtraDaemon, type ExtraDaemon } from '../support/extra-daemon.js';
import { hang, jsonAnswer, startRecordingServer, type RecordingServer } from '../support/recording-server.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let cloud: RecordingServer;
let daemon: ExtraDaemon;
/** The same, with a short deadline for the timeout cases only (retries need the normal one). */
let hurried: ExtraDaemon;
before(async () => {
  stack = await startStack();
  cloud = await startRecordingServer();
  // The stack's enrolled home, pointed at a stand-in cloud.
  daemon = await startExtraDaemon(stack.home, { LATCH_CLOUD_URL: cloud.url });
  hurried = await startExtraDaemon(stack.home, { LATCH_CLOUD_URL: cloud.url, LATCH_UPSTREAM_TIMEOUT_MS: '300' });
});
after(async () => {
  await hurried.close();
  await daemon.close();
  await cloud.close();
  await stack.close();
});

const card = () => stack.cards[0].card_id;
const authorizeBody = () => ({ card_id: card(), amount: 1, merchant_name: 'shop.example.com' });

describe('a cloud that does not answer in time', () => {
  test('cloud-backed endpoints and the proxy answer 504 upstream_unavailable', async () => {
    cloud.respondWith(hang);
    const cases: Array<[string, string, unknown]> = [
      ['GET', '/cards', undefined],
      ['POST', '/authorize', authorizeBody()],
      ['GET', '/wallet/balance', undefined],
      ['GET', '/v1/wallet', undefined],
      ['POST', '/v1/wallet/allocate', { card_id: card(), amount: '1.00' }],
    ];
    for (const [method, target, body] of cases) assertError(await hurried.a.request(method, target, body), 504, 'upstream_unavailable');
    assert.equal((await hurried.a.get('/health')).status, 200);
  });
});

describe('a cloud answering 5xx or nonsense', () => {
  test('503 on a GET is retried twice, each attempt freshly signed, then 503 upstream_unavailable', async () => {
    cloud.respondWith(jsonAnswer(503, { error: { code: 'upstream_unavailable', message: 'busy' } }));
    const before = cloud.requests.length;
    assertError(await daemon.a.get('/cards'), 503, 'upstream_unavailable');
    const attempts = cloud.requests.slice(before);
    assert.equal(attempts.length, 3);
    assert.equal(new Set(attempts.map((r) => r.headers['signature'])).size, 3, 'every retry is a new signature (new nonce)');
  });

  test('503 on /authorize is retried with the same Idempotency-Key and the same signed window', async () => {
    cloud.respondWith(jsonAnswer(503, { error: { code: 'upstream_unavailable', message: 'busy' } }));
    const before = cloud.requests.length;
    assertError(await daemon.a.post('/authorize', authorizeBody()), 503, 'upstream_unavailable');
    const attempts = cloud.requests.slice(before);
    assert.equal(attempts.length, 3);
    const keys = new Set(attempts.map((r) => r.headers['idempotency-key']));
    assert.equal(keys.size, 1);
    assert.match([...keys][0] as string, /^\S{1,255}$/);
    assert.equal(new Set(attempts.map((r) => r.body.toString('utf8'))).size, 1, 'one window, sent three times');
  });

  test('500 is upstream_unavailable 502 and is not retried', async () => {
    cloud.respondWith(jsonAnswer(500, { error: { code: 'internal_error', message: 'boom' } }));
    const before = cloud.requests.length;
    assertError(await daemon.a.get('/cards'), 502, 'upstream_unavailable');
    assertError(await daemon.a.post('/authorize', authorizeBody()), 502, 'upstream_unavailable');
    assert.equal(cloud.requests.length - before, 2);
  });

  test("the cloud's own error code passes through; an unknown code is upstream_unavailable", async () => {
    cloud.respondWith(jsonAnswer(404, { error: { code: 'card_not_found', message: 'No such card.' } }));
    assertError(await daemon.a.get(`/cards/${card()}`), 404, 'card_not_found');
    cloud.respondWith(jsonAnswer(400, { error: { code: 'made_up_code', message: 'x' } }));
    assertError(await daemon.a.get(`/cards/${card()}`), 502, 'upstream_unavailable');
  });

  test('a 200 of the wrong shape is upstream_unavailable, never a half-read object', async () => {
    const fullCard = { card_id: 'card_x', label: 'L', last4: '1234', status: 'frozen', balance: '1.50', currency: 'USD', daily_limit: '1.00', daily_spent: '0.00' };
    const offShape = [{ cards: [{ card_id: 'card_x' }] }, { cards: 'none' }, [], 'text', { cards: [{ ...fullCard, balance: 1.5 }] }, { cards: [{ ...fullCard, balance: '-1.00' }] }, { cards: [{ ...fullCard, status: 'melted' }] }, { cards: [{ ...fullCard, held: '0.50' }] }, { cards: [{ ...fullCard, held: '0.50', available: '0.50' }] }];
    for (const body of offShape) {
      cloud.respondWith(jsonAnswer(200, body));
      assertError(await daemon.a.get('/cards'), 502, 'upstream_unavailable');
    }
  });
});

describe('the cloud down', () => {
  test('connection refused: 502 upstream_unavailable; health and local signing still work', async () => {
    const down = await startStack();
    try {
      await down.sandbox.close();
      const cardId = down.cards[0].card_id;
      const cases: Array<[string, string, unknown]> = [
        ['GET', '/cards', undefined],
        ['POST', '/authorize', { card_id: cardId, amount: 1, merchant_name: 'shop.example.com' }],
        ['GET', '/transactions', undefined],
        ['GET', '/v1/wallet', undefined],
      ];
      for (const [method, target, body] of cases) assertError(await down.a.request(method, target, body), 502, 'upstream_unavailable');
      assert.equal((await down.a.get('/health')).status, 200);
      const signed = await down.a.post('/sign-card-policy-window', { card_id: cardId, amount: 1, merchant_name: 'shop.example.com' });
      assert.equal(signed.status, 200, signed.text);
    } finally {
      await down.close();
    }
  });
});

describe('LATCH_UPSTREAM_TIMEOUT_MS', () => {
  test('a malformed value stops the daemon from being created', () => {
    for (const value of ['0', '-5', '1.5', 'abc', '120001', '9999999']) {
      assert.throws(() => createDaemon({ home: stack.home, env: { LATCH_UPSTREAM_TIMEOUT_MS: value } }), /LATCH_UPSTREAM_TIMEOUT_MS/, value);
    }
    for (const value of ['1', '300', '120000']) {
      assert.doesNotThrow(() => createDaemon({ home: stack.home, env: { LATCH_UPSTREAM_TIMEOUT_MS: value } }), value);
    }
  });
});
