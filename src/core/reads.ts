/** Reads of cards, transactions and the wallet through the cloud gateway. */
import type { TransactionQuery } from './cloud-gateway.js';
import { cloudCall, type CoreDeps, type OperationContext } from './core-deps.js';
import type { Card, Transaction, TransactionPage, Wallet } from './model.js';

export type { TransactionQuery } from './cloud-gateway.js';

/** listCards returns the account's cards. */
export function listCards(deps: CoreDeps, context: OperationContext): Promise<Card[]> {
  const device = deps.device();
  return device.cloud.listCards(cloudCall(device, context));
}

/** getCard returns one card; another account's card is card_not_found. */
export function getCard(deps: CoreDeps, cardId: string, context: OperationContext): Promise<Card> {
  const device = deps.device();
  return device.cloud.getCard(cardId, cloudCall(device, context));
}

/** listTransactions returns a page of transactions, newest first. */
export function listTransactions(deps: CoreDeps, query: TransactionQuery, context: OperationContext): Promise<TransactionPage> {
  const device = deps.device();
  return device.cloud.listTransactions(query, cloudCall(device, context));
}

/** getTransaction returns one transaction with its policy window. */
export function getTransaction(deps: CoreDeps, transactionId: string, context: OperationContext): Promise<Transaction> {
  const device = deps.device();
  return device.cloud.getTransaction(transactionId, cloudCall(device, context));
}

/** getWallet returns the wallet balance. */
export function getWallet(deps: CoreDeps, context: OperationContext): Promise<Wallet> {
  const device = deps.device();
  return device.cloud.wallet(cloudCall(device, context));
}
