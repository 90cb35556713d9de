/**
 * The Variant A wire shapes (docs/decisions.md §4) as the client returns them, and the request bodies it
 * sends. Money is always decimal text with the currency's decimals ("12.50"), times are ISO 8601
 * UTC; field names are the wire names, so the API reference applies unchanged.
 */
import type { AuthorizationKind, AuthorizationType, RecurringInterval, X402State } from '../core/model.js';
import type { TransactionStatus } from '../operations/read-model.js';
import type { ApprovalStatus } from '../core/approval.js';

export type { TransactionStatus } from '../operations/read-model.js';

/** An amount in a request: decimal text ("12.50", exact) or a JSON number (sent as JavaScript prints it). */
export type AmountInput = string | number;

/** The device key's public material, as /health reports it. */
export interface SigningKeyInfo {
  key_id: string;
  algorithm: 'Ed25519';
  public_key: string;
}

/** GET /health: local availability only; signing_key is null before enrollment. */
export interface Health {
  status: 'ok';
  version: string;
  uptime_seconds: number;
  signing_key: SigningKeyInfo | null;
  /** The owner's emergency brake (`latch pause`): since when and why, or null (absent from older daemons). */
  /** Whether the owner paused signing, since when; the owner's note (`reason`) is not shown on the public /health. */
  paused?: { since: string; reason?: string | null } | null;
  /** How far the cloud's clock runs ahead of this device's, as the daemon last saw it (absent from older daemons). */
  cloud_clock_skew_seconds?: number | null;
  /** The configured presence factors: `none`, `passphrase`, ... (absent from older daemons; docs/decisions.md §21). */
  owner_presence?: string;
  /** How many seconds approving stays locked after wrong passphrases; 0 when it is not (absent from older daemons). */
  approvals_locked_seconds?: number;
}

/** A card in GET /cards: safe metadata only, never a card number. */
export interface Card {
  card_id: string;
  label: string;
  last4: string;
  status: string;
  balance: string;
  /** What new authorizations may still take: balance minus held; null when the cloud does not report holds. */
  available: string | null;
  /** What active authorizations hold on the card; null when the cloud does not report holds. */
  held: string | null;
  currency: string;
}

/** GET /cards/:card_id adds the daily limit and what was spent today. */
export interface CardDetail extends Card {
  daily_limit: string;
  daily_spent: string;
}

/** GET /cards. */
export interface CardList {
  cards: Card[];
}

/** A scoped authorization (from /authorize, /merchant-bind, /recurring, or a revocation). */
export interface Authorization {
  policy_id: string;
  authorization_id: string;
  card_id: string | null;
  merchant_name: string;
  amount: string;
  currency: string;
  authorization_type: AuthorizationType;
  kind: AuthorizationKind | (string & {});
  expires_at: string;
  status: string;
  created_at: string;
  transaction_id: string | null;
  interval?: string;
  interval_count?: number;
  max_charges?: number | null;
  current_period_start?: string | null;
  current_period_end?: string | null;
}

/** The signed window a transaction was made under. */
export interface PolicyWindowView {
  policy_id: string;
  card_id: string | null;
  merchant: string;
  amount: string;
  currency: string;
  authorization_type: string;
  not_before: string;
  not_after: string;
  key_id: string;
  jws: string;
}

/** A transaction; decline_code is present on declines. */
export interface Transaction {
  id: string;
  card_id: string;
  amount: string;
  currency: string;
  merchant: string;
  status: string;
  created_at: string;
  policy_id: string | null;
  decline_code?: string;
}

/** GET /transactions/:tx_id adds the signed window the transaction was made under. */
export interface TransactionDetail extends Transaction {
  policy_window: PolicyWindowView | null;
}

/** GET /transactions: newest first; page on with starting_after. */
export interface TransactionPage {
  transactions: Transaction[];
  has_more: boolean;
}

/** GET /wallet/balance, in USDT. */
export interface Wallet {
  usdt: string;
  allocated: string;
  available: string;
}

/** POST /wallet/allocate: what moved and the card's new balance. */
export interface Allocation {
  card_id: string;
  allocated: string;
  new_balance: string;
}

/** /sign-policy-window and /sign-card-policy-window: the payload, its JWS and the key id. */
export interface SignedPolicyWindow {
  policy_window: Record<string, unknown>;
  jws: string;
  key_id: string;
}

export interface SignedRevocation {
  revocation: Record<string, unknown>;
  jws: string;
  key_id: string;
}

