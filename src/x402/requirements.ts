/**
 * x402 v2's PaymentRequirements and ResourceInfo as the guard keeps them (shared/spec/x402.md §2,
 * §6), with the one canonical form that is hashed (the receipt, the evidence pack, the adapter's
 * Idempotency-Key) and the one comparison a payload binding uses.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { canonicalJson } from '../core/approval.js';
import { sameAddress } from './assets.js';

/** The schemes the guard decides: `exact` counts its amount, `upto` reserves its maximum. */
export const X402_SCHEMES = ['exact', 'upto'] as const;
export type X402Scheme = (typeof X402_SCHEMES)[number];

/** The only x402 version the guard speaks. */
export const X402_VERSION = 2;

/** One PaymentRequirements, as x402 v2 names its members. */
export interface X402Requirements {
  scheme: X402Scheme;
  network: string;
  /** The atomic amount (for `upto`, the maximum), 1–78 digits. */
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  /** Scheme data (EIP-712 domain name and version for EVM): hashed, never interpreted. */
  extra?: Record<string, unknown>;
}

/** x402's ResourceInfo: `url` is what the merchant is read from; the rest is shown and kept. */
export interface X402Resource {
  url: string;
  description?: string;
  mimeType?: string;
  serviceName?: string;
  tags?: string[];
  iconUrl?: string;
}

/** requirementsSha256 is the lowercase hex SHA-256 of the requirements' canonical JSON (keys sorted at every depth). */
export function requirementsSha256(requirements: X402Requirements): string {
  return bytesToHex(sha256(new TextEncoder().encode(canonicalJson(requirements))));
}

/**
 * sameRequirements reports whether `accepted` (what the payment carries) is exactly the authorized
 * requirements: every member equal, EVM addresses case-insensitively, `extra` by its canonical form.
 */
export function sameRequirements(authorized: X402Requirements, accepted: unknown): boolean {
  if (typeof accepted !== 'object' || accepted === null || Array.isArray(accepted)) return false;
  const other = accepted as Record<string, unknown>;
  const members = new Set([...Object.keys(other).filter((name) => other[name] !== undefined)]);
  for (const name of members) if (!['scheme', 'network', 'amount', 'asset', 'payTo', 'maxTimeoutSeconds', 'extra'].includes(name)) return false;
  return (
    other['scheme'] === authorized.scheme &&
    other['network'] === authorized.network &&
    other['amount'] === authorized.amount &&
    typeof other['asset'] === 'string' &&
    sameAddress(other['asset'], authorized.asset) &&
    typeof other['payTo'] === 'string' &&
    sameAddress(other['payTo'], authorized.payTo) &&
    other['maxTimeoutSeconds'] === authorized.maxTimeoutSeconds &&
    canonicalJson(other['extra'] ?? null) === canonicalJson(authorized.extra ?? null)
  );
}
