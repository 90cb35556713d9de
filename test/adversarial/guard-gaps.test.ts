/**
 * Attacks a red team found against the landed daemon, each on the real daemon and the real
 * sandbox: a card number that only appears after IDNA normalization, a card number written as a
 * JSON number with a large exponent, separators and field names the guard did not know, query
 * names hidden by `;` or double percent-encoding, HTTP/1.0 with chunked framing, and unknown
 * field names echoed into error messages. Every attack is refused; nothing is signed, forwarded
 * or journaled; the legitimate controls still pass.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startStack, type HttpAnswer, type Stack } from '../support/stack.js';
import { exchange } from './wire.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

const card = (): string => stack.cards[0].card_id;

function assertCardData(answer: HttpAnswer, what: string): void {
  assert.equal(answer.status, 400, `${what}: ${answer.text}`);
  assert.equal(answer.body?.error?.code, 'card_data_not_accepted', `${what}: ${answer.text}`);
  assert.equal(answer.body.error.param, undefined, `${what}: the error names no field`);
}

function auditText(): string {
  try {
    return readFileSync(path.join(stack.home, 'audit.log'), 'utf8');
  } catch {
    return '';
  }
}

/** The IDNA A-label of the attack below: the card number appears only after normalization. */
const IDNA_MERCHANT = '4111é1111é1111é1111.com';
const IDNA_DIGITS = '4111111111111111';

describe('a card number made by normalization', () => {
  test('a merchant whose IDNA form holds a card number is refused on A and B; nothing is signed, journaled or listed', async () => {
    const answers: Array<[string, HttpAnswer]> = [
      ['A /authorize', await stack.a.post('/authorize', { card_id: card(), amount: 1, merchant_name: IDNA_MERCHANT })],
      ['A /sign-card-policy-window', await stack.a.post('/sign-card-policy-window', { card_id: card(), amount: 1, merchant_name: IDNA_MERCHANT })],
      ['A /sign-policy-window', await stack.a.post('/sign-policy-window', { amount: 1, merchant_name: IDNA_MERCHANT })],
      ['B /authorize', await stack.b.post('/authorize', { card_id: card(), amount: 1, merchant: IDNA_MERCHANT })],
    ];
    for (const [what, answer] of answers) assertCardData(answer, what);
    const journal = readFileSync(stack.sandbox.journalPath).toString('latin1');
    for (const [where, text] of [['audit.log', auditText()], ['daemon log', stack.logs()], ['sandbox journal', journal]] as const) {
      assert.ok(!text.includes(IDNA_DIGITS), `the number is in the ${where}`);
      assert.ok(!text.includes('xn--4111'), `the A-label is in the ${where}`);
    }
    const listed = await stack.a.get('/transactions');
    assert.ok(!listed.text.includes('xn--4111'), 'nothing was listed');
  });
});

/** Card numbers written as JSON numbers whose exact value is the card number. */
const EXACT_NUMBERS: ReadonlyArray<[string, string]> = [
  ['65 zeros and e-65', `${IDNA_DIGITS}${'0'.repeat(65)}e-65`],
  ['300 zeros and e-300', `${IDNA_DIGITS}${'0'.repeat(300)}E-300`],
  ['a fraction shifted by e+80', `0.${'0'.repeat(64)}${IDNA_DIGITS}e+80`],
  ['trailing fraction zeros and e+70', `0.${'0'.repeat(54)}${IDNA_DIGITS}${'0'.repeat(20)}e70`],
];

