import { looksSecretName } from '../log/secret-names.js';
import { containsCardNumber } from '../validate/card-number-scan.js';

/** A scalar an audit field may hold. */
export type AuditValue = string | number | boolean | null;

/**
 * AuditEntry is what the daemon records for one signature (docs/decisions.md §11). `operation` names what
 * was signed (`sign_card_policy_window`, `sign_revocation`, ...); amounts are decimal text. Extra
 * fields are allowed (`kind`, `authorization_type`, ...) as long as their names do not look like
 * secrets or card data, which is refused outright.
 */
export interface AuditEntry {
  /** ISO 8601; the current time when absent. */
  time?: string;
  operation: string;
  policy_id?: string | null;
  card_id?: string | null;
  merchant?: string | null;
  amount?: string | null;
  currency?: string | null;
  key_id?: string | null;
  request_id?: string | null;
  user_agent?: string | null;
  /** Who asked: `owner` or the agent's name (an extra field; lines written before it lack it). */
  agent?: string;
  [field: string]: AuditValue | undefined;
}

/** AuditRecord is one parsed line of audit.log: the entry plus its place in the hash chain. */
export interface AuditRecord {
  seq: number;
  /** SHA-256 (hex) of the previous line's exact text; 64 zeros for the first line. */
  prev: string;
  time: string;
  operation: string;
  policy_id: string | null;
  card_id: string | null;
  merchant: string | null;
  amount: string | null;
  currency: string | null;
  key_id: string | null;
  request_id: string | null;
  user_agent: string | null;
  [field: string]: AuditValue;
}

/** The standard fields after seq and prev, in the order every line writes them. */
export const STANDARD_FIELDS = ['time', 'operation', 'policy_id', 'card_id', 'merchant', 'amount', 'currency', 'key_id', 'request_id', 'user_agent'] as const;

const CHAIN_FIELDS: ReadonlySet<string> = new Set(['seq', 'prev']);
const STANDARD: ReadonlySet<string> = new Set(STANDARD_FIELDS);
const OPERATION_SHAPE = /^[a-z][a-z0-9_.-]{0,63}$/;
const FIELD_NAME_SHAPE = /^[a-z][a-z0-9_]{0,63}$/;
const EXTRA_FIELDS_MAX = 16;
const SHA256_HEX = /^[0-9a-f]{64}$/;
const VALUE_CHARS_MAX = 512;
// User-Agent is chosen by the caller; it is kept short so that it cannot bloat the log.
const USER_AGENT_CHARS_MAX = 256;

/**
 * auditFields checks an entry and returns the fields of its line, after seq and prev, in a fixed
 * order: the standard fields (null when absent), then extra fields sorted by name. A field whose
 * name looks secret, a malformed operation or a non-scalar value is a programmer error and
 * throws a TypeError naming the field (never its value). Caller-controlled text is bounded, and
 * text shaped like a card number is stored as "[redacted]".
 */
export function auditFields(entry: AuditEntry, now: Date): Record<string, AuditValue> {
  if (typeof entry.operation !== 'string' || !OPERATION_SHAPE.test(entry.operation)) throw new TypeError('audit entry: operation must be a short lower-case name');
  const fields: Record<string, AuditValue> = {};
  fields['time'] = auditTime(entry.time, now);
  fields['operation'] = entry.operation;
  for (const name of STANDARD_FIELDS.slice(2)) {
    const value = entry[name];
    if (value !== undefined && value !== null && typeof value !== 'string') throw new TypeError(`audit entry: ${name} must be a string or null`);
    fields[name] = value === undefined || value === null ? null : boundedText(value, name === 'user_agent' ? USER_AGENT_CHARS_MAX : VALUE_CHARS_MAX);
  }
  const extras = Object.keys(entry).filter((name) => !STANDARD.has(name)).sort();
  if (extras.length > EXTRA_FIELDS_MAX) throw new TypeError(`audit entry: at most ${EXTRA_FIELDS_MAX} extra fields`);
  for (const name of extras) {
    if (!FIELD_NAME_SHAPE.test(name) || CHAIN_FIELDS.has(name)) throw new TypeError(`audit entry: field name ${JSON.stringify(name.slice(0, 64))} is not allowed`);
    if (looksSecretName(name)) throw new TypeError(`audit entry: field ${name} looks like a secret or card data and is never recorded`);
    const value = entry[name];
    if (value === undefined) continue;
    // A SHA-256 the daemon computed (`request_sha256`) is a hash, not a number anyone wrote: 64
    // random hex digits hold a Luhn-valid run about once in 250, which must not be redacted away
    // (docs/decisions.md §22.1). Only these fields, and only exact hashes, skip the card scan.
    if (name.endsWith('_sha256') && typeof value === 'string' && SHA256_HEX.test(value)) {
      fields[name] = value;
      continue;
    }
    fields[name] = checkedExtra(name, value);
  }
  return fields;
}

function auditTime(time: string | undefined, now: Date): string {
  if (time === undefined) return now.toISOString();
  const parsed = typeof time === 'string' ? new Date(time) : new Date(Number.NaN);
  if (Number.isNaN(parsed.getTime())) throw new TypeError('audit entry: time must be an ISO 8601 timestamp');
  return parsed.toISOString();
}

function checkedExtra(name: string, value: AuditValue): AuditValue {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`audit entry: ${name} must be a finite number`);
    return Number.isInteger(value) && containsCardNumber(String(value)) ? '[redacted]' : value;
  }
  if (typeof value === 'string') return boundedText(value, VALUE_CHARS_MAX);
  throw new TypeError(`audit entry: ${name} must be a string, number, boolean or null`);
}

function boundedText(value: string, charsMax: number): string {
  // Card data must never be stored (docs/decisions.md §8), even when it arrives in a header.
  if (containsCardNumber(value)) return '[redacted]';
  return value.length > charsMax ? `${value.slice(0, charsMax)}…` : value;
}
