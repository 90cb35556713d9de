/**
 * Variant A's routes other than /health: each handler validates the wire shape, calls one core
 * operation, and maps the result back. No business rule lives here.
 */
import { authorize, createRecurring, merchantBind, signAccountPolicyWindow, signCardPolicyWindow, type OneTimeInput } from '../core/authorizations.js';
import type { CoreDeps, OperationContext } from '../core/core-deps.js';
import { allocate, getCard, getTransaction, getWallet, listCards, listTransactions } from '../core/reads.js';
import { signRevocation } from '../core/revocation.js';
import type { CloudClient } from '../cloud/cloud-client.js';
import { readIdempotencyKey } from '../http/idempotency-key.js';
import type { RequestContext, Route } from '../http/route.js';
import { signingProxyRoute } from '../proxy/signing-proxy.js';
import { checkCardIdParam, checkTransactionIdParam } from '../requests/common-fields.js';
import { validateBody, validateQuery, type Validated } from '../validate/schema.js';
import {
  accountWindowRules,
  allocateRules,
  authorizeRules,
  checkRecurringSchedule,
  merchantBindRules,
  recurringRules,
  revocationRules,
  transactionQueryRules,
} from './requests.js';
import { allocationA, authorizationA, cardDetailA, cardSummaryA, transactionA, walletA } from './shapes.js';

/** operationContext is what the core needs to know about the local request. */
export function operationContext(request: RequestContext): OperationContext {
  return {
    caller: { requestId: request.requestId, userAgent: request.userAgent },
    idempotencyKey: readIdempotencyKey(request.headers),
    signal: request.signal,
  };
}

const ok = (body: unknown) => ({ status: 200, body });

/** oneTimeInput maps A's validated /authorize fields (also /sign-*-policy-window) to the core's input. */
function oneTimeInput(input: Validated<typeof authorizeRules>): OneTimeInput {
  return {
    cardId: input.card_id,
    merchant: input.merchant_name,
    amountMinor: input.amount,
    currency: input.currency,
    authorizationType: input.authorization_type,
    ttlSeconds: input.ttl_minutes * 60,
  };
}

/** variantAApiRoutes returns the A listener's routes after /health. */
export function variantAApiRoutes(deps: CoreDeps, cloud: () => CloudClient): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/cards',
      auth: 'token',
      handler: async (request) => {
        validateQuery(request.query, {});
        const cards = await listCards(deps, operationContext(request));
        return ok({ cards: cards.map(cardSummaryA) });
      },
    },
    {
      method: 'GET',
      pattern: '/cards/:card_id',
      auth: 'token',
      handler: async (request) => {
        validateQuery(request.query, {});
        const card = await getCard(deps, checkCardIdParam(request.params['card_id'] ?? ''), operationContext(request));
        return ok(cardDetailA(card));
      },
    },
    {
      method: 'POST',
      pattern: '/authorize',
      auth: 'token',
      handler: async (request) => {
        const input = validateBody(request.body, authorizeRules);
        const created = await authorize(deps, oneTimeInput(input), operationContext(request));
        return ok(authorizationA(created.authorization));
      },
    },
    {
      method: 'POST',
      pattern: '/merchant-bind',
      auth: 'token',
      handler: async (request) => {
        const input = validateBody(request.body, merchantBindRules);
        const created = await merchantBind(
          deps,
          { cardId: input.card_id, merchant: input.merchant_name, amountMinor: input.amount, currency: input.currency, ttlSeconds: input.ttl_minutes * 60 },
          operationContext(request),
        );
        return ok(authorizationA(created.authorization));
      },
    },
    {
      method: 'POST',
      pattern: '/recurring',
      auth: 'token',
      handler: async (request) => {
        const input = validateBody(request.body, recurringRules);
        checkRecurringSchedule(input.starts_at, input.ends_at, deps.nowSeconds());
        const created = await createRecurring(
          deps,
          {
            cardId: input.card_id,
            merchant: input.merchant_name,
            amountMinor: input.amount,
            currency: input.currency,
            authorizationType: input.authorization_type,
            interval: input.interval,
            intervalCount: input.interval_count,
            startsAt: input.starts_at ?? null,
            endsAt: input.ends_at ?? null,
            maxCharges: input.max_charges ?? null,
          },
          operationContext(request),
        );
        return ok(authorizationA(created.authorization));
      },
    },
    {
      method: 'POST',
      pattern: '/sign-card-policy-window',
      auth: 'token',
      handler: async (request) => {
        const input = validateBody(request.body, authorizeRules);
        const signed = await signCardPolicyWindow(deps, oneTimeInput(input), operationContext(request));
        return ok({ policy_window: signed.payload, jws: signed.jws, key_id: signed.keyId });
      },
    },
    {
      method: 'POST',
      pattern: '/sign-policy-window',
      auth: 'token',
      handler: async (request) => {
        const input = validateBody(request.body, accountWindowRules);
        const { cardId: _none, ...terms } = oneTimeInput({ ...input, card_id: '' });
        const signed = await signAccountPolicyWindow(deps, terms, operationContext(request));
        return ok({ policy_window: signed.payload, jws: signed.jws, key_id: signed.keyId });
      },
    },
    {
      method: 'POST',
      pattern: '/sign-revocation',
      auth: 'token',
      handler: async (request) => {
        const input = validateBody(request.body, revocationRules);
        const signed = await signRevocation(deps, input.policy_id, input.reason, operationContext(request));
        return ok({ revocation: signed.payload, jws: signed.jws, key_id: signed.keyId });
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
        return ok({ transactions: page.transactions.map(transactionA), has_more: page.hasMore });
      },
    },
    {
      method: 'GET',
      pattern: '/transactions/:tx_id',
      auth: 'token',
      handler: async (request) => {
        validateQuery(request.query, {});
        const transaction = await getTransaction(deps, checkTransactionIdParam(request.params['tx_id'] ?? ''), operationContext(request));
        return ok(transactionA({ ...transaction, policyWindow: transaction.policyWindow ?? null }));
      },
    },
    {
      method: 'GET',
      pattern: '/wallet/balance',
      auth: 'token',
      handler: async (request) => {
        validateQuery(request.query, {});
        return ok(walletA(await getWallet(deps, operationContext(request))));
      },
    },
    {
      method: 'POST',
      pattern: '/wallet/allocate',
      auth: 'token',
      handler: async (request) => {
        const input = validateBody(request.body, allocateRules);
        return ok(allocationA(await allocate(deps, input.card_id, input.amount, operationContext(request))));
      },
    },
    signingProxyRoute(cloud),
  ];
}
