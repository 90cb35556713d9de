/**
 * The core operations bound to one daemon's dependencies: what route tables and other front
 * ends call. Each takes the request as a value and the operation context, and knows no HTTP.
 */
import type { AccountWindowRequest, OneTimeRequest, WindowRequest } from '../core/authorization-request.js';
import { requestAuthorization, signAccountWindow, signCardWindow, type AuthorizationResult } from '../core/authorizations.js';
import type { TransactionQuery } from './cloud-reads.js';
import type { CoreDeps, OperationContext } from '../core/core-deps.js';
import type { Allocation } from '../core/model.js';
import type { Card, Transaction, TransactionPage, Wallet } from './read-model.js';
import { getCard, getTransaction, getWallet, listCards, listTransactions, type ReadDeps } from './reads.js';
import { signRevocation, type SignedRevocation } from '../core/revocation.js';
import { allocate } from '../core/wallet-allocation.js';
import type { SignedWindow } from '../core/window-payload.js';
import { notingRefusals, termsOf } from './refusal-notes.js';

export interface CoreOperations {
  requestAuthorization(request: WindowRequest, context: OperationContext): Promise<AuthorizationResult>;
  signCardWindow(request: OneTimeRequest, context: OperationContext): Promise<SignedWindow>;
  signAccountWindow(request: AccountWindowRequest, context: OperationContext): Promise<SignedWindow>;
  signRevocation(policyId: string, reason: string | undefined, context: OperationContext): Promise<SignedRevocation>;
  listCards(context: OperationContext): Promise<Card[]>;
  getCard(cardId: string, context: OperationContext): Promise<Card>;
  listTransactions(query: TransactionQuery, context: OperationContext): Promise<TransactionPage>;
  getTransaction(transactionId: string, context: OperationContext): Promise<Transaction>;
  getWallet(context: OperationContext): Promise<Wallet>;
  allocate(cardId: string, amountMinor: number, context: OperationContext): Promise<Allocation>;
}

/** The operations the shared card, transaction and wallet-balance routes call. */
export type ReadOperations = Pick<CoreOperations, 'listCards' | 'getCard' | 'listTransactions' | 'getTransaction' | 'getWallet'>;

/** coreOperations binds every operation to deps: the core's, and the reads (which read the cloud through reads.device). */
export function coreOperations(deps: CoreDeps, reads: ReadDeps): CoreOperations {
  return {
    // What the policy, the pause or the lockout refuses is noted for the owner (issue 44 item 3).
    requestAuthorization: (request, context) => notingRefusals(deps, termsOf(request, 'authorize'), context, () => requestAuthorization(deps, request, context)),
    signCardWindow: (request, context) => notingRefusals(deps, termsOf(request, 'sign_card_policy_window'), context, () => signCardWindow(deps, request, context)),
    signAccountWindow: (request, context) => notingRefusals(deps, { operation: 'sign_policy_window', cardId: null, merchant: request.merchant, amountMinor: request.amountMinor, currency: request.currency, kind: null }, context, () => signAccountWindow(deps, request, context)),
    signRevocation: (policyId, reason, context) => signRevocation(deps, deps.device(), policyId, reason, context),
    listCards: (context) => listCards(reads, context),
    getCard: (cardId, context) => getCard(reads, cardId, context),
    listTransactions: (query, context) => listTransactions(reads, query, context),
    getTransaction: (transactionId, context) => getTransaction(reads, transactionId, context),
    getWallet: (context) => getWallet(reads, context),
    allocate: (cardId, amountMinor, context) => allocate(deps, cardId, amountMinor, context),
  };
}