describe('large-exponent JSON numbers', () => {
  for (const [form, number] of EXACT_NUMBERS) {
    test(`a card number as a JSON number (${form}) is refused on A, B and /v1`, async () => {
      const a = `{"card_id":"${card()}","amount":${number},"merchant_name":"shop.example"}`;
      const b = `{"card_id":"${card()}","amount":${number},"merchant":"shop.example"}`;
      assertCardData(await stack.a.post('/authorize', a), 'A /authorize');
      assertCardData(await stack.b.post('/authorize', b), 'B /authorize');
      assertCardData(await stack.a.post('/v1/wallet/allocate', `{"card_id":"${card()}","amount":${number}}`), '/v1 proxy');
    });
  }

  test('absurd numbers are refused with invalid_request before any work: an exponent beyond 400, a number text over 400 characters', async () => {
    for (const number of ['1e401', '1E-401', '4e999999999', `1${'0'.repeat(400)}`, `0.${'1'.repeat(400)}`]) {
      const answer = await stack.a.post('/authorize', `{"card_id":"${card()}","amount":${number},"merchant_name":"shop.example"}`);
      assert.equal(answer.status, 400, number.slice(0, 20));
      assert.equal(answer.body?.error?.code, 'invalid_request', answer.text);
      assert.equal(answer.body.error.param, 'body');
    }
  });
});

/** Written card numbers the guard missed, each sent as a free-text field and as a query value. */
const SEPARATED: ReadonlyArray<[string, string]> = [
  ['two spaces', '4111  1111  1111  1111'],
  ['space, dash, space', '4111 - 1111 - 1111 - 1111'],
  ['tabs', '4111\t1111\t1111\t1111'],
  ['newlines', '4111\n1111\n1111\n1111'],
  ['dots', '4111.1111.1111.1111'],
  ['underscores', '4111_1111_1111_1111'],
  ['slashes', '4111/1111/1111/1111'],
  ['commas', '4111,1111,1111,1111'],
  ['Hangul filler U+3164', '4111\u31641111\u31641111\u31641111'],
  ['braille blank U+2800', '4111\u28001111\u28001111\u28001111'],
  ['ideographic space U+3000', '4111\u30001111\u30001111\u30001111'],
  ['line separator U+2028', '4111\u20281111\u20281111\u20281111'],
  ['word joiner and space', '4111 \u2060 1111 \u2060 1111 \u2060 1111'],
  ['middle dot', '4111\u00b71111\u00b71111\u00b71111'],
];

/** Field names the guard did not know, and look-alikes spelled with Cyrillic or Greek letters. */
const CARD_FIELD_NAMES = [
  'cardNo', 'card_no', 'cv2', 'panNumber', 'pin_code', 'valid_thru', 'card-exp',
  '\u0441vv', 'cv\u0441', 'card_numb\u0435r', '\u0441ard_n\u043e', '\u03c1an', 'p\u0430n', 'CVV\u2082',
];

describe('guard gaps: separators, field names, query names', () => {
  for (const [form, text] of SEPARATED) {
    test(`a card number with ${form} between groups is refused in a body string and in the query`, async () => {
      assertCardData(await stack.a.post('/sign-revocation', { policy_id: 'pw_abc', reason: text }), 'A reason');
      assertCardData(await stack.b.post('/wallet/allocate', { card_id: card(), amount: 1, notes: [text] }), 'B notes');
      assertCardData(await stack.a.get(`/transactions?starting_after=${encodeURIComponent(text)}`), 'A query');
      assertCardData(await stack.a.get(`/v1/transactions?note=${encodeURIComponent(text)}`), '/v1 query');
    });
  }

  for (const name of CARD_FIELD_NAMES) {
    test(`a field named ${JSON.stringify(name)} is refused in a body, nested, and in the query`, async () => {
      assertCardData(await stack.a.post('/authorize', { card_id: card(), amount: 1, merchant_name: 'shop.example', [name]: 'x' }), 'A body');
      assertCardData(await stack.a.post('/v1/wallet/allocate', { card_id: card(), amount: '1.00', meta: { [name]: 1 } }), '/v1 nested');
      assertCardData(await stack.a.get(`/transactions?${encodeURIComponent(name)}=1`), 'A query');
    });
  }

  const QUERIES = ['limit=5;cvv=123', 'c%2576v=1', 'c%252576v=1', 'limit=5;card%255Fno=1', 'x=1&%2563%2576%2576=1'];
  for (const query of QUERIES) {
    test(`a card field hidden in the query as ${JSON.stringify(query)} is refused on A, B and /v1`, async () => {
      assertCardData(await stack.a.get(`/transactions?${query}`), 'A');
      assertCardData(await stack.b.get(`/transactions?${query}`), 'B');
      assertCardData(await stack.a.get(`/v1/transactions?${query}`), '/v1');
    });
  }

  test('control: ordinary values with dots, commas, slashes, dates and amounts are served', async () => {
    const reasons = ['refund 12.50 on 2026-11-21T05:33:00.123Z', 'order 1,234 of 5,678', 'v1.2.3 build 20261121', 'see 10/12/2026, ref A-17'];
    for (const reason of reasons) {
      const revoke = await stack.a.post('/sign-revocation', { policy_id: 'pw_abc', reason });
      assert.notEqual(revoke.body?.error?.code, 'card_data_not_accepted', `${reason}: ${revoke.text}`);
    }
    const authorized = await stack.a.post('/authorize', { card_id: card(), amount: '12.50', merchant_name: 'shop-2026.example' });
    assert.equal(authorized.status, 200, authorized.text);
    assert.equal((await stack.a.get('/transactions?limit=5')).status, 200);
  });
});

