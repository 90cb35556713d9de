import { invalidRequest } from '../../errors/latch-error.js';
import { accountScope, cardScope, newestFirstIds, type CreationIndex } from '../ledger/creation-index.js';
import type { Authorization, AuthorizationStatus, SandboxState, Transaction, TransactionStatus } from '../ledger/state.js';

/** What a list request asks for: a page of at most limit items after an id, and its filters. */
export interface ListQuery<Status> {
  limit: number;
  startingAfter: string | undefined;
  cardId: string | undefined;
  status: Status | undefined;
}

/** One page, newest first, and whether more follow it. */
export interface ListPage<T> {
  page: T[];
  hasMore: boolean;
}

/**
 * listTransactions pages the account's transactions newest first (docs/decisions.md §4). A page
 * reads the account's (or the card's) creation-order index from the cursor, so it costs O(limit)
 * without a status filter; with one, it reads until the page is full or the history ends.
 */
export function listTransactions(state: Readonly<SandboxState>, accountId: string, query: ListQuery<TransactionStatus>): ListPage<Transaction> {
  return pageOf(state.transaction_index, (id) => state.transactions.get(id) as Transaction, accountId, query);
}

/** listAuthorizations pages the account's authorizations newest first, as listTransactions does. */
export function listAuthorizations(state: Readonly<SandboxState>, accountId: string, query: ListQuery<AuthorizationStatus>): ListPage<Authorization> {
  return pageOf(state.authorization_index, (id) => state.authorizations.get(id) as Authorization, accountId, query);
}

/**
 * pageOf reads one page. A starting_after that is not an item of this list (unknown, another
 * account's, another card's, or no longer of the requested status) is refused rather than read as
 * "from the start", which would repeat items to the caller.
 */
function pageOf<T extends { status: string }>(index: CreationIndex, get: (id: string) => T, accountId: string, query: ListQuery<string>): ListPage<T> {
  const scope = query.cardId === undefined ? accountScope(accountId) : cardScope(accountId, query.cardId);
  const keep = (item: T): boolean => query.status === undefined || item.status === query.status;
  const ids = newestFirstIds(index, scope, query.startingAfter);
  if (ids === false || (query.startingAfter !== undefined && !keep(get(query.startingAfter)))) {
    throw invalidRequest('starting_after', 'starting_after is not an id in this list.');
  }
  const page: T[] = [];
  for (const id of ids) {
    const item = get(id);
    if (!keep(item)) continue;
    if (page.length === query.limit) return { page, hasMore: true };
    page.push(item);
  }
  return { page, hasMore: false };
}
