/**
 * Card numbers and CVVs placed anywhere a caller can put them — body keys, values, nested, as
 * JSON numbers, query, path, the headers Latch stores or forwards — on both listeners and the
 * /v1 proxy. Each request is refused with card_data_not_accepted, and afterwards the number
 * appears in no response, not in the daemon's log, not in audit.log, and not in the cloud's
 * journal (nothing was signed or forwarded).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startStack, type HttpAnswer, type Stack } from '../support/stack.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

/** luhnComplete appends the check digit that makes digits Luhn-valid. */
function luhnComplete(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) d *= 2;
    sum += d > 9 ? d - 9 : d;
  }
  return `${digits}${(10 - (sum % 10)) % 10}`;
}

const shift = (text: string, zero: number): string => text.replace(/[0-9]/g, (d) => String.fromCodePoint(zero + Number(d)));

/** Test card numbers in the forms a caller might write them, with the card number's ASCII digits. */
const PANS: ReadonlyArray<[string, string, string]> = [
  ['plain 16 digits', '4242424242424242', '4242424242424242'],
  ['grouped with spaces', '4111 1111 1111 1111', '4111111111111111'],
  ['grouped with dashes', '5555-5555-5555-4444', '5555555555554444'],
  ['15-digit Amex', '378282246310005', '378282246310005'],
  ['13 digits', '4222222222222', '4222222222222'],
  ['19 digits', luhnComplete('621234567890123456'), luhnComplete('621234567890123456')],
  ['Arabic-Indic digits', shift('4242424242424242', 0x0660), '4242424242424242'],
  ['fullwidth digits', shift('4242424242424242', 0xff10), '4242424242424242'],
  ['inside a sentence', 'my card is 4000056655665556, exp 12/30', '4000056655665556'],
];
const ascii = (text: string): boolean => /^[\x20-\x7e]*$/.test(text);

/** A place gets the number as written and its ASCII digits. */
type Place = (pan: string, digits: string) => Promise<HttpAnswer> | undefined;

const card = (): string => stack.cards[0].card_id;
const authorizeA = (extra: Record<string, unknown>) => stack.a.post('/authorize', { card_id: card(), amount: 1, merchant_name: 'pan.example', ...extra });

const PLACES: ReadonlyArray<[string, Place]> = [
  ['A /authorize merchant_name', (p) => authorizeA({ merchant_name: p })],
  ['A /authorize unknown field', (p) => authorizeA({ note: p })],
  ['A /authorize nested deep', (p) => authorizeA({ meta: { a: [{ b: [p] }] } })],
  ['A /authorize as a key', (p) => authorizeA({ [p]: 1 })],
  ['A /authorize card_id', (p) => authorizeA({ card_id: p })],
  ['A /authorize amount as a JSON number', (p) => (/^[0-9]+$/.test(p) ? stack.a.post('/authorize', `{"card_id":"${card()}","amount":${p},"merchant_name":"pan.example"}`) : undefined)],
  ['A /authorize amount in exponent form', (p) => (/^[0-9]+$/.test(p) ? stack.a.post('/authorize', `{"card_id":"${card()}","amount":${p[0]}.${p.slice(1)}e${p.length - 1},"merchant_name":"pan.example"}`) : undefined)],
  ['A /sign-card-policy-window merchant_name', (p) => stack.a.post('/sign-card-policy-window', { card_id: card(), amount: 1, merchant_name: p })],
  ['A /sign-revocation reason', (p) => stack.a.post('/sign-revocation', { policy_id: 'pw_abc', reason: p })],
  ['A /wallet/allocate card_id', (p) => stack.a.post('/wallet/allocate', { card_id: p, amount: '1.00' })],
  ['A /v1/authorizations body', (p) => stack.a.post('/v1/authorizations', { jws: p })],
  ['B /authorize merchant', (p) => stack.b.post('/authorize', { card_id: card(), amount: 1, merchant: p })],
  ['B /wallet/allocate array', (p) => stack.b.post('/wallet/allocate', { card_id: card(), amount: 1, notes: [p] })],
  ['A GET /cards?q=', (p) => stack.a.get(`/cards?q=${encodeURIComponent(p)}`)],
  ['B GET /transactions?starting_after=', (p) => stack.b.get(`/transactions?starting_after=${encodeURIComponent(p)}`)],
  ['A GET /v1/transactions?card_id= double-encoded', (p) => stack.a.get(`/v1/transactions?card_id=${encodeURIComponent(encodeURIComponent(p))}`)],
  ['A GET /cards/:id', (p) => stack.a.get(`/cards/${encodeURIComponent(p)}`)],
  ['B GET /transactions/:id', (p) => stack.b.get(`/transactions/${encodeURIComponent(p)}`)],
  ['A GET /v1/cards/:id', (p) => stack.a.get(`/v1/cards/${encodeURIComponent(p)}`)],
  ['A GET /cards/:id every digit percent-encoded', (_p, digits) => stack.a.get(`/cards/${[...digits].map((d) => `%3${d}`).join('')}`)],
  ['A Idempotency-Key', (p) => (ascii(p) ? stack.a.post('/wallet/allocate', { card_id: card(), amount: '1.00' }, { 'idempotency-key': p }) : undefined)],
  ['B Idempotency-Key', (p) => (ascii(p) ? stack.b.post('/authorize', { card_id: card(), amount: 1, merchant: 'pan.example' }, { 'idempotency-key': `retry-${p}` }) : undefined)],
  ['A User-Agent of a signing request', (p) => (ascii(p) ? stack.a.post('/sign-policy-window', { amount: 1, merchant_name: 'pan.example' }, { 'user-agent': `agent/${p}` }) : undefined)],
  ['A Accept-Language through the proxy', (p) => (ascii(p) ? stack.a.get('/v1/wallet', { 'accept-language': `en;x=${p}` }) : undefined)],
];

