/**
 * Helpers shared by the Variant B end-to-end tests: fresh cards on the stack's account, a card
 * on another account, and assertions on error bodies and exact key sets.
 */
import assert from 'node:assert/strict';
import type { HttpAnswer, Stack } from '../support/stack.js';

/** The B routes, as the spec's table lists them, with a request that reaches each one. */
export interface BRoute {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

/** bRoutes lists every Variant B endpoint with a valid request for the given card and transaction. */
export function bRoutes(cardId: string, txId: string): BRoute[] {
  return [
    { method: 'GET', path: '/health' },
    { method: 'GET', path: '/cards' },
    { method: 'GET', path: `/cards/${cardId}` },
    { method: 'POST', path: '/authorize', body: { card_id: cardId, amount: 1, merchant: 'shop.example.com' } },
    { method: 'GET', path: '/transactions' },
    { method: 'GET', path: `/transactions/${txId}` },
    { method: 'GET', path: '/wallet/balance' },
    { method: 'POST', path: '/wallet/allocate', body: { card_id: cardId, amount: 1 } },
  ];
}

/** newCard issues a fresh frozen USD card on the stack's account and returns its id. */
export async function newCard(stack: Stack, label: string, balance = '100.00', dailyLimit = '500.00'): Promise<string> {
  const created = await stack.admin.post('/v1/sandbox/cards', { account_id: stack.accountId, label, balance, daily_limit: dailyLimit });
  assert.equal(created.status, 201, created.text);
  return created.body.card_id as string;
}

/** otherAccountCard opens a second sandbox account with one funded card and returns the card's id. */
export async function otherAccountCard(stack: Stack): Promise<string> {
  const setup = await stack.admin.post('/v1/sandbox/setup-tokens', {});
  assert.equal(setup.status, 201, setup.text);
  const accountId = setup.body.account_id as string;
  assert.notEqual(accountId, stack.accountId);
  const created = await stack.admin.post('/v1/sandbox/cards', { account_id: accountId, label: 'Not yours', balance: '900.00' });
  assert.equal(created.status, 201, created.text);
  return created.body.card_id as string;
}

/** expectError asserts the common error body (decisions §7) with this status, code and param. */
export function expectError(answer: HttpAnswer, status: number, code: string, param?: string): void {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.body?.error?.code, code, answer.text);
  assert.equal(typeof answer.body.error.message, 'string');
  assert.equal(answer.body.error.param, param, answer.text);
}

/** assertKeys asserts that value is a plain object with exactly these keys. */
export function assertKeys(value: unknown, keys: readonly string[], what: string): void {
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `${what} is not an object: ${JSON.stringify(value)}`);
  assert.deepEqual(Object.keys(value).sort(), [...keys].sort(), `${what} has other keys than expected`);
}

/** assertMoney asserts that value is the JSON number expected (B writes 12.5, never "12.50"). */
export function assertMoney(value: unknown, expected: number, what: string): void {
  assert.equal(typeof value, 'number', `${what} must be a JSON number, got ${JSON.stringify(value)}`);
  assert.equal(value, expected, what);
}

/** authorizeB makes a B authorization that must succeed and returns its tx_id. */
export async function authorizeB(stack: Stack, body: Record<string, unknown>, headers?: Record<string, string>): Promise<string> {
  const answer = await stack.b.post('/authorize', body, headers);
  assert.equal(answer.status, 200, answer.text);
  return answer.body.tx_id as string;
}
