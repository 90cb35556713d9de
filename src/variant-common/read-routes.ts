/**
 * The routes Variant A and Variant B share by path: cards, transactions, wallet balance and
 * allocation. Both run the same handlers; each variant passes only its wire shapes.
 */
import type { CoreDeps } from '../core/core-deps.js';
import type { Allocation, Card, Transaction, TransactionPage, Wallet } from '../core/model.js';
import { allocate, getCard, getTransaction, getWallet, listCards, listTransactions } from '../core/reads.js';
import type { Route } from '../http/route.js';
import { AUTHORIZATION_AMOUNT_MAX_MINOR } from '../money/amount.js';
import { CARD_ID_PATTERN, TRANSACTION_ID_PATTERN, wireIdWords } from '../ids/wire-ids.js';
import { cardIdField, checkCardIdParam, checkTransactionIdParam } from '../requests/common-fields.js';
import { amount, int, oneOf, str, validateBody, validateQuery } from '../validate/schema.js';
import { ok, operationContext } from './operation-context.js';

/** How one variant writes the shared answers. */
export interface ReadShapes {
  cardList(cards: Card[]): unknown;
  cardDetail(card: Card): unknown;
  transactionList(page: TransactionPage): unknown;
  transactionDetail(transaction: Transaction): unknown;
  wallet(wallet: Wallet): unknown;
  allocation(allocation: Allocation): unknown;
}

/** /wallet/allocate on both variants: card_id and amount (a JSON number or decimal string). */
export const allocateRules = {
  card_id: cardIdField(),
  amount: amount({ required: true, maxMinor: AUTHORIZATION_AMOUNT_MAX_MINOR * 100 }),
};

/** GET /transactions on both variants (B keeps its response shape, without has_more). */
export const transactionQueryRules = {
  limit: int({ min: 1, max: 100, default: 20 }),
  starting_after: str({ pattern: TRANSACTION_ID_PATTERN, describe: wireIdWords('tx') }),
  card_id: str({ pattern: CARD_ID_PATTERN, describe: wireIdWords('card') }),
  status: oneOf(['authorized', 'settled', 'expired', 'revoked', 'declined'] as const),
};

/** readRoutes returns the shared routes with one variant's shapes. */
export function readRoutes(deps: CoreDeps, shapes: ReadShapes): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/cards',
      auth: 'token',
      handler: async (request) => {
        validateQuery(request.query, {});
        return ok(shapes.cardList(await listCards(deps, operationContext(request))));
      },
    },
    {
      method: 'GET',
      pattern: '/cards/:card_id',
      auth: 'token',
      handler: async (request) => {
        validateQuery(request.query, {});
        return ok(shapes.cardDetail(await getCard(deps, checkCardIdParam(request.params['card_id'] ?? ''), operationContext(request))));
      },
    },
    {
      method: 'GET',
      pattern: '/transactions',
      auth: 'token',
      handler: async (request) => {
        const query = validateQuery(request.query, transactionQueryRules);
        const page = await listTransactions(
          deps,
          { limit: query.limit, startingAfter: query.starting_after, cardId: query.card_id, status: query.status },
          operationContext(request),
        );
        return ok(shapes.transactionList(page));
      },
    },
    {
      method: 'GET',
      pattern: '/transactions/:tx_id',
      auth: 'token',
      handler: async (request) => {
        validateQuery(request.query, {});
        const transaction = await getTransaction(deps, checkTransactionIdParam(request.params['tx_id'] ?? ''), operationContext(request));
        return ok(shapes.transactionDetail({ ...transaction, policyWindow: transaction.policyWindow ?? null }));
      },
    },
    {
      method: 'GET',
      pattern: '/wallet/balance',
      auth: 'token',
      handler: async (request) => {
        validateQuery(request.query, {});
        return ok(shapes.wallet(await getWallet(deps, operationContext(request))));
      },
    },
    {
      method: 'POST',
      pattern: '/wallet/allocate',
      auth: 'token',
      handler: async (request) => {
        const input = validateBody(request.body, allocateRules);
        return ok(shapes.allocation(await allocate(deps, input.card_id, input.amount, operationContext(request))));
      },
    },
  ];
}