/** POST /authorize and /sign-card-policy-window. */
export interface AuthorizeInput {
  card_id: string;
  amount: AmountInput;
  merchant_name: string;
  currency?: string;
  authorization_type?: AuthorizationType;
  ttl_minutes?: number;
  /** What the payment is for (order id or note, at most 200 printable characters); signed with the window. */
  reference?: string;
}

/** POST /ap2/mandates (docs/ap2.md): an agent's AP2 open mandates, bound to its P-256 public key. */
export interface Ap2MandateInput {
  card_id: string;
  merchant: { name: string; website: string; id?: string };
  amount_max: AmountInput;
  currency?: string;
  items: { id: string; title: string; quantity?: number; alternatives?: { id: string; title: string }[] }[];
  ttl_minutes?: number;
  /** AP2's human-not-present recurrence: with it, budget (the total) is required. */
  recurrence?: { frequency: 'DAILY' | 'WEEKLY' | 'BIWEEKLY' | 'MONTHLY' | 'QUARTERLY' | 'ANNUALLY'; max_occurrences?: number };
  budget?: AmountInput;
  /** The agent's public JWK {kty: EC, crv: P-256, x, y}; never one with d. */
  agent_key: { kty: string; crv: string; x: string; y: string; [member: string]: unknown };
}

/** What POST /ap2/mandates answers with 201 (and an approved approval in `ap2_mandates`). */
export interface Ap2Mandates {
  policy_id: string;
  mandate_id: string;
  open_checkout_mandate: string;
  open_payment_mandate: string;
  open_checkout_hash: string;
  key_id: string;
  expires_at: string;
}

/** POST /sign-policy-window: a window not bound to a card. */
export type AccountWindowInput = Omit<AuthorizeInput, 'card_id'>;

/** POST /merchant-bind: amount defaults to 0, ttl to 10 minutes. */
export interface MerchantBindInput {
  card_id: string;
  merchant_name: string;
  amount?: AmountInput;
  currency?: string;
  ttl_minutes?: number;
  /** What the payment is for (order id or note, at most 200 printable characters); signed with the window. */
  reference?: string;
}

/** POST /recurring. */
export interface RecurringInput {
  card_id: string;
  merchant_name: string;
  amount: AmountInput;
  interval: RecurringInterval;
  interval_count?: number;
  currency?: string;
  authorization_type?: AuthorizationType;
  starts_at?: string;
  ends_at?: string;
  max_charges?: number;
  /** What the payment is for (order id or note, at most 200 printable characters); signed with the window. */
  reference?: string;
}

/** POST /sign-revocation. */
export interface RevocationInput {
  policy_id: string;
  reason?: string;
}

/** POST /wallet/allocate. */
export interface AllocateInput {
  card_id: string;
  amount: AmountInput;
}

/** GET /transactions query. */
export interface TransactionQuery {
  limit?: number;
  starting_after?: string;
  card_id?: string;
  status?: TransactionStatus;
}

/** Options of a money-moving POST. */
export interface WriteOptions {
  /** Sent as Idempotency-Key; one is made per call when absent, so the call can be retried safely with it. */
  idempotencyKey?: string;
}

/** Options of GET /approvals/:approval_id. */
export interface ApprovalOptions {
  /** Sent as `Prefer: wait=N` (1..60): the daemon holds its answer up to N seconds for the decision; 0 or absent answers at once. */
  waitSeconds?: number;
}

/** Options of a POST that the owner may have to approve first. */
export interface AuthorizeOptions extends WriteOptions {
  /**
   * Sent as `Prefer: wait=N` (1..60): the daemon holds its answer up to N seconds for the owner's
   * decision, so the call returns the authorization, fails with approval_denied, or still returns
   * the pending approval when the time is up.
   */
  waitSeconds?: number;
}

/** An authorization with the caller that asked for it: GET /authorizations and revoke() answer these. */
export type OwnedAuthorization = Authorization & { agent: string };

/** An answer of the raw /v1/* proxy. */
export interface ProxyAnswer {
  status: number;
  body: unknown;
}

/**
 * POST /policy/check: the body of the kind's route plus `kind` (default one_time) and, for the
 * owner only, `agent`, the name the check is for.
 */
export type PolicyCheckInput =
  | ({ kind?: 'one_time' } & AuthorizeInput & { agent?: string })
  | ({ kind: 'merchant_verification' } & MerchantBindInput & { agent?: string })
  | ({ kind: 'recurring' } & RecurringInput & { agent?: string })
  | ({ kind: 'ap2_mandate' } & Ap2MandateInput & { agent?: string });

