/**
 * The read handlers Variant A and Variant B share by path: cards, transactions and the wallet
 * balance. Both run the same handlers; each variant passes only its wire shapes, and lists
 * the routes in its own table.
 */
import type { ReadOperations } from '../operations/operations.js';
import type { Card, Transaction, TransactionPage, Wallet } from '../operations/read-model.js';
import type { RouteHandler } from '../http/route.js';
import { checkCardIdParam, checkTransactionIdParam } from '../requests/common-fields.js';
import { validateQuery } from '../validate/schema.js';
import { transactionQueryRules } from '../requests/request-rules.js';
import { ok, operationContext } from './operation-context.js';

/** How one variant writes the shared answers. */
export interface ReadShapes {
  cardList(cards: Card[]): unknown;
  cardDetail(card: Card): unknown;
  transactionList(page: TransactionPage): unknown;
  transactionDetail(transaction: Transaction): unknown;
  wallet(wallet: Wallet): unknown;
}

/** The shared read handlers of one variant, by what they answer. */
export interface ReadHandlers {
  listCards: RouteHandler;
  getCard: RouteHandler;
  listTransactions: RouteHandler;
  getTransaction: RouteHandler;
  walletBalance: RouteHandler;
}

/** readHandlers returns the shared read handlers with one variant's shapes. */
export function readHandlers(operations: ReadOperations, shapes: ReadShapes): ReadHandlers {
  return {
    listCards: async (request) => {
      validateQuery(request.query, {});
      return ok(shapes.cardList(await operations.listCards(operationContext(request))));
    },
    getCard: async (request) => {
      validateQuery(request.query, {});
      return ok(shapes.cardDetail(await operations.getCard(checkCardIdParam(request.params['card_id'] ?? ''), operationContext(request))));
    },
    listTransactions: async (request) => {
      const query = validateQuery(request.query, transactionQueryRules);
      const page = await operations.listTransactions(
        { limit: query.limit, startingAfter: query.starting_after, cardId: query.card_id, status: query.status },
        operationContext(request),
      );
      return ok(shapes.transactionList(page));
    },
    getTransaction: async (request) => {
      validateQuery(request.query, {});
      const transaction = await operations.getTransaction(checkTransactionIdParam(request.params['tx_id'] ?? ''), operationContext(request));
      return ok(shapes.transactionDetail({ ...transaction, policyWindow: transaction.policyWindow ?? null }));
    },
    walletBalance: async (request) => {
      validateQuery(request.query, {});
      return ok(shapes.wallet(await operations.getWallet(operationContext(request))));
    },
  };
}
