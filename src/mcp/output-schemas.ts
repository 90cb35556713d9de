/**
 * The outputSchema of every MCP tool: the JSON Schema of the Variant A object the tool returns as
 * structuredContent (src/variant-a/shapes.ts writes those objects). Objects list their required
 * fields and leave room for fields a newer daemon or cloud adds (v1 changes are additive).
 * test/mcp/output-schemas.test.ts checks the shapes' real output against these, and the stdio
 * test checks every tool's real result, so the two cannot drift apart.
 */

import { AUTHORIZATION_TYPES } from '../core/model.js';
import { CARD_STATUSES, TRANSACTION_STATUSES } from '../operations/read-model.js';
import { APPROVAL_STATUSES } from '../core/approval.js';

/** The JSON Schema keywords the output schemas use. */
export interface OutputSchema {
  readonly type: string | readonly string[];
  readonly properties?: Readonly<Record<string, OutputSchema>>;
  readonly required?: readonly string[];
  readonly items?: OutputSchema;
  readonly enum?: readonly (string | null)[];
  readonly pattern?: string;
  /** The value conforms to at least one of these (a tool whose result is one of two objects). */
  readonly anyOf?: readonly OutputSchema[];
}

const text: OutputSchema = { type: 'string' };
const textOrNull: OutputSchema = { type: ['string', 'null'] };
const integer: OutputSchema = { type: 'integer' };
const MONEY_PATTERN = '^(0|[1-9][0-9]*)\\.[0-9]{2}$';
const money: OutputSchema = { type: 'string', pattern: MONEY_PATTERN };
const moneyOrNull: OutputSchema = { type: ['string', 'null'], pattern: MONEY_PATTERN };
const time: OutputSchema = { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' };
const timeOrNull: OutputSchema = { ...time, type: ['string', 'null'] };

/** object is a JSON object whose listed fields are all present unless named in `optional`. */
function object(properties: Record<string, OutputSchema>, optional: readonly string[] = []): OutputSchema {
  return { type: 'object', properties, required: Object.keys(properties).filter((name) => !optional.includes(name)) };
}

const nullable = (schema: OutputSchema): OutputSchema => ({ ...schema, type: [schema.type as string, 'null'] });

const signingKey = object({ key_id: text, algorithm: { type: 'string', enum: ['Ed25519'] }, public_key: text });
const health = object({ status: { type: 'string', enum: ['ok'] }, version: text, uptime_seconds: integer, signing_key: nullable(signingKey) });

const cardFields = {
  card_id: text,
  label: text,
  last4: text,
  status: { type: 'string', enum: CARD_STATUSES },
  balance: money,
  available: moneyOrNull,
  held: moneyOrNull,
  currency: text,
};
const card = object(cardFields);
const cardDetail = object({ ...cardFields, daily_limit: money, daily_spent: money });

const authorizationFields = {
  policy_id: text,
  authorization_id: text,
  card_id: textOrNull,
  merchant_name: text,
  amount: money,
  currency: text,
  authorization_type: { type: 'string', enum: AUTHORIZATION_TYPES },
  kind: text,
  expires_at: time,
  status: text,
  created_at: time,
  transaction_id: textOrNull,
  interval: text,
  interval_count: integer,
  max_charges: { type: ['integer', 'null'] },
  current_period_start: timeOrNull,
  current_period_end: timeOrNull,
} satisfies Record<string, OutputSchema>;
const recurringOnly = ['interval', 'interval_count', 'max_charges', 'current_period_start', 'current_period_end'];
const authorization = object(authorizationFields, recurringOnly);
/** An authorization with the caller that asked for it (`owner` or the agent's name), as /authorizations answers. */
const ownedAuthorization = object({ ...authorizationFields, agent: text }, recurringOnly);

/** What POST /ap2/mandates answers (docs/ap2.md): the card window's id and the two open mandates. */
/** An x402 authorization (POST /x402/authorize, docs/x402.md). */
const x402Authorization = object(
  {
    authorization_id: text,
    kind: text,
    status: text,
    scheme: text,
    network: text,
    asset: text,
    symbol: text,
    pay_to: text,
    amount_max: text,
    amount: money,
    currency: text,
    merchant_name: text,
    expires_at: time,
    receipt: textOrNull,
  },
  ['receipt'],
);
const ap2Mandates = object({
  policy_id: text,
  mandate_id: text,
  open_checkout_mandate: text,
  open_payment_mandate: text,
  open_checkout_hash: text,
  key_id: text,
  expires_at: time,
});

/** The approval object (docs/decisions.md §15.4): the exact request held for the owner, and its decision. */
const approval = object(
  {
    approval_id: text,
    status: { type: 'string', enum: APPROVAL_STATUSES },
    agent: text,
    request: object(
      {
        kind: text,
        card_id: textOrNull,
        merchant_name: text,
        amount: money,
        currency: text,
        authorization_type: { type: 'string', enum: AUTHORIZATION_TYPES },
        ttl_seconds: integer,
        interval: text,
        interval_count: integer,
        starts_at: timeOrNull,
        ends_at: timeOrNull,
        max_charges: { type: ['integer', 'null'] },
      },
      ['ttl_seconds', 'interval', 'interval_count', 'starts_at', 'ends_at', 'max_charges'],
    ),
    request_sha256: text,
    rule: textOrNull,
    reasons: { type: 'array', items: text },
    created_at: time,
    expires_at: time,
    decided_at: timeOrNull,
    authorization,
    ap2_mandates: ap2Mandates,
    reason: textOrNull,
    error: { type: ['object', 'null'] },
  },
  ['authorization', 'ap2_mandates', 'reason', 'error'],
);

/**
 * What a tool that the owner's policy may hold returns: the authorization, or the pending approval
 * when the policy asked the owner (not an error: the agent is told to wait, not to retry).
 */
const authorizationOrApproval = (created: OutputSchema): OutputSchema => ({ type: 'object', anyOf: [created, approval] });

const transactionFields = {
  id: text,
  card_id: text,
  amount: money,
  currency: text,
  merchant: text,
  status: { type: 'string', enum: TRANSACTION_STATUSES },
  created_at: time,
  policy_id: textOrNull,
  decline_code: text,
};
const transaction = object(transactionFields, ['decline_code']);
const policyWindow = object({
  policy_id: text,
  card_id: textOrNull,
  merchant: text,
  amount: money,
  currency: text,
  authorization_type: { type: 'string', enum: AUTHORIZATION_TYPES },
  not_before: time,
  not_after: time,
  key_id: text,
  jws: text,
});
const transactionDetail = object({ ...transactionFields, policy_window: nullable(policyWindow) }, ['decline_code']);

/** The outputSchema of each tool, by tool name. */
export const OUTPUT_SCHEMAS = {
  latch_health: health,
  latch_list_cards: object({ cards: { type: 'array', items: card } }),
  latch_get_card: cardDetail,
  latch_authorize: authorizationOrApproval(authorization),
  latch_merchant_bind: authorizationOrApproval(authorization),
  latch_recurring: authorizationOrApproval(authorization),
  latch_ap2_mandate: authorizationOrApproval(ap2Mandates),
  latch_x402_authorize: authorizationOrApproval(x402Authorization),
  latch_get_approval: approval,
  latch_revoke: ownedAuthorization,
  latch_wallet_balance: object({ usdt: money, allocated: money, available: money }),
  latch_allocate: object({ card_id: text, allocated: money, new_balance: money }),
  latch_list_transactions: object({ transactions: { type: 'array', items: transaction }, has_more: { type: 'boolean' } }),
  latch_get_transaction: transactionDetail,
  latch_sign_web_request: object({
    headers: object({ 'signature-input': text, signature: text, 'signature-agent': text }, ['signature-agent']),
    key_id: text,
    created: integer,
    expires: integer,
  }),
} as const satisfies Record<string, OutputSchema>;

export type ToolName = keyof typeof OUTPUT_SCHEMAS;
