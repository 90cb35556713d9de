/**
 * The request bodies and queries of the local API in Variant A's vocabulary: rules, defaults and
 * bounds (docs/decisions.md §4, §5, §13). The routes validate with them and the MCP tools' input
 * schemas are built from them, so the two cannot disagree; Variant B shares allocation and the
 * transaction query.
 */
import { AUTHORIZATION_AMOUNT_MAX_MINOR } from '../money/amount.js';
import { LatchError } from '../errors/latch-error.js';
import { amount, int, oneOf, parsedStr, str } from '../validate/schema.js';
import { approvalIdField, cardIdField, currencyField, merchantField, policyIdField } from './common-fields.js';
import { parseIsoSeconds } from '../time/iso-time.js';
import { CARD_ID_PATTERN, TRANSACTION_ID_PATTERN, wireIdWords } from '../ids/wire-ids.js';
import { AUTHORIZATION_TYPES, RECURRING_INTERVALS, type AuthorizationType } from '../core/model.js';
import { TRANSACTION_STATUSES } from '../operations/read-model.js';
import { APPROVAL_WAIT_SECONDS_MAX } from '../core/approvals.js';
import { TTL_MINUTES_MAX, TTL_MINUTES_MIN } from '../validate/ttl.js';

/** Merchant verification: at most 1.00 (docs/decisions.md §13); the cloud enforces the cap too. */
export const VERIFICATION_AMOUNT_MAX_MINOR = 100;

/** The caller's purpose: an order id or a note, at most 200 printable characters, signed with the window. */
const reference = () => str({ maxLength: 200 });
const ttlMinutes = (defaultMinutes: number) => int({ min: TTL_MINUTES_MIN, max: TTL_MINUTES_MAX, default: defaultMinutes });
const authorizationType = (fallback: AuthorizationType) => oneOf(AUTHORIZATION_TYPES, { default: fallback });
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
  interval: oneOf(RECURRING_INTERVALS, { required: true }),
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
  status: oneOf(TRANSACTION_STATUSES),
};
