/** Reads of cards, transactions and the wallet, and wallet allocation, through the cloud. */
import { cloudJson, errorFromCloud } from '../cloud/cloud-errors.js';
import { readAllocation, readCard, readCardList, readTransaction, readTransactionPage, readWallet } from '../cloud/cloud-shapes.js';
import type { CloudResponse } from '../cloud/cloud-client.js';
import { utf8 } from '../crypto/base64url.js';
import { formatMinor } from '../money/amount.js';
import { idempotencyKeyOf, type CoreDeps, type OperationContext } from './core-deps.js';
import type { Allocation, Card, Transaction, TransactionPage, TransactionStatus, Wallet } from './model.js';

async function getJson(deps: CoreDeps, pathAndQuery: string, context: OperationContext): Promise<Record<string, unknown>> {
  const response: CloudResponse = await deps.cloud().send({
    method: 'GET',
    pathAndQuery,
    caller: context.caller,
    ...(context.signal !== undefined && { signal: context.signal }),
  });
  if (response.status !== 200) throw errorFromCloud(response);
  return cloudJson(response);
}

/** listCards returns the account's cards. */
export async function listCards(deps: CoreDeps, context: OperationContext): Promise<Card[]> {
  return readCardList(await getJson(deps, '/v1/cards', context));
}

/** getCard returns one card; another account's card is card_not_found. */
export async function getCard(deps: CoreDeps, cardId: string, context: OperationContext): Promise<Card> {
  return readCard(await getJson(deps, `/v1/cards/${encodeURIComponent(cardId)}`, context));
}

export interface TransactionQuery {
  limit: number;
  startingAfter: string | undefined;
  cardId: string | undefined;
  status: TransactionStatus | undefined;
}

/** listTransactions returns a page of transactions, newest first. */
export async function listTransactions(deps: CoreDeps, query: TransactionQuery, context: OperationContext): Promise<TransactionPage> {
  const params = new URLSearchParams({ limit: String(query.limit) });
  if (query.startingAfter !== undefined) params.set('starting_after', query.startingAfter);
  if (query.cardId !== undefined) params.set('card_id', query.cardId);
  if (query.status !== undefined) params.set('status', query.status);
  return readTransactionPage(await getJson(deps, `/v1/transactions?${params.toString()}`, context));
}

/** getTransaction returns one transaction with its policy window. */
export async function getTransaction(deps: CoreDeps, transactionId: string, context: OperationContext): Promise<Transaction> {
  return readTransaction(await getJson(deps, `/v1/transactions/${encodeURIComponent(transactionId)}`, context));
}

/** getWallet returns the wallet balance. */
export async function getWallet(deps: CoreDeps, context: OperationContext): Promise<Wallet> {
  return readWallet(await getJson(deps, '/v1/wallet', context));
}

/** allocate moves wallet funds to a card. */
export async function allocate(deps: CoreDeps, cardId: string, amountMinor: number, context: OperationContext): Promise<Allocation> {
  const response = await deps.cloud().send({
    method: 'POST',
    pathAndQuery: '/v1/wallet/allocate',
    body: utf8(JSON.stringify({ card_id: cardId, amount: formatMinor(amountMinor) })),
    contentType: 'application/json',
    idempotencyKey: idempotencyKeyOf(context),
    caller: context.caller,
    ...(context.signal !== undefined && { signal: context.signal }),
  });
  if (response.status !== 200 && response.status !== 201) throw errorFromCloud(response);
  return readAllocation(cloudJson(response));
}
