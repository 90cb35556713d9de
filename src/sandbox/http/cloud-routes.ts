/**
 * The cloud API the daemon speaks (docs/decisions.md §6), every route signed per RFC 9421 by a device
 * key and scoped to that device's account. Handlers translate HTTP to ledger operations only.
 */
import { LatchError } from '../../errors/latch-error.js';
import { LOOKUP_ID_SHAPE } from '../../ids/wire-ids.js';
import { formatMinor } from '../../money/amount.js';
import type { Route } from '../../http/route.js';
import { amount, int, oneOf, str, validateBody, validateQuery } from '../../validate/schema.js';
import { WALLET_MINOR_MAX, allocate } from '../ops/accounts.js';
import { createWindow } from '../ops/authorize.js';
import { listAuthorizations, listTransactions } from '../ops/lists.js';
import { accountAuthorization, accountCard } from '../ops/queries.js';
import { revokeWindow } from '../ops/revoke.js';
import type { Account } from '../ledger/state.js';
import { enrollmentRoute } from './enrollment-route.js';
import { deviceRoute } from './guards.js';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from './pagination.js';
import type { SandboxContext } from './sandbox-context.js';
import { authorizationView, cardView, transactionDetailView, transactionView, walletView } from './views.js';
import { AUTHORIZATION_STATUSES } from '../../core/model.js';
import { TRANSACTION_STATUSES } from '../../operations/read-model.js';

const ID_TEXT = { maxLength: 80, pattern: LOOKUP_ID_SHAPE, describe: 'an id like card_...' } as const;
const JWS_RULES = { jws: str({ required: true, maxLength: 16_384 }) };

/** cloudRoutes returns the `/v1` route table of the cloud API. */
export function cloudRoutes(sandbox: SandboxContext): Route[] {
  const route = (method: Route['method'], pattern: string, handler: Route['handler']): Route => ({ method, pattern, access: 'public', handler });
  return [
    route('GET', '/v1/cards', deviceRoute(sandbox, false, (txn, device) => {
      const cards = [...txn.state.cards.values()].filter((card) => card.account_id === device.account_id);
      return { status: 200, body: { cards: cards.map((card) => cardView(txn.state, card, txn.now)), has_more: false } };
    })),
    route('GET', '/v1/cards/:card_id', deviceRoute(sandbox, false, (txn, device, context) => {
      const card = accountCard(txn.state, device.account_id, context.params['card_id'] as string);
      return { status: 200, body: cardView(txn.state, card, txn.now) };
    })),
    route('POST', '/v1/authorizations', deviceRoute(sandbox, true, (txn, device, context) => {
      const { jws } = validateBody(context.body, JWS_RULES);
      const authorization = createWindow(txn, device.account_id, jws, 'card_policy_window', sandbox.limits);
      return { status: 201, body: authorizationView(authorization, txn.now) };
    })),
    route('GET', '/v1/authorizations', deviceRoute(sandbox, false, (txn, device, context) => {
      const query = validateQuery(context.query, {
        limit: int({ min: 1, max: PAGE_LIMIT_MAX, default: PAGE_LIMIT_DEFAULT }),
        starting_after: str(ID_TEXT),
        card_id: str(ID_TEXT),
        status: oneOf(AUTHORIZATION_STATUSES),
      });
      const { page, hasMore } = listAuthorizations(txn.state, device.account_id, { limit: query.limit, startingAfter: query.starting_after, cardId: query.card_id, status: query.status });
      return { status: 200, body: { authorizations: page.map((a) => authorizationView(a, txn.now)), has_more: hasMore } };
    })),
    route('GET', '/v1/authorizations/:policy_id', deviceRoute(sandbox, false, (txn, device, context) => {
      const authorization = accountAuthorization(txn.state, device.account_id, context.params['policy_id'] as string);
      return { status: 200, body: authorizationView(authorization, txn.now) };
    })),
    route('POST', '/v1/authorizations/:policy_id/revoke', deviceRoute(sandbox, true, (txn, device, context) => {
      const { jws } = validateBody(context.body, JWS_RULES);
      const authorization = revokeWindow(txn, device.account_id, context.params['policy_id'] as string, jws);
      return { status: 200, body: authorizationView(authorization, txn.now) };
    })),
    route('POST', '/v1/policy-windows', deviceRoute(sandbox, true, (txn, device, context) => {
      const { jws } = validateBody(context.body, JWS_RULES);
      const authorization = createWindow(txn, device.account_id, jws, 'policy_window', sandbox.limits);
      return { status: 201, body: authorizationView(authorization, txn.now) };
    })),
    route('GET', '/v1/wallet', deviceRoute(sandbox, false, (txn, device) => {
      return { status: 200, body: walletView(txn.state.accounts.get(device.account_id) as Account) };
    })),
    route('POST', '/v1/wallet/allocate', deviceRoute(sandbox, true, (txn, device, context) => {
      const input = validateBody(context.body, { card_id: str({ required: true, ...ID_TEXT }), amount: amount({ required: true, maxMinor: WALLET_MINOR_MAX }) });
      const card = allocate(txn, device.account_id, input.card_id, input.amount);
      return { status: 200, body: { card_id: card.card_id, allocated: formatMinor(input.amount), new_balance: formatMinor(card.balance) } };
    })),
    route('GET', '/v1/transactions', deviceRoute(sandbox, false, (txn, device, context) => {
      const query = validateQuery(context.query, {
        limit: int({ min: 1, max: PAGE_LIMIT_MAX, default: PAGE_LIMIT_DEFAULT }),
        starting_after: str(ID_TEXT),
        card_id: str(ID_TEXT),
        status: oneOf(TRANSACTION_STATUSES),
      });
      const { page, hasMore } = listTransactions(txn.state, device.account_id, { limit: query.limit, startingAfter: query.starting_after, cardId: query.card_id, status: query.status });
      return { status: 200, body: { transactions: page.map(transactionView), has_more: hasMore } };
    })),
    route('GET', '/v1/transactions/:tx_id', deviceRoute(sandbox, false, (txn, device, context) => {
      const transaction = txn.state.transactions.get(context.params['tx_id'] as string);
      if (transaction === undefined || transaction.account_id !== device.account_id) throw new LatchError('transaction_not_found');
      return { status: 200, body: transactionDetailView(txn.state, transaction) };
    })),
    route('POST', '/v1/devices', enrollmentRoute(sandbox)),
  ];
}
