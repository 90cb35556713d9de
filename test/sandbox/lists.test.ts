import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LatchError } from '../../src/errors/latch-error.js';
import type { SandboxState } from '../../src/sandbox/ledger/state.js';
import { listAuthorizations, listTransactions, type ListQuery } from '../../src/sandbox/ops/lists.js';
import { LedgerHarness } from './harness.js';

/**
 * The lists read creation-order indexes; these tests hold them to the plain definition — filter
 * every item of the account, newest first, then page — for every filter, limit and cursor.
 */

interface Listed {
  id: string;
  account_id: string | null;
  card_id: string | null;
  status: string;
}

/** referencePage is the definition: all of the account's items that pass the filters, newest first, then the page after the cursor. */
function referencePage(all: Listed[], accountId: string, query: ListQuery<string>): { ids: string[]; hasMore: boolean } | 'refused' {
  const items = all.filter((item) => item.account_id === accountId && (query.cardId === undefined || item.card_id === query.cardId) && (query.status === undefined || item.status === query.status)).reverse();
  let start = 0;
  if (query.startingAfter !== undefined) {
    const index = items.findIndex((item) => item.id === query.startingAfter);
    if (index === -1) return 'refused';
    start = index + 1;
  }
  return { ids: items.slice(start, start + query.limit).map((item) => item.id), hasMore: start + query.limit < items.length };
}

function actualPage(list: () => { page: Array<{ [key: string]: unknown }>; hasMore: boolean }, idKey: string): { ids: string[]; hasMore: boolean } | 'refused' {
  try {
    const { page, hasMore } = list();
    return { ids: page.map((item) => item[idKey] as string), hasMore };
  } catch (error) {
    if (error instanceof LatchError && error.code === 'invalid_request') return 'refused';
    throw error;
  }
}

/** busyLedger: two accounts; card windows, an account-wide window, settled, declined, revoked and expired. */
async function busyLedger(h: LedgerHarness): Promise<{ accounts: string[]; cards: string[] }> {
  const first = await h.device();
  const second = await h.device();
  const cards = [await h.card(first.accountId, 500_00), await h.card(first.accountId, 500_00), await h.card(second.accountId, 500_00)];
  const owner = (card: string) => (card === cards[2] ? second : first);
  for (let round = 0; round < 4; round += 1) {
    for (const card of cards) {
      const window = await h.window(owner(card), { card_id: card, amount: '1.00' });
      if (window instanceof LatchError) throw new Error(window.code);
      if (round % 2 === 0) await h.charge({ cardId: card, merchant: 'shop.example.com', amount: 1_00, currency: 'USD' });
      else if (round === 1) await h.revoke(owner(card), window.policy_id);
      await h.charge({ cardId: card, merchant: 'other.example.org', amount: 2_00, currency: 'USD' });
    }
    await h.window(first, { typ: 'policy_window', merchant: 'any.example.net', amount: '3.00' });
  }
  // An unknown card's decline belongs to no account.
  await h.charge({ cardId: 'card_unknown000000000000000', merchant: 'shop.example.com', amount: 1_00, currency: 'USD' });
  h.clockSeconds += 7200;
  await h.run(() => undefined);
  // One window still active after the others expired, its transaction still authorized.
  if ((await h.window(first, { card_id: cards[0], amount: '1.00' })) instanceof LatchError) throw new Error('window refused');
  return { accounts: [first.accountId, second.accountId], cards };
}

const TRANSACTION_STATUSES = [undefined, 'authorized', 'settled', 'expired', 'revoked', 'declined'] as const;
const AUTHORIZATION_STATUSES = [undefined, 'active', 'used', 'expired', 'revoked'] as const;

function check(state: Readonly<SandboxState>, accounts: string[], cards: string[], kind: 'transactions' | 'authorizations'): number {
  const all: Listed[] =
    kind === 'transactions'
      ? [...state.transactions.values()]
      : [...state.authorizations.values()].map((a) => ({ id: a.policy_id, account_id: a.account_id, card_id: a.card_id, status: a.status }));
  const statuses = kind === 'transactions' ? TRANSACTION_STATUSES : AUTHORIZATION_STATUSES;
  const cursors = [undefined, ...all.map((item) => item.id), 'tx_notanid000000000000000000', 'pw_notanid000000000000000000'];
  let compared = 0;
  for (const accountId of accounts) {
    for (const cardId of [undefined, ...cards]) {
      for (const status of statuses) {
        for (const limit of [1, 2, 3, 100]) {
          for (const startingAfter of cursors) {
            const query = { limit, startingAfter, cardId, status };
            const expected = referencePage(all, accountId, query);
            const actual =
              kind === 'transactions'
                ? actualPage(() => listTransactions(state, accountId, query as ListQuery<never>) as never, 'id')
                : actualPage(() => listAuthorizations(state, accountId, query as ListQuery<never>) as never, 'policy_id');
            assert.deepEqual(actual, expected, JSON.stringify({ kind, accountId, cardId, status, limit, startingAfter }));
            compared += 1;
          }
        }
      }
    }
  }
  return compared;
}

for (const kind of ['transactions', 'authorizations'] as const) {
  test(`lists: ${kind} pages equal filtering the whole history, for every filter, limit and cursor, before and after a restart`, async () => {
    const h = await LedgerHarness.create({ snapshots: true });
    try {
      const { accounts, cards } = await busyLedger(h);
      const statuses = new Set(kind === 'transactions' ? [...h.ledger.state.transactions.values()].map((t) => t.status) : [...h.ledger.state.authorizations.values()].map((a) => a.status));
      // The history must hold every status, or a filter would be tested against nothing.
      assert.equal(statuses.size, (kind === 'transactions' ? TRANSACTION_STATUSES : AUTHORIZATION_STATUSES).length - 1, [...statuses].join());
      assert.ok(check(h.ledger.state, accounts, cards, kind) > 1000);
      await h.restart();
      check(h.ledger.state, accounts, cards, kind);
      assert.equal(await h.ledger.writeSnapshot(), true);
      await h.restart();
      assert.equal(h.ledger.start.from, 'snapshot');
      check(h.ledger.state, accounts, cards, kind);
    } finally {
      await h.dispose();
    }
  });
}
