/**
 * The optional `reference` of an authorization (an order id or a note) on A's three
 * authorization endpoints, against the real daemon and sandbox: signed into the window, written
 * to the audit line, refused when it is too long, not printable, or card data.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { decodeJwsPayload } from '../support/e2e-assert.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let card: string;
before(async () => {
  stack = await startStack();
  card = stack.cards[0].card_id;
});
after(() => stack.close());

const auditLines = () => readFileSync(path.join(stack.home, 'audit.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

async function signedWindow(transactionId: string): Promise<Record<string, unknown>> {
  const detail = await stack.a.get(`/transactions/${transactionId}`);
  return decodeJwsPayload(detail.body.policy_window.jws as string);
}

test('a reference is signed into the window and written to the audit line, on all three endpoints', async () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['/authorize', { card_id: card, amount: '2.00', merchant_name: 'shop.example.com', reference: 'order #A-1001' }, 'authorize'],
    ['/merchant-bind', { card_id: card, merchant_name: 'shop.example.com', reference: 'card check for Ünïcode shop' }, 'merchant_bind'],
    ['/recurring', { card_id: card, amount: '3.00', merchant_name: 'news.example.com', interval: 'month', reference: 'newsletter plan' }, 'recurring'],
  ];
  for (const [target, body, operation] of cases) {
    const answer = await stack.a.post(target, body);
    assert.equal(answer.status, 200, `${target}: ${answer.text}`);
    const payload = await signedWindow(answer.body.transaction_id as string);
    assert.equal(payload['reference'], body['reference'], target);
    const line = auditLines().find((l) => l['policy_id'] === answer.body.policy_id && l['operation'] === operation);
    assert.equal(line?.['reference'], body['reference'], target);
  }
});

test('without a reference the window has none (the payload is unchanged)', async () => {
  const answer = await stack.a.post('/authorize', { card_id: card, amount: '1.00', merchant_name: 'shop.example.com' });
  assert.equal(answer.status, 200);
  assert.equal('reference' in (await signedWindow(answer.body.transaction_id as string)), false);
});

test('a reference that is too long, not printable or card data is refused and nothing is signed', async () => {
  const before = auditLines().length;
  const refused: Array<[unknown, string]> = [
    ['x'.repeat(201), 'invalid_request'],
    ['', 'invalid_request'],
    ['line\nbreak', 'invalid_request'],
    ['bidi\u202eoverride', 'invalid_request'],
    [42, 'invalid_request'],
    ['4111 1111 1111 1111', 'card_data_not_accepted'],
    ['order 4111-1111-1111-1111', 'card_data_not_accepted'],
  ];
  for (const [reference, code] of refused) {
    const answer = await stack.a.post('/authorize', { card_id: card, amount: '1.00', merchant_name: 'shop.example.com', reference });
    assert.equal(answer.body.error?.code, code, JSON.stringify(reference));
  }
  assert.equal(auditLines().length, before);
});

test('the CLI takes --reference', async () => {
  const result = await runLatch(['authorize', '--card', card, '--amount', '1.50', '--merchant', 'shop.example.com', '--reference', 'cli order 7', '--json'], {
    LATCH_HOME: stack.home,
    LATCH_URL: `http://127.0.0.1:${stack.portA}`,
  });
  assert.equal(result.code, 0, result.stderr);
  const authorization = JSON.parse(result.stdout) as { transaction_id: string };
  assert.equal((await signedWindow(authorization.transaction_id))['reference'], 'cli order 7');
});
