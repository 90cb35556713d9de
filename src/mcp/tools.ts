/**
 * The MCP tools: each is a name, what the agent is told, its input schema and one call on the
 * client module. The descriptions carry the client rules (docs/decisions.md §7 rule 3),
 * because a description is what an agent reads before it acts.
 */
import type { LatchClient } from '../client/latch-client.js';
import { cardIdField, transactionIdField } from '../requests/common-fields.js';
import { signWebRequestRules } from '../identity/sign-request-rules.js';
import { ap2MandateRules } from '../requests/ap2-mandate-rules.js';
import { x402AuthorizeRules } from '../requests/x402-rules.js';
import type { Ap2MandateInput } from '../client/types.js';
import { allocateRules, approvalLookupRules, authorizeRules, merchantBindRules, recurringRules, revocationRules, transactionQueryRules } from '../requests/request-rules.js';
import type { RuleSet } from '../validate/field-rule.js';
import type { InputSchema, ToolArguments } from './tool-input.js';
import { OUTPUT_SCHEMAS, type OutputSchema } from './output-schemas.js';
import { approvalRefusal } from './approval-guidance.js';
import { toolInput, type ToolArgument } from './tool-schema.js';
import type { AuthorizationType, RecurringInterval } from '../core/model.js';
import type { TransactionStatus } from '../operations/read-model.js';

/** The part of the client the tools use; tests pass a fake with the same shape. */
export type ToolClient = Pick<
  LatchClient,
  'health' | 'cards' | 'card' | 'authorize' | 'merchantBind' | 'recurring' | 'ap2Mandate' | 'x402Authorize' | 'approval' | 'revoke' | 'wallet' | 'allocate' | 'transactions' | 'transaction' | 'signWebRequest'
>;

/** MCP tool annotations (hints for the client's UI; never trusted for security). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  /** The JSON Schema advertised in tools/list and enforced on tools/call, built from `rules`. */
  inputSchema: InputSchema;
  /** The daemon's rules for the same request, which the schema is built from. */
  rules: RuleSet;
  /** For each argument, the daemon's field it becomes. */
  fieldOf: Readonly<Record<string, string>>;
  annotations: ToolAnnotations;
  /**
   * Who may use the tool, as the daemon's route it calls admits: `agents` (the owner and agents)
   * or `owner`. An agent's session does not list an owner-only tool, which would only ever answer
   * agent_not_permitted; the daemon enforces access either way.
   */
  access: 'agents' | 'owner';
  /** The JSON Schema of the structuredContent a successful call returns. */
  outputSchema: OutputSchema;
  run(client: ToolClient, args: ToolArguments): Promise<unknown>;
}

/** The rules every money-moving tool states. */
export const AGENT_RULES =
  'Rules: act only on the card, merchant and amount the user approved. If a call is refused, tell the user the error and its remedy; never retry with a larger amount, another merchant, a longer TTL or another card, because that is a different authorization that needs the user\'s explicit approval. Never send, ask for or repeat card numbers, CVVs or expiry dates: refer to cards only by card_id.';

const cardId = 'The card id, like card_…, from latch_list_cards.';
const merchantDomain: ToolArgument = {
  field: 'merchant_name',
  description: 'The merchant\'s domain exactly as it will charge, e.g. shop.example.com: no scheme, path, port or wildcard; a subdomain is a different merchant.',
};
const amount = (what: string): string => `${what}, as a decimal string like "12.50" (exact; at most two decimals).`;
const currency = 'ISO 4217 currency code; default USD, which must be the card\'s currency.';
const authorizationType = (fallback: string): string => `exact: the charge must equal the amount; ceiling: the charge may be up to the amount. Default ${fallback}.`;
const ttlMinutes = (fallback: number): string => `How many minutes the authorization stays usable; default ${fallback}.`;

const noInput = toolInput({}, {});
const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: true };
const CREATE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };

const text = (args: ToolArguments, name: string): string | undefined => (typeof args[name] === 'string' ? (args[name] as string) : undefined);
const whole = (args: ToolArguments, name: string): number | undefined => (typeof args[name] === 'number' ? (args[name] as number) : undefined);
const required = (args: ToolArguments, name: string): string => text(args, name) as string;
const defined = <T extends Record<string, unknown>>(fields: T): T => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as T;

/** The optional purpose of an authorization, signed with it. */
const REFERENCE = 'What this payment is for: an order id or a short note (at most 200 printable characters, never card data). It is signed into the authorization and kept in the audit log; optional.';

