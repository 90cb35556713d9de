/**
 * The one table of error codes: code → HTTP status → error class → remedy (docs/decisions.md §7).
 * Every surface (Variant A, Variant B, the signing proxy, the sandbox cloud) answers with these
 * codes, and docs/errors.md's table is checked against this object by
 * test/errors/docs-error-table.test.ts.
 */
export interface ErrorSpec {
  /** Default HTTP status. */
  readonly status: number;
  /** Other statuses the same code may carry (only `upstream_unavailable`: 503 and 504). */
  readonly alternateStatuses?: readonly number[];
  /** The error's descriptive class, which callers and `latch doctor` show (docs/errors.md's Class column). */
  readonly specClass: string;
  /** Default human message; never contains secrets or card data. */
  readonly message: string;
  /** What the caller should do next (docs/errors.md's Remedy column). */
  readonly remedy: string;
}

export const ERROR_TABLE = {
  missing_bearer_token: {
    status: 401,
    specClass: 'Missing bearer token',
    message: 'This endpoint needs an Authorization: Bearer <token> header.',
    remedy: 'Read the token from the daemon_token file in the Latch data directory and retry once.',
  },
  invalid_bearer_token: {
    status: 401,
    specClass: 'Missing bearer token',
    message: "The bearer token is neither the daemon token nor a current agent's token.",
    remedy: "Re-read the token file and retry once: daemon_token (it may have been rotated), or an agent's agents/NAME.token (rotated, or the agent was removed: latch agent list).",
  },
  clock_skew: {
    status: 502,
    specClass: 'Clock skew',
    message: "This device's clock is too far from the cloud's for signed requests.",
    remedy: "Set this device's clock right (turn on network time); latch doctor shows both clocks.",
  },
  daemon_paused: {
    status: 409,
    specClass: 'Signing paused',
    message: 'The owner has paused signing: nothing that authorizes spending or moves money is signed until they resume it.',
    remedy: 'Do not retry with other terms; ask the owner, who resumes signing with latch resume.',
  },
  agent_not_permitted: {
    status: 403,
    specClass: 'Agent not permitted',
    message: 'An agent token may not call this endpoint; it is the owner\'s alone.',
    remedy: 'Ask the owner to do this with the daemon token; an agent cannot.',
  },
  owner_presence_required: {
    status: 403,
    specClass: 'Agent not permitted',
    message: "This action needs the owner's presence, not only the daemon token.",
    remedy: 'Confirm that you are the owner: send {"passphrase": "..."} in the body (the Latch-Owner-Passphrase header for PUT /policy and the /v1 proxy), or use an owner session from POST /owner/sessions (latch commands ask for the passphrase).',
  },
  proxy_route_not_allowed: {
    status: 403,
    specClass: 'Agent not permitted',
    message: 'The /v1 proxy does not forward this request: it registers or changes a window the daemon did not sign through its authorization pipeline.',
    remedy: 'Use POST /authorize (or /merchant-bind, /recurring), or sign with /sign-card-policy-window or /sign-policy-window and register exactly that window through the proxy, once. The proxy forwards only the cloud routes of its table, spelled exactly (docs/api.md).',
  },
  agent_exists: {
    status: 409,
    specClass: 'Agent exists',
    message: 'An agent of that name already exists.',
    remedy: 'Give it a new token with POST /agents/:name/rotate (latch agent rotate NAME), or choose another name.',
  },
  agent_not_found: {
    status: 404,
    specClass: 'Not found',
    message: 'There is no agent of that name.',
    remedy: 'List the agents (GET /agents, latch agent list) to find the right name.',
  },
  policy_denied: {
    status: 403,
    specClass: 'Policy denied',
    message: "The owner's spending policy refuses this request.",
    remedy: 'Do not retry with other terms to get around it (another merchant, a smaller or split amount, a longer TTL); tell the user which rule refused it.',
  },
  approval_denied: {
    status: 403,
    specClass: 'Policy denied',
    message: 'The owner denied this request; nothing was signed.',
    remedy: 'Do not retry with other terms; tell the user the owner declined (the approval carries their reason).',
  },
  approval_not_found: {
    status: 404,
    specClass: 'Not found',
    message: 'No such approval.',
    remedy: 'List approvals (GET /approvals) to find the right id.',
  },
  approval_not_pending: {
    status: 409,
    specClass: 'Approval decided',
    message: 'This approval is no longer pending: it was already approved, denied, or it expired or failed.',
    remedy: 'Read the approval (GET /approvals/:approval_id) to see how it was decided; a decision is made once.',
  },
  invalid_passphrase: {
    status: 401,
    specClass: 'Invalid passphrase',
    message: 'The owner passphrase is wrong.',
    remedy: 'Send the owner\'s passphrase (the approval passphrase) again; after 5 wrong attempts in 15 minutes, on any route, every passphrase check is locked.',
  },
  too_many_attempts: {
    status: 429,
    specClass: 'Too many attempts',
    message: 'Too many wrong owner passphrases: every passphrase check is refused until 15 minutes after the first of them.',
    remedy: 'Wait for the lockout to end (Retry-After says when), then try again, with the owner passphrase if one is set; the lockout ends when the passphrase is cleared or changed.',
  },
  too_many_pending_approvals: {
    status: 429,
    specClass: 'Too many attempts',
    message: 'This caller already has as many pending approvals as the owner allows (approvals_pending_max_per_agent).',
    remedy: 'Wait for the owner to decide the pending ones (GET /approvals) before asking again; do not retry with other terms.',
  },
  card_not_found: {
    status: 404,
    specClass: 'Card not found',
    message: 'No such card on this account.',
    remedy: 'List cards and ask the user to choose another.',
  },
  authorization_not_found: {
    status: 404,
    specClass: 'Not found',
    message: 'No such authorization on this account.',
    remedy: 'List authorizations or transactions to find the right id.',
  },
  transaction_not_found: {
    status: 404,
    specClass: 'Not found',
    message: 'No such transaction on this account.',
    remedy: 'List transactions to find the right id.',
  },
  insufficient_funds: {
    status: 402,
    specClass: 'Insufficient funds',
    message: 'The card or wallet balance is too small for this operation.',
    remedy: 'Check the wallet balance. Ask the user before allocating or depositing.',
  },
  daily_limit_exceeded: {
    status: 402,
    specClass: 'Insufficient funds',
    message: "The amount would exceed the card's daily limit.",
    remedy: 'Ask the user; the daily limit is set per card.',
  },
  authorization_expired: {
    status: 410,
    specClass: 'Authorization expired',
    message: 'The authorization expired before the merchant charged.',
    remedy: 'Create a new authorization only if the user still wants the payment.',
  },
  authorization_not_active: {
    status: 409,
    specClass: 'Authorization not active',
    message: 'The authorization is no longer active: it was used, expired or revoked.',
    remedy: 'Nothing is left to revoke; its status shows what happened to it. Create a new authorization only with the user\'s approval.',
  },
  evidence_unavailable: {
    status: 409,
    specClass: 'Evidence unavailable',
    message: 'No evidence pack can be made for this authorization: it was signed before this device kept evidence, or with a key it no longer holds.',
    remedy: 'Use the audit log (latch audit) and the cloud\'s transactions for this authorization instead.',
  },
  scope_mismatch: {
    status: 403,
    specClass: 'Scope mismatch',
    message: 'The merchant or amount does not match the authorization.',
    remedy: 'Do not widen scope automatically. Ask for explicit user approval.',
  },
  card_frozen: {
    status: 409,
    specClass: 'Scope mismatch',
    message: 'The card has no active authorization; charges are refused.',
    remedy: 'Create an authorization for this merchant and amount, with the user\'s approval.',
  },
  card_closed: {
    status: 409,
    specClass: 'Card closed',
    message: 'The card is closed.',
    remedy: 'List cards and ask the user to choose another.',
  },
  currency_mismatch: {
    status: 400,
    specClass: 'Bad input',
    message: "The currency is not the card's currency.",
    remedy: "Use the card's currency (see GET /cards/:card_id).",
  },
  verification_cap_exceeded: {
    status: 429,
    specClass: 'Verification cap',
    message: 'The merchant-verification cap for this card is reached.',
    remedy: 'Wait until the rolling 24-hour window frees a slot, or ask the user.',
  },
  setup_token_expired: {
    status: 401,
    specClass: 'Setup token expired',
    message: 'The setup token expired before the device connected.',
    remedy: 'Get a new setup token (from the sandbox: latch sandbox setup-token; from a real cloud: your cloud account\'s setup page) and run latch setup --token <setup_token> again.',
  },
  setup_token_invalid: {
    status: 401,
    specClass: 'Setup token invalid',
    message: 'The setup token is unknown, or was already used: a setup token connects one device, once.',
    remedy: 'Get a new setup token (from the sandbox: latch sandbox setup-token; from a real cloud: your cloud account\'s setup page) and run latch setup --token <setup_token> again.',
  },
  local_key_not_recognized: {
    status: 401,
    specClass: 'Local key not recognized',
    message: 'The cloud no longer recognizes this device key.',
    remedy: 'Reconnect the device with fresh key material: latch setup --reconnect --token <setup_token>.',
  },
  device_key_not_recognized: {
    status: 401,
    specClass: 'Local key not recognized',
    message: 'The signing key id is not registered with this cloud.',
    remedy: 'Reconnect the device with fresh key material.',
  },
  invalid_signature: {
    status: 401,
    specClass: 'Local key not recognized',
    message: 'The request or payload signature does not verify.',
    remedy: 'Sign the exact request that is sent; do not alter it after signing.',
  },
  signature_expired: {
    status: 401,
    specClass: 'Local key not recognized',
    message: 'The signature was created outside the accepted time window.',
    remedy: 'Check the device clock, then send a freshly signed request.',
  },
  replayed_request: {
    status: 401,
    specClass: 'Local key not recognized',
    message: 'This signed request was already seen.',
    remedy: 'Send a freshly signed request; never replay a captured one.',
  },
  device_not_enrolled: {
    status: 409,
    specClass: 'Not enrolled',
    message: 'This device is not enrolled with a cloud yet.',
    remedy: 'Run latch setup --token <setup_token> --cloud <url>.',
  },
  upstream_unavailable: {
    status: 502,
    alternateStatuses: [503, 504],
    specClass: 'Upstream API unavailable',
    message: 'The cloud API is unavailable.',
    remedy: 'Local daemon health is fine; retry only the affected server-backed operation later.',
  },
  data_directory_unavailable: {
    status: 503,
    specClass: 'Local daemon unavailable',
    message: "The daemon's data directory needs attention (a file became unsafe, corrupt or unwritable).",
    remedy: 'Run latch doctor on this machine; the daemon log names the file and the exact fix.',
  },
  fetch_unavailable: {
    status: 503,
    specClass: 'Local daemon unavailable',
    message: "This process's address-space limit (ulimit -v) leaves no room for fetch's WebAssembly HTTP parser, which the cloud client needs.",
    remedy: 'Start Latch with NODE_OPTIONS=--disable-wasm-trap-handler (Node 20.15 or later; the single binary too), or raise the limit (ulimit -v unlimited, or at least 16 GiB).',
  },
  policy_invalid: {
    status: 503,
    // 400 when the owner sends an invalid policy to PUT /policy: nothing changes (docs/decisions.md §21).
    alternateStatuses: [400],
    specClass: 'Policy invalid',
    message: 'policy.json is invalid; nothing it governs is signed until it is fixed.',
    remedy: 'Ask the owner to fix the field named in param (latch policy check-file shows it); retry after that.',
  },
  invalid_admin_key: {
    status: 401,
    specClass: 'Missing bearer token',
    message: 'The sandbox admin key is missing or wrong.',
    remedy: 'Send the key from $LATCH_HOME/sandbox/admin_key as Authorization: Bearer <key>.',
  },
  invalid_request: {
    status: 400,
    specClass: 'Bad input',
    message: 'The request is not valid.',
    remedy: 'Fix the field named in param and send the request again.',
  },
  invalid_agent_key: {
    status: 400,
    specClass: 'Bad input',
    message: "agent_key is not the agent's P-256 public JWK.",
    remedy: 'Send the public half of the agent\'s P-256 key as a JWK {"kty":"EC","crv":"P-256","x","y"}, without d.',
  },
  card_data_not_accepted: {
    status: 400,
    specClass: 'Bad input',
    message: 'Card numbers, CVVs and other card data are never accepted. Use card_id.',
    remedy: 'Remove the card data; refer to cards only by card_id.',
  },
  payload_too_large: {
    status: 413,
    specClass: 'Bad input',
    message: 'The request body is too large.',
    remedy: 'Send a smaller body.',
  },
  unsupported_media_type: {
    status: 415,
    specClass: 'Bad input',
    message: 'POST bodies must be JSON with Content-Type: application/json.',
    remedy: 'Send Content-Type: application/json.',
  },
  forbidden_host: {
    status: 403,
    specClass: 'Host / Origin refused',
    message: 'The Host header is not a loopback name for this port.',
    remedy: 'Connect to 127.0.0.1, localhost or [::1] with the right port.',
  },
  forbidden_origin: {
    status: 403,
    specClass: 'Host / Origin refused',
    message: 'Requests from web pages are refused (Origin, Referer or cross-site fetch).',
    remedy: 'Call the daemon from a program, not from a browser.',
  },
  x402_version_not_supported: {
    status: 400,
    specClass: 'Bad input',
    message: 'The x402 guard speaks x402 version 2 only.',
    remedy: 'Send x402_version 2 (the PaymentRequired of an x402 v2 server); nothing was authorized.',
  },
  x402_scheme_not_supported: {
    status: 400,
    specClass: 'Bad input',
    message: 'The x402 guard decides the exact and upto schemes only.',
    remedy: 'Pick requirements whose scheme is exact or upto; nothing was authorized.',
  },
  x402_terms_changed: {
    status: 409,
    specClass: 'x402 state',
    message: 'The payment was built for other requirements than the ones authorized; the authorization is released.',
    remedy: 'Do not send that payment; ask again (POST /x402/authorize) with the requirements you will pay.',
  },
  x402_authorization_expired: {
    status: 409,
    specClass: 'x402 state',
    message: 'This x402 authorization expired before its payment was bound; it is released.',
    remedy: 'Do not send that payment; ask again (POST /x402/authorize).',
  },
  x402_authorization_not_bindable: {
    status: 409,
    specClass: 'x402 state',
    message: 'This x402 authorization is not waiting for its payment (it was bound, released, or is already final).',
    remedy: 'Bind each authorization once, before its payment leaves; for another payment ask again (POST /x402/authorize).',
  },
  x402_settlement_conflict: {
    status: 409,
    specClass: 'x402 state',
    message: 'A different settlement was already reported for this x402 authorization; the first report stands.',
    remedy: 'Do not report again; GET /authorizations/:id shows what was recorded.',
  },
  x402_not_bound: {
    status: 409,
    specClass: 'x402 state',
    message: 'A settlement can be reported only for an x402 authorization whose payment was bound.',
    remedy: 'Bind the payment first (POST /x402/authorizations/:id/payload); an unbound authorization is released instead.',
  },
  idempotency_key_reused: {
    status: 422,
    specClass: 'Bad input',
    message: 'This Idempotency-Key was already used with a different request.',
    remedy: 'Use a new Idempotency-Key for a different request.',
  },
  idempotency_key_in_use: {
    status: 409,
    specClass: 'Bad input',
    message: 'A request with this Idempotency-Key is still in progress.',
    remedy: 'Wait for the first request to finish, then retry with the same key.',
  },
  not_found: {
    status: 404,
    specClass: 'Not found',
    message: 'No such endpoint.',
    remedy: 'Check the path against the API reference.',
  },
  method_not_allowed: {
    status: 405,
    specClass: 'Not found',
    message: 'This endpoint does not accept that method.',
    remedy: 'Use a method listed in the Allow header.',
  },
  request_timeout: {
    status: 408,
    specClass: 'Bad input',
    message: 'The request was not received in time.',
    remedy: 'Send the whole request promptly.',
  },
  console_login_required: {
    status: 401,
    specClass: 'Console login required',
    message: 'This console call needs a console session: the cookie is missing, unknown or expired.',
    remedy: 'Run latch console for a new one-time login link.',
  },
  console_csrf_invalid: {
    status: 403,
    specClass: 'Host / Origin refused',
    message: "The console call did not carry its session's X-Latch-CSRF header.",
    remedy: 'Reload the console page; calls must come from the console itself.',
  },
  login_code_invalid: {
    status: 401,
    specClass: 'Console login required',
    message: 'The login code is unknown, already used or expired (codes last 60 seconds and work once).',
    remedy: 'Run latch console again for a fresh link.',
  },
  passkey_not_verified: {
    status: 401,
    specClass: 'Invalid passphrase',
    message: 'The passkey answer did not verify for this action.',
    remedy: 'Confirm again with the passkey (a confirmation works once, for the terms it was made for), or use the passphrase.',
  },
  console_busy: {
    status: 429,
    specClass: 'Too many attempts',
    message: 'Too many console pages are watching for approvals at once.',
    remedy: 'Close other console tabs, then reload this one.',
  },
  internal_error: {
    status: 500,
    specClass: 'A bug',
    message: 'An internal error occurred.',
    remedy: 'Report it with the request_id.',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_TABLE;

/** isErrorCode reports whether value is a code in the error table. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_TABLE, value);
}
