/**
 * The one canonical form of x402 requirements that is hashed (the receipt, the evidence pack) and
 * the one comparison a payload binding uses (shared/spec/x402.md §3, §6).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { sameAddress } from '../x402/assets.js';
import type { X402Requirements } from '../x402/requirements.js';
import { canonicalJson } from './approval.js';

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
