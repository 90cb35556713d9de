/**
 * Card data the cloud sends is withheld where every cloud answer is read (src/cloud/cloud-card-data.ts,
 * applied in CloudClient; docs/decisions.md §35). What is covered is read from the code: every
 * method of the cloud gateway (a method without a sample fails the first test), every field its
 * reader reads (recorded while it reads, so a sample missing an optional field fails), and every
 * string of each answer, each in turn carrying a card number; then each method's error answer,
 * and the raw answer the /v1 proxy relays.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CloudClient } from '../../src/cloud/cloud-client.js';
import { CLOUD_CARD_DATA_MESSAGE } from '../../src/cloud/cloud-card-data.js';
import { httpCloudGateway } from '../../src/cloud/http-cloud-gateway.js';
import { OWNER } from '../../src/core/principal.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { containsCardNumber } from '../../src/validate/card-number-scan.js';
import { generateSecretKey } from '../support/raw-signing.js';
import { upstreamKeyOf } from '../support/test-signer.js';
import { dataDirEnrollmentStore } from '../../src/signer/key-admin.js';
import { toBase64Url } from '../../src/crypto/base64url.js';

const key = upstreamKeyOf(generateSecretKey());
const call = { key, caller: { requestId: 'req_1', userAgent: 'test', principal: OWNER } };
const PAN_TEXT = '4111 1111 1111 1111 cvv 123';
// The device key signs no enrollment (docs/decisions.md §34.1): a key being enrolled signs its own.
const enrolling = dataDirEnrollmentStore('/nonexistent/latch-home', undefined).newKey();
const enrollCall = { ...call, key: enrolling };
const enrollingJwk = { kty: 'OKP', crv: 'Ed25519', x: toBase64Url(enrolling.publicKey) };

type Json = Record<string, unknown>;
const authorization: Json = {
  policy_id: 'pw_1', card_id: 'card_a', merchant_name: 'shop.example', amount: '12.50', currency: 'USD', authorization_type: 'exact',
  kind: 'recurring', not_before: '2026-11-28T10:00:00Z', expires_at: '2026-11-29T10:00:00Z', status: 'active', created_at: '2026-11-28T10:00:00Z', transaction_id: 'tx_1',
  interval: 'month', interval_count: 1, max_charges: 3, current_period_start: '2026-11-28T10:00:00Z', current_period_end: '2026-12-28T10:00:00Z',
};
const card: Json = { card_id: 'card_a', label: 'Groceries', last4: '1111', status: 'active', balance: '100.00', held: '10.00', available: '90.00', currency: 'USD', daily_limit: '500.00', daily_spent: '0.00' };
const transaction: Json = {
  id: 'tx_1', card_id: 'card_a', amount: '12.50', currency: 'USD', merchant: 'shop.example', status: 'declined', created_at: '2026-11-28T10:00:00Z', policy_id: 'pw_1', decline_code: 'over_limit',
  policy_window: { policy_id: 'pw_1', card_id: 'card_a', merchant: 'shop.example', amount: '12.50', currency: 'USD', authorization_type: 'exact', not_before: '2026-11-28T10:00:00Z', not_after: '2026-11-28T10:30:00Z', key_id: 'k_1', jws: 'aaa.bbb.ccc' },
};

/** One sample answer and one call per gateway method. */
const METHODS: Record<string, { answer: Json; run: (gateway: ReturnType<typeof httpCloudGateway>) => Promise<unknown> }> = {
  registerAuthorization: { answer: authorization, run: (g) => g.registerAuthorization('a.b.c', call) },
  revokeAuthorization: { answer: authorization, run: (g) => g.revokeAuthorization('pw_1', 'a.b.c', call) },
  getAuthorization: { answer: authorization, run: (g) => g.getAuthorization('pw_1', call) },
  listAuthorizations: { answer: { authorizations: [authorization], has_more: false }, run: (g) => g.listAuthorizations({ limit: 10, startingAfter: undefined, cardId: undefined, status: undefined }, call) },
  listCards: { answer: { cards: [card] }, run: (g) => g.listCards(call) },
  getCard: { answer: card, run: (g) => g.getCard('card_a', call) },
  listTransactions: { answer: { transactions: [transaction], has_more: false }, run: (g) => g.listTransactions({ limit: 10, startingAfter: undefined, cardId: undefined, status: undefined }, call) },
  getTransaction: { answer: transaction, run: (g) => g.getTransaction('tx_1', call) },
  wallet: { answer: { usdt: '250.00', allocated: '150.00', available: '100.00' }, run: (g) => g.wallet(call) },
  allocate: { answer: { card_id: 'card_a', allocated: '10.00', new_balance: '110.00' }, run: (g) => g.allocate('card_a', 1000, call) },
  enrollDevice: { answer: { device_id: 'dev_1', key_id: 'k_1', account_id: 'acct_1' }, run: (g) => g.enrollDevice({ setupToken: 'st_1', publicJwk: enrollingJwk, deviceName: 'd' } as never, enrollCall) },
};

/** gatewayAnswering is the real gateway over a real CloudClient whose cloud answers `status` and `body`, with `headers`. */
function gatewayAnswering(status: number, body: string, headers: Record<string, string> = {}) {
  const fetchImpl = (async () => new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } })) as typeof fetch;
  const client = new CloudClient({ cloudUrl: 'https://cloud.example', userAgent: 'test', fetch: fetchImpl, onRequestSigned: () => undefined, assertFetchCanRun: () => undefined });
  return { client, gateway: httpCloudGateway(client) };
}