/** Field names that are card data whatever their value. */
const CARD_FIELDS = ['pan', 'PAN', 'card_number', 'cardNumber', 'CARD-NUMBER', 'card number', 'cvv', 'CVV', 'cvc', 'cvv2', 'cid', 'security_code', 'securityCode', 'exp_month', 'exp_year', 'track1', 'track2'];

/** assertRefused checks the refusal and, when given the number, that the answer does not carry it. */
function assertRefused(answer: HttpAnswer, what: string, pan?: { text: string; digits: string }): void {
  assert.equal(answer.status, 400, `${what}: ${answer.text}`);
  assert.equal(answer.body?.error?.code, 'card_data_not_accepted', `${what}: ${answer.text}`);
  assert.equal(answer.body.error.param, undefined, 'the error names no field');
  if (pan !== undefined) assert.ok(!answer.text.includes(pan.text) && !answer.text.includes(pan.digits), `${what}: the number is echoed`);
}

function auditText(): string {
  try {
    return readFileSync(path.join(stack.home, 'audit.log'), 'utf8');
  } catch {
    return '';
  }
}

describe('card numbers anywhere', () => {
  for (const [form, text, digits] of PANS) {
    test(`${form}: refused in every place`, async () => {
      for (const [place, send] of PLACES) {
        const answer = await send(text, digits);
        if (answer !== undefined) assertRefused(answer, place, { text, digits });
      }
    });
  }

  test('fields named like card data are refused at any depth, whatever their value, on A, B and /v1', async () => {
    for (const name of CARD_FIELDS) {
      for (const value of ['123', 12, 'x', null]) {
        assertRefused(await authorizeA({ [name]: value }), `A ${name}`);
        assertRefused(await authorizeA({ meta: [{ deep: { [name]: value } }] }), `A nested ${name}`);
        assertRefused(await stack.b.post('/wallet/allocate', { card_id: card(), amount: 1, [name]: value }), `B ${name}`);
        assertRefused(await stack.a.post('/v1/wallet/allocate', { card_id: card(), amount: '1.00', [name]: value }), `/v1 ${name}`);
      }
      assertRefused(await stack.a.get(`/transactions?${name}=1`), `query ${name}`);
    }
  });

  test('afterwards no number appears in the daemon log, audit.log or the cloud’s journal, and nothing was signed', async () => {
    const logs = stack.logs();
    const audit = auditText();
    const journal = readFileSync(stack.sandbox.journalPath).toString('latin1');
    for (const [form, pan, digits] of PANS) {
      for (const [where, text] of [['daemon log', logs], ['audit.log', audit], ['sandbox journal', journal]] as const) {
        assert.ok(!text.includes(pan), `${form} in ${where}`);
        assert.ok(!text.includes(digits), `${form} (digits) in ${where}`);
      }
    }
    assert.ok(logs.includes('card_data_not_accepted'), 'the refusals were logged, by code');
    assert.ok(!/"operation":"sign_(card_)?policy_window"/.test(audit), 'no window was signed for any of these requests');
  });

  test('control: the same requests without card data are served', async () => {
    assert.equal((await authorizeA({})).status, 200);
    assert.equal((await stack.a.get('/cards?')).status, 200);
    assert.equal((await stack.a.post('/wallet/allocate', { card_id: card(), amount: '1.00' }, { 'idempotency-key': 'retry-0001-abc' })).status, 200);
    assert.equal((await stack.a.post('/sign-policy-window', { amount: 1, merchant_name: 'pan.example' }, { 'user-agent': 'agent/1.2.3' })).status, 200);
  });
});
