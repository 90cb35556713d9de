/**
 * A mandate's context (src/operations/ap2-mandate-context.ts): only held or settled charges against
 * the mandate's own window count, the card's pages are walked until one is older than the window,
 * another agent's mandate is not found, and a card with too many transactions is refused rather
 * than answered with a partial total. Every transaction status the model knows is tried.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mandateContext, type MandateContextDeps } from '../../src/operations/ap2-mandate-context.js';
import { TRANSACTION_STATUSES, type Transaction } from '../../src/operations/read-model.js';
import { OWNER } from '../../src/core/principal.js';
import { LatchError } from '../../src/errors/latch-error.js';

const SIGNED_AT = 1_790_000_000;
const entry = { policyId: 'pw_m', agent: 'shopper', cardId: 'card_a', merchant: 'shop.example', currency: 'USD', amountMinor: 2000, kind: 'recurring', authorizationType: 'ceiling', signedAtSeconds: SIGNED_AT, notAfterSeconds: SIGNED_AT + 600, state: 'active', evidence: { mandates: { mandateId: 'md_1' } } } as never;

function tx(id: number, policyId: string, status: Transaction['status'], createdAt: number, amountMinor = 500): Transaction {
  return { id: `tx_${id}`, cardId: 'card_a', amountMinor, currency: 'USD', merchant: 'shop.example', status, createdAt, policyId, declineCode: null };
}

function deps(pages: Transaction[][], calls: string[] = []): MandateContextDeps {
  return {
    ledger: { get: (policyId) => (policyId === 'pw_m' ? entry : undefined), since: () => [entry] },
    device: () =>
      ({
        cloud: {
          listTransactions: async (query: { startingAfter?: string }) => {
            calls.push(query.startingAfter ?? 'first');
            const index = calls.length - 1;
            return { transactions: pages[index] ?? [], hasMore: index < pages.length - 1 };
          },
        },
      }) as never,
  };
}

const agent = { principal: { kind: 'agent', name: 'shopper' } } as never;

test('every status: only authorized and settled charges against the mandate\'s window count, and last_at is the latest', async () => {
  const page = TRANSACTION_STATUSES.map((status, index) => tx(index, 'pw_m', status, SIGNED_AT + 100 + index));
  page.push(tx(99, 'pw_other', 'settled', SIGNED_AT + 500, 9_999));
  const found = await mandateContext(deps([page]), 'md_1', agent);
  const counted = page.filter((t) => t.policyId === 'pw_m' && (t.status === 'authorized' || t.status === 'settled'));
  assert.deepEqual([found.totalMinor, found.occurrences, found.lastAtSeconds], [counted.length * 500, counted.length, Math.max(...counted.map((t) => t.createdAt))]);
  assert.equal(found.currency, 'USD');
});

test('pages are walked until one ends before the window was signed', async () => {
  const calls: string[] = [];
  const pages = [[tx(3, 'pw_m', 'settled', SIGNED_AT + 300)], [tx(2, 'pw_m', 'settled', SIGNED_AT + 200)], [tx(1, 'pw_x', 'settled', SIGNED_AT - 1)], [tx(0, 'pw_m', 'settled', SIGNED_AT + 1)]];
  const found = await mandateContext(deps(pages, calls), 'md_1', agent);
  assert.deepEqual(calls, ['first', 'tx_3', 'tx_2']);
  assert.equal(found.occurrences, 2);
});

test("another agent's mandate, and an unknown one, are authorization_not_found; the owner sees it", async () => {
  const other = { principal: { kind: 'agent', name: 'other' } } as never;
  for (const [id, context] of [['md_1', other], ['md_2', agent]] as const) {
    await assert.rejects(mandateContext(deps([[]]), id, context), (error: unknown) => error instanceof LatchError && error.code === 'authorization_not_found');
  }
  assert.equal((await mandateContext(deps([[]]), 'md_1', { principal: OWNER } as never)).occurrences, 0);
});

test('a card with more transactions since the mandate than the walk reads is refused, not answered in part', async () => {
  const pages = Array.from({ length: 25 }, (_, index) => [tx(100 - index, 'pw_m', 'settled', SIGNED_AT + 1000 - index)]);
  await assert.rejects(mandateContext(deps(pages), 'md_1', agent), (error: unknown) => error instanceof LatchError && error.code === 'upstream_unavailable');
});