/** Every path to a string in value, as a list of keys. */
function stringPaths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'string') return [at];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringPaths(item, [...at, index]));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([name, member]) => stringPaths(member, [...at, name]));
  return [];
}

function withAt(value: unknown, path: (string | number)[], replace: (text: string) => string): unknown {
  const copy = structuredClone(value) as Json;
  let node = copy as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  node[last] = replace(node[last] as string);
  return copy;
}

test('every method of the cloud gateway has a sample here', () => {
  const { gateway } = gatewayAnswering(200, '{}');
  assert.deepEqual(Object.keys(METHODS).sort(), Object.keys(gateway).sort());
});

test("each sample holds every field its reader reads (recorded while it reads), so the strings below are all the answer's", async () => {
  const parse = JSON.parse;
  for (const [name, method] of Object.entries(METHODS)) {
    const missing: string[] = [];
    const record = (value: unknown, at: string): unknown => {
      if (value === null || typeof value !== 'object') return value;
      return new Proxy(value as object, {
        get(target, property, receiver) {
          if (typeof property === 'string' && !Array.isArray(target) && !Object.hasOwn(target, property)) missing.push(`${at}.${property}`);
          return record(Reflect.get(target, property, receiver), typeof property === 'string' ? `${at}.${property}` : at);
        },
      });
    };
    JSON.parse = ((text: string) => record(parse(text), 'answer')) as typeof JSON.parse;
    try {
      await method.run(gatewayAnswering(200, JSON.stringify(method.answer)).gateway);
    } finally {
      JSON.parse = parse;
    }
    assert.deepEqual(missing.filter((path) => !/\.(toJSON|then|constructor|length)$/.test(path)), [], `${name}'s sample lacks fields its reader reads`);
  }
});

test('a card number in any string of any answer is withheld: the decoded value names the fixed message and never the number', async () => {
  let cases = 0;
  for (const [name, method] of Object.entries(METHODS)) {
    for (const path of stringPaths(method.answer)) {
      cases++;
      const answer = withAt(method.answer, path, (text) => `${text} ${PAN_TEXT}`);
      const outcome = await method.run(gatewayAnswering(200, JSON.stringify(answer)).gateway).then(
        (value) => JSON.stringify(value),
        (error: unknown) => (error instanceof LatchError ? `${error.code}: ${error.message}` : String(error)),
      );
      assert.ok(!containsCardNumber(outcome), `${name} ${path.join('.')}: ${outcome}`);
      assert.ok(outcome.includes(CLOUD_CARD_DATA_MESSAGE) || outcome.startsWith('upstream_unavailable'), `${name} ${path.join('.')}: the field is withheld or the answer refused: ${outcome}`);
    }
  }
  assert.ok(cases > 60, `only ${cases} strings were tried`);
});

test("the red team's case: a card label carrying a PAN comes back as the fixed message", async () => {
  const read = await gatewayAnswering(200, JSON.stringify({ ...card, label: '4111-1111-1111-1111' })).gateway.getCard('card_a', call);
  assert.equal(read.label, CLOUD_CARD_DATA_MESSAGE);
});

test("a card number in a cloud error's message or param never reaches the error: every method", async () => {
  for (const [name, method] of Object.entries(METHODS)) {
    const body = JSON.stringify({ error: { code: 'invalid_request', message: `card ${PAN_TEXT} refused`, param: '4111111111111111' } });
    await assert.rejects(method.run(gatewayAnswering(400, body).gateway), (error: unknown) => {
      assert.ok(error instanceof LatchError, name);
      assert.equal(error.message, CLOUD_CARD_DATA_MESSAGE, name);
      assert.ok(!containsCardNumber(JSON.stringify({ message: error.message, param: error.param })), name);
      return true;
    });
  }
});

test('the raw answer the /v1 proxy relays: body, card-field members, non-JSON bodies and header values are withheld; a clean answer is relayed byte for byte', async () => {
  const send = (status: number, body: string, headers: Record<string, string> = {}) => gatewayAnswering(status, body, headers).client.send({ method: 'GET', pathAndQuery: '/v1/cards', key });
  const dirty = await send(402, JSON.stringify({ error: { code: 'card_declined', message: PAN_TEXT }, details: [{ cvv: '123' }, 4111111111111111] }), { 'retry-after': PAN_TEXT });
  const text = Buffer.from(dirty.rawBody).toString('utf8');
  assert.ok(!containsCardNumber(text) && !text.includes('"123"'), text);
  assert.deepEqual(JSON.parse(text), { error: { code: 'card_declined', message: CLOUD_CARD_DATA_MESSAGE }, details: [{ cvv: CLOUD_CARD_DATA_MESSAGE }, CLOUD_CARD_DATA_MESSAGE] });
  assert.equal(dirty.headers.get('retry-after'), CLOUD_CARD_DATA_MESSAGE);
  const html = await send(502, `<html>${PAN_TEXT}</html>`);
  assert.equal(Buffer.from(html.rawBody).toString('utf8'), CLOUD_CARD_DATA_MESSAGE);
  const clean = '{ "cards" : [ ], "note": "1.50" }';
  assert.equal(Buffer.from((await send(200, clean)).rawBody).toString('utf8'), clean);
});

test('an answer nested far deeper than any call stack is guarded without overflowing it, and still holds no number', async () => {
  const depth = 200_000;
  const body = `${'['.repeat(depth)}"${PAN_TEXT}"${']'.repeat(depth)}`;
  const answer = await gatewayAnswering(200, body).client.send({ method: 'GET', pathAndQuery: '/v1/cards', key });
  assert.equal(answer.status, 200);
  assert.ok(!containsCardNumber(Buffer.from(answer.rawBody).toString('utf8')));
});
