import { invalidRequest } from '../errors/latch-error.js';

/** Authorization lifetimes: 1 minute to 24 hours (docs/decisions.md §13), in seconds. */
export const TTL_SECONDS_MIN = 60;
export const TTL_SECONDS_MAX = 86_400;
/** Variant A's ttl_minutes bounds, the same lifetimes in minutes. */
export const TTL_MINUTES_MIN = 1;
export const TTL_MINUTES_MAX = 1440;

const SECONDS_PER_UNIT = { s: 1, m: 60, h: 3600 } as const;
/** `<n><unit>`: n a plain positive integer (no sign, leading zero or fraction), unit s, m or h. */
const TTL_TEXT = /^([1-9][0-9]{0,5})([smh])$/;

/**
 * parseTtlString reads Variant B's `ttl` (`90s`, `30m`, `2h`) as seconds, within 60..86400 s.
 * Anything else, including a bare number, upper-case units, spaces, signs, leading zeros and
 * fractions, is refused with `invalid_request` naming `param`.
 */
export function parseTtlString(text: string, param = 'ttl'): number {
  const match = TTL_TEXT.exec(text);
  if (match === null) {
    throw invalidRequest(param, `${param} must be a whole number followed by s, m or h, like 30m.`);
  }
  const seconds = Number(match[1]) * SECONDS_PER_UNIT[match[2] as keyof typeof SECONDS_PER_UNIT];
  if (seconds < TTL_SECONDS_MIN || seconds > TTL_SECONDS_MAX) {
    throw invalidRequest(param, `${param} must be from 1 minute to 24 hours (60s to 86400s, 1m to 1440m, up to 24h).`);
  }
  return seconds;
}

