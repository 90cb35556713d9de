/**
 * How the offline checks read a pack's JSON (verify-pack.ts and the checks it calls): an object's
 * members, and the form of a SHA-256 the pack names.
 */

/** A JSON object as parsed, its members not yet checked. */
export type Json = Record<string, unknown>;

/** A SHA-256 as the pack writes it: 64 lowercase hex digits. */
export const HEX64 = /^[0-9a-f]{64}$/;

/** isObject reports whether value is a JSON object (not an array, not null). */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
