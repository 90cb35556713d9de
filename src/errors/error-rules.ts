/**
 * The rule half of the one error table (docs/decisions.md §7): each code, the HTTP status it is
 * answered with and its default message. The audited core (SECURITY.md) refuses with these; the
 * text half a person reads to act on a refusal, each code's class and remedy, is error-table.ts,
 * which joins both into ERROR_TABLE. They are two files so that the core imports no remedy text
 * (docs/decisions.md §43); test/errors/docs-error-table.test.ts checks the joined table against
 * docs/errors.md.
 */
export interface ErrorRule {
  /** Default HTTP status. */
  readonly status: number;
  /** Other statuses the same code may carry (only `upstream_unavailable`: 503 and 504). */
  readonly alternateStatuses?: readonly number[];
  /** Default human message; never contains secrets or card data. */
  readonly message: string;
}

export const ERROR_RULES = {
  missing_bearer_token: {
    status: 401,
    message: 'This endpoint needs an Authorization: Bearer <token> header.',
  },
  invalid_bearer_token: {
    status: 401,
    message: "The bearer token is neither the daemon token nor a current agent's token.",
  },
  clock_skew: {
    status: 502,
    message: "This device's clock is too far from the cloud's for signed requests.",
  },
  daemon_paused: {
    status: 409,
    message: 'The owner has paused signing: nothing that authorizes spending or moves money is signed until they resume it.',
  },
  agent_not_permitted: {
    status: 403,
    message: 'An agent token may not call this endpoint; it is the owner\'s alone.',
  },
  owner_presence_required: {
    status: 403,
    message: "This action needs the owner's presence, not only the daemon token.",
  },
  proxy_route_not_allowed: {
    status: 403,
    message: 'The /v1 proxy does not forward this request: it registers or changes a window the daemon did not sign through its authorization pipeline.',
  },
  agent_exists: {
    status: 409,
    message: 'An agent of that name already exists.',
  },
  agent_not_found: {
    status: 404,
    message: 'There is no agent of that name.',
  },
  policy_denied: {
    status: 403,
    message: "The owner's spending policy refuses this request.",
  },
  approval_denied: {
    status: 403,
    message: 'The owner denied this request; nothing was signed.',
  },
  approval_not_found: {
    status: 404,
    message: 'No such approval.',
  },
  approval_not_pending: {
    status: 409,
    message: 'This approval is no longer pending: it was already approved, denied, or it expired or failed.',
  },
  invalid_passphrase: {
    status: 401,
    message: 'The owner passphrase is wrong.',
  },
  too_many_attempts: {
    status: 429,
    message: 'Too many wrong owner passphrases: every passphrase check is refused until 15 minutes after the first of them.',
  },
  too_many_pending_approvals: {
    status: 429,
    message: 'This caller already has as many pending approvals as the owner allows (approvals_pending_max_per_agent).',
  },
  card_not_found: {
    status: 404,
    message: 'No such card on this account.',
  },
  authorization_not_found: {
    status: 404,
    message: 'No such authorization on this account.',
  },
  transaction_not_found: {
    status: 404,
    message: 'No such transaction on this account.',
  },
  insufficient_funds: {
    status: 402,
    message: 'The card or wallet balance is too small for this operation.',
  },
  daily_limit_exceeded: {
    status: 402,
    message: "The amount would exceed the card's daily limit.",
  },
  authorization_expired: {
    status: 410,
    message: 'The authorization expired before the merchant charged.',
  },
  authorization_not_active: {
    status: 409,
    message: 'The authorization is no longer active: it was used, expired or revoked.',
  },
  evidence_unavailable: {
    status: 409,
    message: 'No evidence pack can be made for this authorization: it was signed before this device kept evidence, or with a key it no longer holds.',
  },
  scope_mismatch: {
    status: 403,
    message: 'The merchant or amount does not match the authorization.',
  },
  card_frozen: {
    status: 409,
    message: 'The card has no active authorization; charges are refused.',
  },
  card_closed: {
    status: 409,
    message: 'The card is closed.',
  },
  currency_mismatch: {
    status: 400,
    message: "The currency is not the card's currency.",
  },
  verification_cap_exceeded: {
    status: 429,
    message: 'The merchant-verification cap for this card is reached.',
  },
  setup_token_expired: {
    status: 401,
    message: 'The setup token expired before the device connected.',
  },
  setup_token_invalid: {
    status: 401,
    message: 'The setup token is unknown, or was already used: a setup token connects one device, once.',
  },
  local_key_not_recognized: {
    status: 401,
    message: 'The cloud no longer recognizes this device key.',
  },
  device_key_not_recognized: {
    status: 401,
    message: 'The signing key id is not registered with this cloud.',
  },
  invalid_signature: {
    status: 401,
    message: 'The request or payload signature does not verify.',
  },
  signature_expired: {
    status: 401,
    message: 'The signature was created outside the accepted time window.',
  },
  replayed_request: {
    status: 401,
    message: 'This signed request was already seen.',
  },
  device_not_enrolled: {
    status: 409,
    message: 'This device is not enrolled with a cloud yet.',
  },
  upstream_unavailable: {
    status: 502,
    alternateStatuses: [503, 504],
    message: 'The cloud API is unavailable.',
  },
  data_directory_unavailable: {
    status: 503,
    message: "The daemon's data directory needs attention (a file became unsafe, corrupt or unwritable).",
  },
  fetch_unavailable: {
    status: 503,
    message: "This process's address-space limit (ulimit -v) leaves no room for fetch's WebAssembly HTTP parser, which the cloud client needs.",
  },
  policy_invalid: {
    status: 503,
    // 400 when the owner sends an invalid policy to PUT /policy: nothing changes (docs/decisions.md §21).
    alternateStatuses: [400],
    message: 'policy.json is invalid; nothing it governs is signed until it is fixed.',
  },
  invalid_admin_key: {
    status: 401,
    message: 'The sandbox admin key is missing or wrong.',
  },
  invalid_request: {
    status: 400,
    message: 'The request is not valid.',
  },
  invalid_agent_key: {
    status: 400,
    message: "agent_key is not the agent's P-256 public JWK.",
  },
  card_data_not_accepted: {
    status: 400,
    message: 'Card numbers, CVVs and other card data are never accepted. Use card_id.',
  },
  payload_too_large: {
    status: 413,
    message: 'The request body is too large.',
  },
  unsupported_media_type: {
    status: 415,
    message: 'POST bodies must be JSON with Content-Type: application/json.',
  },
  forbidden_host: {
    status: 403,
    message: 'The Host header is not a loopback name for this port.',
  },
  forbidden_origin: {
    status: 403,
    message: 'Requests from web pages are refused (Origin, Referer or cross-site fetch).',
  },
  x402_version_not_supported: {
    status: 400,
    message: 'The x402 guard speaks x402 version 2 only.',
  },
  x402_scheme_not_supported: {
    status: 400,
    message: 'The x402 guard decides the exact and upto schemes only.',
  },
  x402_terms_changed: {
    status: 409,
    message: 'The payment was built for other requirements than the ones authorized; the authorization is released.',
  },
  x402_authorization_expired: {
    status: 409,
    message: 'This x402 authorization expired before its payment was bound; it is released.',
  },
  x402_authorization_not_bindable: {
    status: 409,
    message: 'This x402 authorization is not waiting for its payment (it was bound, released, or is already final).',
  },
  x402_settlement_conflict: {
    status: 409,
    message: 'A different settlement was already reported for this x402 authorization; the first report stands.',
  },
  x402_not_bound: {
    status: 409,
    message: 'A settlement can be reported only for an x402 authorization whose payment was bound.',
  },
  idempotency_key_reused: {
    status: 422,
    message: 'This Idempotency-Key was already used with a different request.',
  },
  idempotency_key_in_use: {
    status: 409,
    message: 'A request with this Idempotency-Key is still in progress.',
  },
  not_found: {
    status: 404,
    message: 'No such endpoint.',
  },
  method_not_allowed: {
    status: 405,
    message: 'This endpoint does not accept that method.',
  },
  request_timeout: {
    status: 408,
    message: 'The request was not received in time.',
  },
  console_login_required: {
    status: 401,
    message: 'This console call needs a console session: the cookie is missing, unknown or expired.',
  },
  console_csrf_invalid: {
    status: 403,
    message: "The console call did not carry its session's X-Latch-CSRF header.",
  },
  login_code_invalid: {
    status: 401,
    message: 'The login code is unknown, already used or expired (codes last 60 seconds and work once).',
  },
  passkey_not_verified: {
    status: 401,
    message: 'The passkey answer did not verify for this action.',
  },
  console_busy: {
    status: 429,
    message: 'Too many console pages are watching for approvals at once.',
  },
  internal_error: {
    status: 500,
    message: 'An internal error occurred.',
  },
} as const satisfies Record<string, ErrorRule>;

export type ErrorCode = keyof typeof ERROR_RULES;

/** isErrorCode reports whether value is a code in the error table. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_RULES, value);
}

/**
 * local_key_not_recognized's remedy, which its message also carries (cloud/cloud-errors.ts): the
 * caller seeing it must tell the user to reconnect.
 */
export const LOCAL_KEY_NOT_RECOGNIZED_REMEDY = 'Reconnect the device with fresh key material: latch setup --reconnect --token <setup_token>.';
