/**
 * Scoped authorizations: sign a policy window with the device key and register it with the
 * cloud. /authorize, /merchant-bind and /recurring all come here; Variant B's /authorize too.
 */
import { cloudJson, errorFromCloud } from '../cloud/cloud-errors.js';
import { readAuthorization } from '../cloud/cloud-shapes.js';
import { utf8 } from '../crypto/base64url.js';
import { idempotencyKeyOf, type CoreDeps, type OperationContext } from './core-deps.js';
import type { Authorization, AuthorizationType, RecurringInterval } from './model.js';
import { buildWindowPayload, signPayload, type PolicyWindowPayload, type WindowTerms } from './policy-window.js';
import { requestFingerprint } from './signed-window-cache.js';

export interface OneTimeInput {
  cardId: string;
  merchant: string;
  amountMinor: number;
  currency: string;
  authorizationType: AuthorizationType;
  ttlSeconds: number;
}

export interface MerchantVerificationInput {
  cardId: string;
  merchant: string;
  amountMinor: number;
  currency: string;
  ttlSeconds: number;
}

export interface RecurringInput {
  cardId: string;
  merchant: string;
  amountMinor: number;
  currency: string;
  authorizationType: AuthorizationType;
  interval: RecurringInterval;
  intervalCount: number;
  startsAt: number | null;
  endsAt: number | null;
  maxCharges: number | null;
}

/** A recurring schedule without ends_at runs for one year. */
export const RECURRING_DEFAULT_SECONDS = 365 * 24 * 3600;

/** A signed window that has not been sent anywhere. */
export interface SignedWindow {
  payload: PolicyWindowPayload;
  jws: string;
  keyId: string;
}

/** oneTimeTerms gives the window terms of a one-time authorization starting now. */
export function oneTimeTerms(input: OneTimeInput, nowSeconds: number): WindowTerms {
  return {
    cardId: input.cardId,
    merchant: input.merchant,
    amountMinor: input.amountMinor,
    currency: input.currency,
    authorizationType: input.authorizationType,
    kind: 'one_time',
    notBefore: nowSeconds,
    notAfter: nowSeconds + input.ttlSeconds,
  };
}

function merchantVerificationTerms(input: MerchantVerificationInput, nowSeconds: number): WindowTerms {
  return {
    cardId: input.cardId,
    merchant: input.merchant,
    amountMinor: input.amountMinor,
    currency: input.currency,
    authorizationType: 'ceiling',
    kind: 'merchant_verification',
    notBefore: nowSeconds,
    notAfter: nowSeconds + input.ttlSeconds,
  };
}

function recurringTerms(input: RecurringInput, nowSeconds: number): WindowTerms {
  const notBefore = input.startsAt ?? nowSeconds;
  return {
    cardId: input.cardId,
    merchant: input.merchant,
    amountMinor: input.amountMinor,
    currency: input.currency,
    authorizationType: input.authorizationType,
    kind: 'recurring',
    notBefore,
    notAfter: input.endsAt ?? notBefore + RECURRING_DEFAULT_SECONDS,
    recurring: { interval: input.interval, intervalCount: input.intervalCount, maxCharges: input.maxCharges },
  };
}

/**
 * signWindow signs terms with the device key and writes the audit line before returning, so no
 * signature ever leaves the daemon unrecorded.
 */
export async function signWindow(deps: CoreDeps, terms: WindowTerms, operation: string, context: OperationContext): Promise<SignedWindow> {
  const { key, deviceId } = deps.device();
  const payload = buildWindowPayload(terms, deviceId, deps.nowSeconds());
  const jws = signPayload(payload, key);
  await deps.audit({
    operation,
    policyId: payload.policy_id,
    cardId: terms.cardId,
    merchant: terms.merchant,
    amountMinor: terms.amountMinor,
    currency: terms.currency,
    keyId: key.keyId,
    caller: context.caller,
  });
  return { payload, jws, keyId: key.keyId };
}

/** A registered authorization together with the window that was signed for it. */
export interface CreatedAuthorization {
  authorization: Authorization;
  window: SignedWindow;
}

async function register(deps: CoreDeps, path: string, signed: SignedWindow, context: OperationContext): Promise<CreatedAuthorization> {
  const response = await deps.cloud().send({
    method: 'POST',
    pathAndQuery: path,
    body: utf8(JSON.stringify({ jws: signed.jws })),
    contentType: 'application/json',
    idempotencyKey: idempotencyKeyOf(context),
    caller: context.caller,
    ...(context.signal !== undefined && { signal: context.signal }),
  });
  if (response.status !== 200 && response.status !== 201) throw errorFromCloud(response);
  return { authorization: readAuthorization(cloudJson(response)), window: signed };
}

/**
 * signForRegistration signs the window of a request to be registered. With a caller's
 * Idempotency-Key, a retry of the same request gets the window signed the first time, so the
 * cloud sees the same body under the same key and replays its first answer (decisions §9).
 */
function signForRegistration(deps: CoreDeps, operation: string, input: object, terms: () => WindowTerms, context: OperationContext): Promise<SignedWindow> {
  const sign = () => signWindow(deps, terms(), operation, context);
  const cache = deps.signedWindows;
  if (cache === undefined || context.idempotencyKey === undefined) return sign();
  const scope = deps.device().key.keyId;
  return cache.signOnce(scope, context.idempotencyKey, requestFingerprint(operation, input), deps.nowSeconds(), sign);
}

/** authorize creates a one-time scoped authorization (POST /authorize on A and B). */
export async function authorize(deps: CoreDeps, input: OneTimeInput, context: OperationContext): Promise<CreatedAuthorization> {
  const signed = await signForRegistration(deps, 'authorize', input, () => oneTimeTerms(input, deps.nowSeconds()), context);
  return register(deps, '/v1/authorizations', signed, context);
}

/** merchantBind creates a server-capped merchant-verification authorization. */
export async function merchantBind(deps: CoreDeps, input: MerchantVerificationInput, context: OperationContext): Promise<CreatedAuthorization> {
  const signed = await signForRegistration(deps, 'merchant_bind', input, () => merchantVerificationTerms(input, deps.nowSeconds()), context);
  return register(deps, '/v1/authorizations', signed, context);
}

/** createRecurring creates a recurring authorization: at most one approved charge per period. */
export async function createRecurring(deps: CoreDeps, input: RecurringInput, context: OperationContext): Promise<CreatedAuthorization> {
  const signed = await signForRegistration(deps, 'recurring', input, () => recurringTerms(input, deps.nowSeconds()), context);
  return register(deps, '/v1/authorizations', signed, context);
}

/** signCardPolicyWindow signs what /authorize would, and contacts nobody. */
export function signCardPolicyWindow(deps: CoreDeps, input: OneTimeInput, context: OperationContext): Promise<SignedWindow> {
  return signWindow(deps, oneTimeTerms(input, deps.nowSeconds()), 'sign_card_policy_window', context);
}

/** signAccountPolicyWindow signs an account-wide window (no card), and contacts nobody. */
export function signAccountPolicyWindow(deps: CoreDeps, input: Omit<OneTimeInput, 'cardId'>, context: OperationContext): Promise<SignedWindow> {
  const terms: WindowTerms = { ...oneTimeTerms({ ...input, cardId: '' }, deps.nowSeconds()), cardId: null };
  return signWindow(deps, terms, 'sign_policy_window', context);
}