describe('HTTP/1.0 with Transfer-Encoding', () => {
  test('HTTP/1.0 with Transfer-Encoding: chunked → 400 and the connection closes; nothing allocated', async () => {
    const before = (await stack.a.get('/wallet/balance')).body.allocated as string;
    const body = JSON.stringify({ card_id: card(), amount: '1.00' });
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const request =
      `POST /wallet/allocate HTTP/1.0\r\nHost: 127.0.0.1:${stack.portA}\r\nAuthorization: Bearer ${stack.token()}\r\n` +
      `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n${chunked}`;
    const answer = await exchange(stack.portA, request);
    assert.deepEqual(answer.statuses, [400], answer.text);
    assert.deepEqual(answer.codes, ['invalid_request']);
    assert.ok(answer.closedByServer, 'the connection is closed');
    assert.equal((await stack.a.get('/wallet/balance')).body.allocated, before, 'no money moved');
  });

  test('control: HTTP/1.0 with Content-Length is served', async () => {
    const body = JSON.stringify({ card_id: card(), amount: '1.00' });
    const request =
      `POST /wallet/allocate HTTP/1.0\r\nHost: 127.0.0.1:${stack.portA}\r\nAuthorization: Bearer ${stack.token()}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const answer = await exchange(stack.portA, request);
    assert.deepEqual(answer.statuses, [200], answer.text);
  });
});

describe('unknown names in error messages', () => {
  const HOSTILE = ['<script>alert(1)</script>', 'a\u202eb', 'name with spaces', `x${'y'.repeat(200)}`, 'ünïcode'];
  test('unknown body fields and query parameters are echoed only in a safe charset, at most 64 characters', async () => {
    for (const name of HOSTILE) {
      const answers = [
        await stack.a.post('/authorize', { card_id: card(), amount: 1, merchant_name: 'shop.example', [name]: 1 }),
        await stack.a.get(`/transactions?${encodeURIComponent(name)}=1`),
      ];
      for (const answer of answers) {
        assert.equal(answer.status, 400, answer.text);
        assert.equal(answer.body?.error?.code, 'invalid_request');
        const { message, param } = answer.body.error as { message: string; param?: string };
        const echoed = `${message} ${param ?? ''}`;
        assert.ok(!echoed.includes('<') && !echoed.includes('\u202e') && !echoed.includes(' with ') && !echoed.includes('ü'), echoed);
        assert.ok(!echoed.includes('y'.repeat(65)), 'capped at 64 characters');
        if (param !== undefined) assert.match(param, /^[A-Za-z0-9_.-]{1,64}…?$/);
      }
    }
  });

  test('control: a plain unknown name is still named', async () => {
    const answer = await stack.a.post('/authorize', { card_id: card(), amount: 1, merchant_name: 'shop.example', extra_field: 1 });
    assert.equal(answer.body.error.param, 'extra_field');
    assert.match(answer.body.error.message, /extra_field/);
  });
});
