/**
 * Variant A's routes other than /health: each handler validates the wire shape, calls one core
 * operation, and maps the result back. No business rule lives here.
 */
import { authorize, createRecurring, merchantBind, signAccountPolicyWindow, signCardPolicyWindow, type OneTimeInput } from '../core/authorizations.js';
import type { CoreDeps } from '../core/core-deps.js';
import { signRevocation } from '../core/revocation.js';
import type { CloudClient } from '../cloud/cloud-client.js';
import type { Route } from '../http/route.js';
import { signingProxyRoute } from '../proxy/signing-proxy.js';
import { validateBody, type Validated } from '../validate/schema.js';
import { ok, operationContext } from '../variant-common/operation-context.js';
import { readRoutes } from '../variant-common/read-routes.js';
import { accountWindowRules, authorizeRules, checkRecurringSchedule, merchantBindRules, recurringRules, revocationRules } from './requests.js';
import { allocationA, authorizationA, cardDetailA, cardSummaryA, transactionA, walletA } from './shapes.js';

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
    ...readRoutes(deps, {
      cardList: (cards) => ({ cards: cards.map(cardSummaryA) }),
      cardDetail: cardDetailA,
      transactionList: (page) => ({ transactions: page.transactions.map(transactionA), has_more: page.hasMore }),
      transactionDetail: transactionA,
      wallet: walletA,
      allocation: allocationA,
    }),
    signingProxyRoute(cloud),
  ];
}