/** What the money-moving tools say about the owner's approval, which the policy may ask for. */
const ASK =
  'If the owner\'s spending policy asks the owner first, the result is not an error but a pending approval (status pending_approval, approval_id): nothing is signed yet; do not retry with other terms, and check back with latch_get_approval.';

/** TOOLS lists every tool in the order tools/list shows them. */
export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'latch_health',
    title: 'Latch daemon health',
    description:
      'Check that the local Latch daemon runs: version, uptime and the loaded signing key (null until the device is enrolled). It never contacts the cloud: if it fails, the problem is the local daemon, not a payment.',
    ...noInput,
    annotations: { readOnlyHint: true, openWorldHint: false },
    access: 'agents',
    outputSchema: OUTPUT_SCHEMAS.latch_health,
    run: (client) => client.health(),
  },
  {
    name: 'latch_list_cards',
    title: 'List cards',
    description: 'List the user\'s virtual cards: card_id, label, last four digits, status and balance (decimal strings). No card numbers are ever returned.',
    ...noInput,
    annotations: READ,
    access: 'agents',
    outputSchema: OUTPUT_SCHEMAS.latch_list_cards,
    run: (client) => client.cards(),
  },
  {
    name: 'latch_get_card',
    title: 'Get one card',
    description: 'Show one card with its balance, daily_limit and daily_spent. If the card is not found, list cards and ask the user to choose another.',
    ...toolInput({ card_id: cardIdField() }, { card_id: cardId }),
    annotations: READ,
    access: 'agents',
    outputSchema: OUTPUT_SCHEMAS.latch_get_card,
    run: (client, args) => client.card(required(args, 'card_id')),
  },
  {
    name: 'latch_authorize',
    title: 'Authorize one payment',
    description:
      `Create a scoped payment authorization signed on this device: the card may then be charged once, by exactly merchant_domain, for exactly the amount (authorization_type exact, the default) or at most it (ceiling), within ttl_minutes (default 30). Returns policy_id, amount, expires_at and status. ${AGENT_RULES} ${ASK} If the outcome is unknown (daemon_no_answer), check latch_list_transactions before anything else.`,
    ...toolInput(authorizeRules, {
      card_id: cardId,
      merchant_domain: merchantDomain,
      amount: amount('The payment amount, more than 0'),
      currency,
      authorization_type: authorizationType('exact'),
      ttl_minutes: ttlMinutes(30),
      reference: REFERENCE,
    }),
    annotations: CREATE,
    access: 'agents',
    outputSchema: OUTPUT_SCHEMAS.latch_authorize,
    run: (client, args) =>
      client.authorize(
        defined({
          card_id: required(args, 'card_id'),
          merchant_name: required(args, 'merchant_domain'),
          amount: required(args, 'amount'),
          currency: text(args, 'currency'),
          authorization_type: text(args, 'authorization_type') as AuthorizationType | undefined,
          ttl_minutes: whole(args, 'ttl_minutes'),
          reference: text(args, 'reference'),
        }),
      ),
  },
  {
    name: 'latch_merchant_bind',
    title: 'Authorize a merchant card check',
    description: `Create a merchant-verification authorization for a merchant's first-add card check: amount 0 by default and at most 1.00, ttl_minutes default 10. The cloud allows at most 3 per card per 24 hours (verification_cap_exceeded). ${AGENT_RULES} ${ASK}`,
    ...toolInput(merchantBindRules, {
      card_id: cardId,
      merchant_domain: merchantDomain,
      amount: amount('The verification amount, from 0 (the default) to 1.00'),
      currency,
      ttl_minutes: ttlMinutes(10),
      reference: REFERENCE,
    }),
    annotations: CREATE,
    access: 'agents',
    outputSchema: OUTPUT_SCHEMAS.latch_merchant_bind,
    run: (client, args) =>
      client.merchantBind(
        defined({
          card_id: required(args, 'card_id'),
          merchant_name: required(args, 'merchant_domain'),
          amount: text(args, 'amount'),
          currency: text(args, 'currency'),
          ttl_minutes: whole(args, 'ttl_minutes'),
          reference: text(args, 'reference'),
        }),
      ),
  },
  {
    name: 'latch_recurring',
    title: 'Authorize a subscription',
    description: `Create a recurring subscription authorization: at most one approved charge by merchant_domain per period (interval × interval_count), up to the amount (authorization_type ceiling, the default) or exactly it. Only for a subscription the user asked for. ${AGENT_RULES} ${ASK}`,
    ...toolInput(recurringRules, {
      card_id: cardId,
      merchant_domain: merchantDomain,
      amount: amount('The amount per period, more than 0'),
      interval: 'The period unit.',
      interval_count: 'Periods of this many units; default 1.',
      authorization_type: authorizationType('ceiling'),
      currency,
      starts_at: 'ISO 8601 time with a zone, e.g. 2026-12-01T00:00:00Z; default now.',
      ends_at: 'ISO 8601 time with a zone when the schedule ends; optional.',
      max_charges: 'Stop after this many approved charges; optional.',
      reference: REFERENCE,
    }),
    annotations: CREATE,
    access: 'agents',
    outputSchema: OUTPUT_SCHEMAS.latch_recurring,
    run: (client, args) =>
      client.recurring(
        defined({
          card_id: required(args, 'card_id'),
          merchant_name: required(args, 'merchant_domain'),
          amount: required(args, 'amount'),
          interval: required(args, 'interval') as RecurringInterval,
          interval_count: whole(args, 'interval_count'),
          authorization_type: text(args, 'authorization_type') as AuthorizationType | undefined,
          currency: text(args, 'currency'),
          starts_at: text(args, 'starts_at'),
          ends_at: text(args, 'ends_at'),
          max_charges: whole(args, 'max_charges'),
          reference: text(args, 'reference'),
        }),
      ),
  },
  {
    name: 'latch_x402_authorize',
    title: 'Authorize an x402 payment',
    description: `Ask the owner's policy before you pay an x402 server (HTTP 402): send x402_version 2, the resource (x402's ResourceInfo, at least its url) and the one PaymentRequirements you will pay (scheme exact or upto, network, amount in atomic units, asset, payTo, maxTimeoutSeconds, extra). The amount is counted in the asset's currency rounded up to the cent; only the assets GET /x402/assets lists count. Returns authorization_id, status authorized, amount (as counted), expires_at and a receipt; then bind the payment you make before it leaves (POST /x402/authorizations/:id/payload) and report what settled — the latch/x402 guard does all of this for an x402Client. ${AGENT_RULES} ${ASK}`,
    ...toolInput(x402AuthorizeRules, {
      x402_version: 'The x402 version: 2.',
      resource: "x402's ResourceInfo of what you pay for: {\"url\": its https URL, \"description\"?, \"mimeType\"?, \"serviceName\"?, \"tags\"?, \"iconUrl\"?}.",
      requirements: 'The PaymentRequirements you will pay, exactly as the server listed it in accepts: {"scheme", "network", "amount", "asset", "payTo", "maxTimeoutSeconds", "extra"?}.',
      reference: 'Your purpose (an order id or a note), recorded with the authorization; optional.',
    }),
    annotations: CREATE,
    access: 'agents',
    outputSchema: OUTPUT_SCHEMAS.latch_x402_authorize,
    run: (client, args) =>
      client.x402Authorize(
        defined({
          x402_version: whole(args, 'x402_version'),
          resource: args['resource'] as Record<string, unknown>,
          requirements: args['requirements'] as Record<string, unknown>,
          reference: text(args, 'reference'),
        }),
      ),
  },
  {
    name: 'latch_ap2_mandate',
    title: 'Get AP2 open mandates for your key',
    description: `Ask the user's trusted surface (Latch) to sign AP2 open mandates bound to your own P-256 key: an open checkout mandate (these items or their alternatives, up to quantity, at this merchant) and an open payment mandate (up to amount_max, to this payee, with this card), valid for ttl_minutes (default 10). Send only your public JWK (kty, crv, x, y), never d. Returns policy_id, mandate_id, open_checkout_mandate, open_payment_mandate (SD-JWTs), open_checkout_hash, key_id and expires_at; make the closed mandates yourself with your key (AP2 SDK MandateClient().present). The card declines more than amount_max or another merchant whatever the mandate says, and a mandate cannot be revoked once handed out. ${AGENT_RULES} ${ASK}`,
    ...toolInput(ap2MandateRules, {
      card_id: cardId,
      merchant: 'The merchant: {"name", "website": its https URL, "id"?: its AP2 merchant id, which must be the website\'s host (the default)}.',
      amount_max: amount('The most you may pay, more than 0'),
      currency,
      items: 'What you may buy: 1 to 20 lines {"id", "title", "quantity"? (default 1, at most 99), "alternatives"?: up to 9 {"id", "title"}}.',
      ttl_minutes: ttlMinutes(10),
      recurrence: 'Only to pay more than once (AP2 payment.agent_recurrence): {"frequency": DAILY, WEEKLY, BIWEEKLY, MONTHLY, QUARTERLY or ANNUALLY, "max_occurrences"?}; needs budget. At most one charge per period, each up to amount_max.',
      budget: amount('With recurrence, the most you may pay in total, at least amount_max'),
      agent_key: 'Your P-256 public JWK {"kty": "EC", "crv": "P-256", "x", "y"} (kid, use, alg ES256 allowed); the mandates bind it by cnf.',
    }),
    annotations: CREATE,
    access: 'agents',
    outputSchema: OUTPUT_SCHEMAS.latch_ap2_mandate,
    run: (client, args) =>
      client.ap2Mandate(
        defined({
          card_id: required(args, 'card_id'),
          merchant: args['merchant'] as Ap2MandateInput['merchant'],
          amount_max: required(args, 'amount_max'),
          currency: text(args, 'currency'),
          items: args['items'] as Ap2MandateInput['items'],
          ttl_minutes: whole(args, 'ttl_minutes'),
          recurrence: args['recurrence'] as Ap2MandateInput['recurrence'],
          budget: text(args, 'budget'),
          agent_key: args['agent_key'] as Ap2MandateInput['agent_key'],
        }),
      ),
  },
  {
    name: 'latch_get_approval',
    title: 'Check an approval',
    description:
      'Report the owner\'s decision on an approval (approval_id, like ap_…, from latch_authorize, latch_merchant_bind or latch_recurring): pending_approval (keep waiting), approved (with the authorization to use), or a tool error when the owner denied it (approval_denied, with their reason), nobody decided in time (approval_denied, expired), or the cloud refused it after approval. wait_seconds (0 to 60) holds on that long for the decision. Never answer a denial by retrying with other terms.',
    ...toolInput(approvalLookupRules, {
      approval_id: 'The approval id, like ap_…, that the payment tool returned.',
      wait_seconds: 'How long to wait for the owner\'s decision, 0 to 60 seconds; default 0 (answer at once).',
    }),
    annotations: READ,
    access: 'agents',
    outputSchema: OUTPUT_SCHEMAS.latch_get_approval,
    run: async (client, args) => {
      const wait = whole(args, 'wait_seconds');
      const approval = await client.approval(required(args, 'approval_id'), wait === undefined ? {} : { waitSeconds: wait });
      const refusal = approvalRefusal(approval);
      if (refusal !== undefined) throw refusal;
      return approval;
    },
  },
  {
    name: 'latch_revoke',
    title: 'Revoke an authorization',
    description:
      'Revoke an authorization by policy_id before it is used: the revocation is signed on this device and submitted to the cloud, and its hold is released. A revoked authorization approves no further charge. Revoking one that is already revoked succeeds and returns it as it is; one that was used or expired is refused (authorization_not_active). An agent can revoke only the authorizations it asked for. Revoke only what the user wants revoked.',
    ...toolInput(revocationRules, { policy_id: 'The authorization\'s policy_id, like pw_….', reason: 'Why, kept with the revocation; optional.' }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    access: 'agents',
    outputSchema: OUTPUT_SCHEMAS.latch_revoke,
    run: (client, args) => client.revoke(defined({ policy_id: required(args, 'policy_id'), reason: text(args, 'reason') })),
  },
  {
    name: 'latch_wallet_balance',
    title: 'Wallet balance',
    description: 'Show the wallet: usdt (total), allocated (to cards) and available (decimal strings). Check it when a card has insufficient funds, then ask the user before allocating.',
    ...noInput,
    annotations: READ,
    access: 'agents',
    outputSchema: OUTPUT_SCHEMAS.latch_wallet_balance,
    run: (client) => client.wallet(),
  },
  {
    name: 'latch_allocate',
    title: 'Move wallet funds to a card',
    description: `Move funds from the wallet to a card (1 USDT to 1 USD). This moves the user's money: only with the user's explicit approval of the card and amount. ${AGENT_RULES}`,
    ...toolInput(allocateRules, { card_id: cardId, amount: amount('The amount to move, more than 0') }),
    annotations: CREATE,
    access: 'owner',
    outputSchema: OUTPUT_SCHEMAS.latch_allocate,
    run: (client, args) => client.allocate({ card_id: required(args, 'card_id'), amount: required(args, 'amount') }),
  },
  {
    name: 'latch_list_transactions',
    title: 'List transactions',
    description: 'List transactions, newest first, with has_more; page with starting_after (the last id seen). Filter by card_id or status.',
    ...toolInput(transactionQueryRules, {
      limit: 'How many, 1 to 100; default 20.',
      starting_after: 'Return transactions after this one (the last id of the previous page).',
      card_id: 'Only this card\'s transactions.',
      status: 'Only transactions in this status.',
    }),
    annotations: READ,
    access: 'agents',
    outputSchema: OUTPUT_SCHEMAS.latch_list_transactions,
    run: (client, args) =>
      client.transactions(
        defined({
          limit: whole(args, 'limit'),
          starting_after: text(args, 'starting_after'),
          card_id: text(args, 'card_id'),
          status: text(args, 'status') as TransactionStatus | undefined,
        }),
      ),
  },
  {
    name: 'latch_get_transaction',
    title: 'Get one transaction',
    description: 'Show one transaction with the signed policy window it was made under (merchant, amount, time window, key id).',
    ...toolInput({ tx_id: transactionIdField() }, { tx_id: 'A transaction id, like tx_….' }),
    annotations: READ,
    access: 'agents',
    outputSchema: OUTPUT_SCHEMAS.latch_get_transaction,
    run: (client, args) => client.transaction(required(args, 'tx_id')),
  },
  {
    name: 'latch_sign_web_request',
    title: 'Sign a web request as this agent',
    description:
      'Get the Web Bot Auth signature headers for one HTTP request you are about to send, so a merchant or its CDN can tell you are this user\'s trusted agent: add the returned headers (signature-input, signature and, when present, signature-agent) to that request unchanged. The signature is made on this device with your own identity key, which you never hold; it is bound to the URL\'s host (and, for the agent-browser-auth and agent-payer-auth tags of Visa\'s Trusted Agent Protocol, to its path and query) and expires after expires_in_seconds. Ask for a fresh one for every request; never reuse one for another host. A host the owner\'s policy denies is refused (policy_denied). Never put card numbers, CVVs or expiry dates in the URL.',
    ...toolInput(signWebRequestRules, {
      method: 'The HTTP method of the request, e.g. GET or POST.',
      url: 'The absolute https URL the request goes to, without user info or fragment (plain http only to a loopback host).',
      headers: 'Optional: {"content-digest": "sha-256=:…:"}, the RFC 9530 digest of the body you will send; it is then covered. No other header is taken.',
      tag: 'web-bot-auth (default) for browsing; agent-browser-auth or agent-payer-auth for a merchant that uses Visa\'s Trusted Agent Protocol (payer at checkout).',
      expires_in_seconds: 'How long the signature stays valid, 1 to 480 seconds; default 60.',
    }),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    access: 'agents',
    outputSchema: OUTPUT_SCHEMAS.latch_sign_web_request,
    run: (client, args) => {
      const headers = args['headers'];
      return client.signWebRequest(
        defined({
          method: required(args, 'method'),
          url: required(args, 'url'),
          headers: typeof headers === 'object' ? (headers as { 'content-digest'?: string }) : undefined,
          tag: text(args, 'tag') as 'web-bot-auth' | undefined,
          expires_in_seconds: whole(args, 'expires_in_seconds'),
        }),
      );
    },
  },
];

/**
 * argumentOf returns the tool's argument name for a field the daemon named in an error's param
 * (merchant_name → merchant_domain), so the agent is told the name it can use; a param that is no
 * field of the tool (`body`, `Idempotency-Key`) is returned as it is.
 */
export function argumentOf(tool: ToolDefinition, param: string): string {
  return Object.entries(tool.fieldOf).find(([, field]) => field === param)?.[0] ?? param;
}

/** toolsFor lists the tools this caller may use, in TOOLS' order. */
export function toolsFor(caller: 'owner' | 'agent'): ToolDefinition[] {
  return TOOLS.filter((tool) => caller === 'owner' || tool.access === 'agents');
}

/** findTool returns the tool with this name that this caller may use, or undefined. */
export function findTool(name: string, caller: 'owner' | 'agent'): ToolDefinition | undefined {
  return toolsFor(caller).find((tool) => tool.name === name);
}
