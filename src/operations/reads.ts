/**
 * Reads of cards, transactions and the wallet through the cloud gateway. An agent sees only the
 * transactions of its own authorizations (docs/decisions.md §17.7): another's, the owner's, or one
 * with no authorization this device signed for it is transaction_not_found, as an unknown id.
 */
import { LatchError } from '../errors/latch-error.js';
import type { ReadingDevice, TransactionQuery } from './cloud-reads.js';
import { cloudCall, type AuthorizationRecorder, type OperationContext } from '../core/core-deps.js';
import type { Card, Transaction, TransactionPage, Wallet } from './read-model.js';

/** What the reads need: the enrolled device with the cloud's reads, and who asked for each authorization. */
export interface ReadDeps {
  device(): ReadingDevice;
  authorizations: Pick<AuthorizationRecorder, 'get'>;
}

export type { TransactionQuery } from './cloud-reads.js';

/** listCards returns the account's cards. */
export function listCards(deps: ReadDeps, context: OperationContext): Promise<Card[]> {
  const device = deps.device();
  return device.cloud.listCards(cloudCall(device, context));
}

/** getCard returns one card; another account's card is card_not_found. */
export function getCard(deps: ReadDeps, cardId: string, context: OperationContext): Promise<Card> {
  const device = deps.device();
  return device.cloud.getCard(cardId, cloudCall(device, context));
}

/** How many cloud pages one agent's transaction list reads at most before answering has_more. */
const AGENT_TRANSACTION_PAGES_MAX = 10;
const CLOUD_PAGE_LIMIT = 100;

/** listTransactions returns a page of transactions, newest first: for an agent, only its own. */
export async function listTransactions(deps: ReadDeps, query: TransactionQuery, context: OperationContext): Promise<TransactionPage> {
  const device = deps.device();
  if (context.principal.kind === 'owner') return device.cloud.listTransactions(query, cloudCall(device, context));
  // An agent's page is filtered from the account's, walked newest first in bounded steps.
  const found: Transaction[] = [];
  let cursor = query.startingAfter;
  for (let pages = 0; pages < AGENT_TRANSACTION_PAGES_MAX; pages++) {
    const page = await device.cloud.listTransactions({ ...query, limit: CLOUD_PAGE_LIMIT, startingAfter: cursor }, cloudCall(device, context));
    for (const transaction of page.transactions) {
      if (!ownTransaction(deps, transaction, context)) continue;
      if (found.length === query.limit) return { transactions: found, hasMore: true };
      found.push(transaction);
    }
    const last = page.transactions[page.transactions.length - 1];
    if (!page.hasMore || last === undefined) return { transactions: found, hasMore: false };
    cursor = last.id;
  }
  // The walk's bound: what is left may hold more of the agent's; the cursor continues from here.
  return { transactions: found, hasMore: found.length > 0 };
}

/** getTransaction returns one transaction with its policy window: for an agent, only its own. */
export async function getTransaction(deps: ReadDeps, transactionId: string, context: OperationContext): Promise<Transaction> {
  const device = deps.device();
  const transaction = await device.cloud.getTransaction(transactionId, cloudCall(device, context));
  if (!ownTransaction(deps, transaction, context)) throw new LatchError('transaction_not_found');
  return transaction;
}

/** ownTransaction reports whether the caller may see the transaction: the owner all, an agent those of its authorizations. */
function ownTransaction(deps: ReadDeps, transaction: Transaction, context: OperationContext): boolean {
  if (context.principal.kind === 'owner') return true;
  if (transaction.policyId === null) return false;
  return deps.authorizations.get(transaction.policyId)?.agent === context.principal.name;
}

/** getWallet returns the wallet balance. */
export function getWallet(deps: ReadDeps, context: OperationContext): Promise<Wallet> {
  const device = deps.device();
  return device.cloud.wallet(cloudCall(device, context));
}
