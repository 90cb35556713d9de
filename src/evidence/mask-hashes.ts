/**
 * The SHA-256 values in an evidence pack, masked for the card-data guard only: 64 random hex digits
 * hold a Luhn-valid run of 13 to 19 digits now and then (signer/evidence-pack.ts).
 */
const HEX64 = /^[0-9a-f]{64}$/;

/**
 * maskHashes returns a copy for the guard in which every 64-digit hex string is blank and every
 * audit line is its parsed record, masked the same way (a line's `prev` is such a hash).
 */
export function maskHashes(value: unknown, inAuditLines = false): unknown {
  if (typeof value === 'string') {
    if (HEX64.test(value)) return '';
    if (inAuditLines) {
      try {
        return maskHashes(JSON.parse(value));
      } catch {
        return value;
      }
    }
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => maskHashes(item, inAuditLines));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) out[name] = maskHashes(item, name === 'lines');
    return out;
  }
  return value;
}
