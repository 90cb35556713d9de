/**
 * The one table of error codes: code → HTTP status → error class → remedy (docs/decisions.md §7).
 * Every surface (Variant A, Variant B, the signing proxy, the sandbox cloud) answers with these
 * codes, and docs/errors.md's table is checked against this object by
 * test/errors/docs-error-table.test.ts. The status and default message of each code are in
 * error-rules.ts, which the audited core imports; the class and the remedy, here, are text for the
 * person acting on an error (docs/decisions.md §43).
 */
import { ERROR_RULES, LOCAL_KEY_NOT_RECOGNIZED_REMEDY, type ErrorCode, type ErrorRule } from './error-rules.js';

export { isErrorCode, type ErrorCode } from './error-rules.js';

/** What a person reads of a code: its class and what to do next. */
export interface ErrorText {
  /** The error's descriptive class, which callers and `latch doctor` show (docs/errors.md's Class column). */
  readonly specClass: string;
  /** What the caller should do next (docs/errors.md's Remedy column). */
  readonly remedy: string;
}

/** One row of the table: the code's rule and its text. */
export type ErrorSpec = ErrorRule & ErrorText;

const ERROR_TEXTS = {
  missing_bearer_token: {
    specClass: 'Missing bearer token',
    remedy: 'Read the token from the daemon_token file in the Latch data directory and retry once.',
  },
  invalid_bearer_token: {
    specClass: 'Missing bearer token',
    remedy: "Re-read the token file and retry once: daemon_token (it may have been rotated), or an agent's agents/NAME.token (rotated, or the agent was removed: latch agent list).",
  },
  clock_skew: {
    specClass: 'Clock skew',
    remedy: "Set this device's clock right (turn on network time); latch doctor shows both clocks.",
  },
  daemon_paused: {
    specClass: 'Signing paused',
    remedy: 'Do not retry with other terms; ask the owner, who resumes signing with latch resume.',
  },
  agent_not_permitted: {
    specClass: 'Agent not permitted',
    remedy: 'Ask the owner to do this with the daemon token; an agent cannot.',
  },
  owner_presence_required: {
    specClass: 'Agent not permitted',
    remedy: 'Confirm that you are the owner: send {"passphrase": "..."} in the body (the Latch-Owner-Passphrase header for PUT /policy and the /v1 proxy), or use an owner session from POST /owner/sessions (latch commands ask for the passphrase).',
  },
  proxy_route_not_allowed: {
    specClass: 'Agent not permitted',
    remedy: 'Use POST /authorize (or /merchant-bind, /recurring), or sign with /sign-card-policy-window or /sign-policy-window and register exactly that window through the proxy, once. The proxy forwards only the cloud routes of its table, spelled exactly (docs/api.md).',
  },
  agent_exists: {
    specClass: 'Agent exists',
    remedy: 'Give it a new token with POST /agents/:name/rotate (latch agent rotate NAME), or choose another name.',
  },
  agent_not_found: {
    specClass: 'Not found',
    remedy: 'List the agents (GET /agents, latch agent list) to find the right name.',
  },
  policy_denied: {
    specClass: 'Policy denied',
    remedy: 'Do not retry with other terms to get around it (another merchant, a smaller or split amount, a longer TTL); tell the user which rule refused it.',
  },
  approval_denied: {
    specClass: 'Policy denied',
    remedy: 'Do not retry with other terms; tell the user the owner declined (the approval carries their reason).',
  },
  approval_not_found: {
    specClass: 'Not found',
    remedy: 'List approvals (GET /approvals) to find the right id.',
  },
  approval_not_pending: {
    specClass: 'Approval decided',
    remedy: 'Read the approval (GET /approvals/:approval_id) to see how it was decided; a decision is made once.',
  },
  invalid_passphrase: {
    specClass: 'Invalid passphrase',
    remedy: 'Send the owner\'s passphrase (the approval passphrase) again; after 5 wrong attempts in 15 minutes, on any route, every passphrase check is locked.',
  },
  too_many_attempts: {
    specClass: 'Too many attempts',
    remedy: 'Wait for the lockout to end (Retry-After says when), then try again, with the owner passphrase if one is set; the lockout ends when the passphrase is cleared or changed.',
  },
  too_many_pending_approvals: {
    specClass: 'Too many attempts',
    remedy: 'Wait for the owner to decide the pending ones (GET /approvals) before asking again; do not retry with other terms.',
  },
  card_not_found: {
    specClass: 'Card not found',
    remedy: 'List cards and ask the user to choose another.',
  },
  authorization_not_found: {
    specClass: 'Not found',
    remedy: 'List authorizations or transactions to find the right id.',
  },
  transaction_not_found: {
    specClass: 'Not found',
    remedy: 'List transactions to find the right id.',
  },
  insufficient_funds: {
    specClass: 'Insufficient funds',
    remedy: 'Check the wallet balance. Ask the user before allocating or depositing.',
  },
  daily_limit_exceeded: {
    specClass: 'Insufficient funds',
    remedy: 'Ask the user; the daily limit is set per card.',
  },
  authorization_expired: {
    specClass: 'Authorization expired',
    remedy: 'Create a new authorization only if the user still wants the payment.',
  },
  authorization_not_active: {
    specClass: 'Authorization not active',
    remedy: 'Nothing is left to revoke; its status shows what happened to it. Create a new authorization only with the user\'s approval.',
  },
  evidence_unavailable: {
    specClass: 'Evidence unavailable',
    remedy: 'Use the audit log (latch audit) and the cloud\'s transactions for this authorization instead.',
  },
  scope_mismatch: {
    specClass: 'Scope mismatch',
    remedy: 'Do not widen scope automatically. Ask for explicit user approval.',
  },
  card_frozen: {
    specClass: 'Scope mismatch',
    remedy: 'Create an authorization for this merchant and amount, with the user\'s approval.',
  },
  card_closed: {
    specClass: 'Card closed',
    remedy: 'List cards and ask the user to choose another.',
  },
  currency_mismatch: {
    specClass: 'Bad input',
    remedy: "Use the card's currency (see GET /cards/:card_id).",
  },
  verification_cap_exceeded: {
    specClass: 'Verification cap',
    remedy: 'Wait until the rolling 24-hour window frees a slot, or ask the user.',
  },
  setup_token_expired: {
    specClass: 'Setup token expired',
    remedy: 'Get a new setup token (from the sandbox: latch sandbox setup-token; from a real cloud: your cloud account\'s setup page) and run latch setup --token <setup_token> again.',
  },
  setup_token_invalid: {
    specClass: 'Setup token invalid',
    remedy: 'Get a new setup token (from the sandbox: latch sandbox setup-token; from a real cloud: your cloud account\'s setup page) and run latch setup --token <setup_token> again.',
  },
  local_key_not_recognized: {
    specClass: 'Local key not recognized',
    remedy: LOCAL_KEY_NOT_RECOGNIZED_REMEDY,
  },
  device_key_not_recognized: {
    specClass: 'Local key not recognized',
    remedy: 'Reconnect the device with fresh key material.',
  },
  invalid_signature: {
    specClass: 'Local key not recognized',
    remedy: 'Sign the exact request that is sent; do not alter it after signing.',
  },
  signature_expired: {
    specClass: 'Local key not recognized',
    remedy: 'Check the device clock, then send a freshly signed request.',
  },
  replayed_request: {
    specClass: 'Local key not recognized',
    remedy: 'Send a freshly signed request; never replay a captured one.',
  },
  device_not_enrolled: {
    specClass: 'Not enrolled',
    remedy: 'Run latch setup --token <setup_token> --cloud <url>.',
  },
  upstream_unavailable: {
    specClass: 'Upstream API unavailable',
    remedy: 'Local daemon health is fine; retry only the affected server-backed operation later.',
  },
  data_directory_unavailable: {
    specClass: 'Local daemon unavailable',
    remedy: 'Run latch doctor on this machine; the daemon log names the file and the exact fix.',
  },
  fetch_unavailable: {
    specClass: 'Local daemon unavailable',
    remedy: 'Start Latch with NODE_OPTIONS=--disable-wasm-trap-handler (Node 20.15 or later; the single binary too), or raise the limit (ulimit -v unlimited, or at least 16 GiB).',
  },
  policy_invalid: {
    specClass: 'Policy invalid',
    remedy: 'Ask the owner to fix the field named in param (latch policy check-file shows it); retry after that.',
  },
  invalid_admin_key: {
    specClass: 'Missing bearer token',
    remedy: 'Send the key from $LATCH_HOME/sandbox/admin_key as Authorization: Bearer <key>.',
  },
  invalid_request: {
    specClass: 'Bad input',
    remedy: 'Fix the field named in param and send the request again.',
  },
  invalid_agent_key: {
    specClass: 'Bad input',
    remedy: 'Send the public half of the agent\'s P-256 key as a JWK {"kty":"EC","crv":"P-256","x","y"}, without d.',
  },
  card_data_not_accepted: {
    specClass: 'Bad input',
    remedy: 'Remove the card data; refer to cards only by card_id.',
  },
  payload_too_large: {
    specClass: 'Bad input',
    remedy: 'Send a smaller body.',
  },
  unsupported_media_type: {
    specClass: 'Bad input',
    remedy: 'Send Content-Type: application/json.',
  },
  forbidden_host: {
    specClass: 'Host / Origin refused',
    remedy: 'Connect to 127.0.0.1, localhost or [::1] with the right port.',
  },
  forbidden_origin: {
    specClass: 'Host / Origin refused',
    remedy: 'Call the daemon from a program, not from a browser.',
  },
  x402_version_not_supported: {
    specClass: 'Bad input',
    remedy: 'Send x402_version 2 (the PaymentRequired of an x402 v2 server); nothing was authorized.',
  },
  x402_scheme_not_supported: {
    specClass: 'Bad input',
    remedy: 'Pick requirements whose scheme is exact or upto; nothing was authorized.',
  },
  x402_terms_changed: {
    specClass: 'x402 state',
    remedy: 'Do not send that payment; ask again (POST /x402/authorize) with the requirements you will pay.',
  },
  x402_authorization_expired: {
    specClass: 'x402 state',
    remedy: 'Do not send that payment; ask again (POST /x402/authorize).',
  },
  x402_authorization_not_bindable: {
    specClass: 'x402 state',
    remedy: 'Bind each authorization once, before its payment leaves; for another payment ask again (POST /x402/authorize).',
  },
  x402_settlement_conflict: {
    specClass: 'x402 state',
    remedy: 'Do not report again; GET /authorizations/:id shows what was recorded.',
  },
  x402_not_bound: {
    specClass: 'x402 state',
    remedy: 'Bind the payment first (POST /x402/authorizations/:id/payload); an unbound authorization is released instead.',
  },
  idempotency_key_reused: {
    specClass: 'Bad input',
    remedy: 'Use a new Idempotency-Key for a different request.',
  },
  idempotency_key_in_use: {
    specClass: 'Bad input',
    remedy: 'Wait for the first request to finish, then retry with the same key.',
  },
  not_found: {
    specClass: 'Not found',
    remedy: 'Check the path against the API reference.',
  },
  method_not_allowed: {
    specClass: 'Not found',
    remedy: 'Use a method listed in the Allow header.',
  },
  request_timeout: {
    specClass: 'Bad input',
    remedy: 'Send the whole request promptly.',
  },
  console_login_required: {
    specClass: 'Console login required',
    remedy: 'Run latch console for a new one-time login link.',
  },
  console_csrf_invalid: {
    specClass: 'Host / Origin refused',
    remedy: 'Reload the console page; calls must come from the console itself.',
  },
  login_code_invalid: {
    specClass: 'Console login required',
    remedy: 'Run latch console again for a fresh link.',
  },
  passkey_not_verified: {
    specClass: 'Invalid passphrase',
    remedy: 'Confirm again with the passkey (a confirmation works once, for the terms it was made for), or use the passphrase.',
  },
  console_busy: {
    specClass: 'Too many attempts',
    remedy: 'Close other console tabs, then reload this one.',
  },
  internal_error: {
    specClass: 'A bug',
    remedy: 'Report it with the request_id.',
  },
} as const satisfies Record<ErrorCode, ErrorText>;

type ErrorRow<C extends ErrorCode> = (typeof ERROR_RULES)[C] & (typeof ERROR_TEXTS)[C];

/** ERROR_TABLE is each code's rule (error-rules.ts) joined with its text. */
export const ERROR_TABLE = Object.fromEntries(Object.entries(ERROR_RULES).map(([code, rule]) => [code, { ...rule, ...ERROR_TEXTS[code as ErrorCode] }])) as { readonly [C in ErrorCode]: ErrorRow<C> };
