import { AUTHORIZATION_AMOUNT_MAX_MINOR } from '../../money/amount.js';

/** The sandbox's business limits (docs/decisions.md §5, §13); createSandbox can override them. */
export interface SandboxLimits {
  /** Largest one-time or recurring window, minor units: 10,000.00. */
  authorizationAmountMaxMinor: number;
  /** Largest merchant-verification window, minor units: 1.00. */
  verificationAmountMaxMinor: number;
  /** Merchant-verification windows per card in any rolling 24 hours. */
  verificationsPer24h: number;
}

export const DEFAULT_LIMITS: Readonly<SandboxLimits> = {
  authorizationAmountMaxMinor: AUTHORIZATION_AMOUNT_MAX_MINOR,
  verificationAmountMaxMinor: 100,
  verificationsPer24h: 3,
};

/** One-time and merchant-verification windows last between 1 minute and 24 hours (docs/decisions.md §13). */
export const WINDOW_SECONDS_MIN = 60;
export const WINDOW_SECONDS_MAX = 86_400;
/** How far ahead a one-time window may start: the signer's clock may run a little fast. */
export const NOT_BEFORE_LEEWAY_SECONDS = 300;
/** A recurring schedule may start up to a year ahead and run up to ten years. */
export const RECURRING_START_AHEAD_SECONDS_MAX = 366 * 86_400;
export const RECURRING_SECONDS_MAX = 10 * 366 * 86_400;
/** Freshness of signatures (RFC 9421 `created`, revocation `iat`), on the real clock. */
export const SIGNATURE_SKEW_SECONDS = 300;