/** What the spending policy would decide: nothing is signed, reserved or recorded. */
export interface PolicyCheck {
  decision: 'allow' | 'ask' | 'deny';
  /** The rule or limit that decided: an id from policy.json, `default` or `new_merchant`. */
  rule: string;
  reasons: string[];
  /** Every budget whose scope covers the request; amounts as decimal strings. */
  budgets: Array<{ id: string; limit: string; exposure: string; remaining: string }>;
}

/** GET /policy: the effective policy in policy.json's shape, its SHA-256 and where it came from. */
export interface PolicyView {
  policy: Record<string, unknown>;
  sha256: string;
  source: 'file' | 'default';
}

/** Where an approval stands (docs/decisions.md §15.4): waiting, decided by the owner, timed out, or refused by the cloud after approval. */
export type { ApprovalStatus };

/**
 * The exact request an approval holds, in the wire names of the POST it came from (card_id,
 * merchant_name, amount, currency, authorization_type, kind, ttl_minutes, recurring terms). Nothing
 * of it can be changed by the approver; fields a newer daemon adds are kept, so the CLI can show them.
 */
export interface ApprovalRequest {
  kind?: string;
  card_id?: string | null;
  card_label?: string;
  merchant_name?: string;
  amount?: string;
  currency?: string;
  authorization_type?: AuthorizationType | (string & {});
  /** How long the authorization is valid from the moment of approval (one-time and merchant verification). */
  ttl_seconds?: number;
  interval?: string;
  interval_count?: number;
  starts_at?: string | null;
  ends_at?: string | null;
  max_charges?: number | null;
  [field: string]: unknown;
}

/** An approval `ap_…`: the request a policy rule of `ask` held back for the owner, and what became of it. */
export interface Approval {
  approval_id: string;
  status: ApprovalStatus | (string & {});
  /** Who asked: 'owner' or the agent's name. */
  agent: string;
  request: ApprovalRequest;
  /** The policy rule whose decision was `ask`. */
  rule: string | null;
  /** Why the rule asked, in words. */
  reasons: string[];
  /** The SHA-256 of the exact request, as the audit log's approval lines carry it. */
  request_sha256?: string;
  created_at: string;
  expires_at: string;
  decided_at?: string | null;
  /** When approved: the authorization that was created. */
  authorization?: Authorization | null;
  /** When denied: the owner's reason, if one was given. */
  reason?: string | null;
  /** When failed: the cloud's error. */
  error?: { code: string; message?: string } | null;
}

/** The 202 answer of /authorize, /merchant-bind and /recurring when the owner must approve first. */
export interface PendingApproval extends Approval {
  status: 'pending_approval';
}

/** GET /approvals: newest first; page on with starting_after. */
export interface ApprovalList {
  approvals: Approval[];
  has_more: boolean;
}

/** GET /approvals query. */
export interface ApprovalQuery {
  status?: ApprovalStatus;
  limit?: number;
  starting_after?: string;
}

/** POST /approvals/:approval_id/approve: the passphrase, when the owner has set one. */
export interface ApproveInput {
  passphrase?: string;
}

/** POST /approvals/:approval_id/deny: an optional reason the agent is told. */
export interface DenyInput {
  reason?: string;
}

/** POST /web-bot-auth/sign: a request the agent is about to send (docs/agent-identity.md). */
export interface SignWebRequestInput {
  method: string;
  url: string;
  /** Only content-digest (RFC 9530) is taken; when given it is covered. */
  headers?: { 'content-digest'?: string };
  tag?: 'web-bot-auth' | 'agent-browser-auth' | 'agent-payer-auth';
  expires_in_seconds?: number;
}

/** The headers to add to that request unchanged, the key id and the signature's lifetime (Unix seconds). */
export interface WebRequestSignature {
  headers: { 'signature-input': string; signature: string; 'signature-agent'?: string };
  key_id: string;
  created: number;
  expires: number;
}

/** An x402 authorization (POST /x402/authorize and its lifecycle routes, docs/x402.md). */
export interface X402Authorization {
  authorization_id: string;
  kind: 'x402';
  status: X402State;
  scheme: string;
  network: string;
  asset: string;
  symbol: string;
  pay_to: string;
  /** The atomic maximum. */
  amount_max: string;
  /** As counted, in `currency`, rounded up to its minor unit. */
  amount: string;
  currency: string;
  merchant_name: string;
  expires_at: string;
  /** A JWS by the device key over the terms (typ latch-x402-receipt+jwt). */
  receipt: string | null;
  agent: string;
  [member: string]: unknown;
}

/** The body of POST /x402/authorize: x402 v2's ResourceInfo and one PaymentRequirements. */
export interface X402AuthorizeInput {
  x402_version: number;
  resource: Record<string, unknown>;
  requirements: Record<string, unknown>;
  reference?: string;
}
