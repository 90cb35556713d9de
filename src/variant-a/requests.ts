/** Variant A request bodies and queries: rules, defaults and bounds (docs/decisions.md §4, docs/decisions.md §5, §13). */
import { AUTHORIZATION_AMOUNT_MAX_MINOR } from '../money/amount.js';
import { LatchError } from '../errors/latch-error.js';
import { amount, int, oneOf, parsedStr, str } from '../validate/schema.js';
import { approvalIdField, cardIdField, currencyField, merchantField, policyIdField } from '../requests/common-fields.js';
import { parseIsoSeconds } from '../time/iso-time.js';
import { APPROVAL_WAIT_SECONDS_MAX } from '../core/approvals.js';

/** Merchant verification: at most 1.00 (docs/decisions.md §13); the cloud enforces the cap too. */
export const VERIFICATION_AMOUNT_MAX_MINOR = 100;

/** The caller's purpose: an order id or a note, at most 200 printable characters, signed with the window. */
const reference = () => str({ maxLength: 200 });
const ttlMinutes = (defaultMinutes: number) => int({ min: 1, max: 1440, default: defaultMinutes });
const authorizationType = (fallback: 'exact' | 'ceiling') => oneOf(['exact', 'ceiling'] as const, { default: fallback });
const isoTime = () =>
  parsedStr((text: string, param: string) => {
    const seconds = parseIsoSeconds(text);
    if (seconds === undefined) throw new LatchError('invalid_request', { param, message: `${param} must be an ISO 8601 time with a zone, like 2026-12-01T00:00:00Z.` });
    return seconds;
  });

export const authorizeRules = {
  card_id: cardIdField(),
  amount: amount({ required: true, maxMinor: AUTHORIZATION_AMOUNT_MAX_MINOR }),
  merchant_name: merchantField(),
  currency: currencyField(),
  authorization_type: authorizationType('exact'),
  ttl_minutes: ttlMinutes(30),
  reference: reference(),
};

export const accountWindowRules = {
  amount: amount({ required: true, maxMinor: AUTHORIZATION_AMOUNT_MAX_MINOR }),
  merchant_name: merchantField(),
  currency: currencyField(),
  authorization_type: authorizationType('exact'),
  ttl_minutes: ttlMinutes(30),
};

export const merchantBindRules = {
  card_id: cardIdField(),
  merchant_name: merchantField(),
  amount: amount({ allowZero: true, maxMinor: VERIFICATION_AMOUNT_MAX_MINOR, default: 0 }),
  currency: currencyField(),
  ttl_minutes: ttlMinutes(10),
  reference: reference(),
};

export const recurringRules = {
  card_id: cardIdField(),
  merchant_name: merchantField(),
  amount: amount({ required: true, maxMinor: AUTHORIZATION_AMOUNT_MAX_MINOR }),
  currency: currencyField(),
  authorization_type: authorizationType('ceiling'),
  interval: oneOf(['day', 'week', 'month', 'year'] as const, { required: true }),
  interval_count: int({ min: 1, max: 365, default: 1 }),
  starts_at: isoTime(),
  ends_at: isoTime(),
  max_charges: int({ min: 1, max: 1000 }),
  reference: reference(),
};

export const revocationRules = {
  policy_id: policyIdField(),
  reason: str({ maxLength: 200 }),
};

/**
 * Looking up one approval: the id (the path of GET /approvals/:approval_id) and how long to hold
 * on for the owner's decision (its `Prefer: wait=N` header, 0 to 60 seconds).
 */
export const approvalLookupRules = {
  approval_id: approvalIdField(),
  wait_seconds: int({ min: 0, max: APPROVAL_WAIT_SECONDS_MAX }),
};

export { transactionQueryRules } from '../variant-common/read-routes.js';
export { allocateRules } from '../variant-common/wallet-allocation.js';
