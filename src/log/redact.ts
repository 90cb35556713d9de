import { containsCardNumber } from '../validate/card-number-scan.js';
import { looksSecretName } from './secret-names.js';

/** The text written in place of anything withheld from a log line. */
export const REDACTED = '[redacted]';

// Limits keep one log line bounded whatever it is given (TigerStyle: a limit on everything).
const DEPTH_MAX = 6;
const ITEMS_MAX = 100;
const STRING_CHARS_MAX = 2048;
// Beyond this a string is dropped unread: scanning megabytes for secrets on every line is not worth it.
const STRING_SCAN_CHARS_MAX = 1024 * 1024;
const ERROR_MESSAGE_CHARS_MAX = 300;

// "Bearer <credential>" anywhere in a string, as in a copied Authorization header.
const BEARER = /\b(Bearer)\s+[^\s,;"']+/gi;

/**
 * redactString replaces every registered secret and any bearer credential in text with
 * "[redacted]", withholds the whole string when it holds something shaped like a card number,
 * and shortens it to a bounded length. Secrets are replaced before shortening, so a cut can
 * never leave half a secret behind.
 */
export function redactString(text: string, secrets: ReadonlySet<string>): string {
  if (text.length > STRING_SCAN_CHARS_MAX) return '[omitted: too long]';
  let result = text;
  for (const secret of secrets) {
    if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  }
  result = result.replace(BEARER, `$1 ${REDACTED}`);
  if (containsCardNumber(result)) return REDACTED;
  if (result.length > STRING_CHARS_MAX) result = `${result.slice(0, STRING_CHARS_MAX)}…[truncated]`;
  return result;
}

/**
 * redactValue returns a JSON-safe copy of value for a log line: fields named like secrets or
 * card data become "[redacted]", strings pass through redactString, numbers that look like card
 * numbers are withheld, bytes are never dumped, errors become `{name, code, message}` without a
 * stack, and depth, item counts and cycles are bounded.
 */
export function redactValue(value: unknown, secrets: ReadonlySet<string>): unknown {
  return redactAt(value, secrets, 0, new WeakSet());
}

function redactAt(value: unknown, secrets: ReadonlySet<string>, depth: number, ancestors: WeakSet<object>): unknown {
  switch (typeof value) {
    case 'string':
      return redactString(value, secrets);
    case 'number':
      if (!Number.isFinite(value)) return String(value);
      return Number.isInteger(value) && containsCardNumber(String(value)) ? REDACTED : value;
    case 'bigint':
      return redactString(value.toString(), secrets);
    case 'boolean':
      return value;
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return null;
  const object = value as object;
  if (object instanceof Date) return Number.isNaN(object.getTime()) ? 'Invalid Date' : object.toISOString();
  if (object instanceof Error) return describeError(object, secrets);
  if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) return '[bytes]';
  if (object instanceof Map || object instanceof Set || object instanceof WeakMap || object instanceof WeakSet) return `[${object.constructor.name}]`;
  if (depth >= DEPTH_MAX) return '[depth limit]';
  if (ancestors.has(object)) return '[circular]';
  ancestors.add(object);
  try {
    if (Array.isArray(object)) return redactArray(object, secrets, depth, ancestors);
    const toJSON = (object as { toJSON?: unknown }).toJSON;
    // An object that says how it serializes (DeviceKey, for one) is logged the same way.
    if (typeof toJSON === 'function') return redactAt(toJSON.call(object), secrets, depth + 1, ancestors);
    return redactObject(object as Record<string, unknown>, secrets, depth, ancestors);
  } finally {
    ancestors.delete(object);
  }
}

function redactArray(items: readonly unknown[], secrets: ReadonlySet<string>, depth: number, ancestors: WeakSet<object>): unknown[] {
  const result = items.slice(0, ITEMS_MAX).map((item) => redactAt(item, secrets, depth + 1, ancestors) ?? null);
  if (items.length > ITEMS_MAX) result.push(`[${items.length - ITEMS_MAX} more]`);
  return result;
}

function redactObject(object: Record<string, unknown>, secrets: ReadonlySet<string>, depth: number, ancestors: WeakSet<object>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const keys = Object.keys(object);
  for (const key of keys.slice(0, ITEMS_MAX)) {
    const safeKey = redactKey(key, secrets);
    const item = looksSecretName(key) ? REDACTED : redactAt(object[key], secrets, depth + 1, ancestors);
    if (item !== undefined) defineField(result, safeKey, item);
  }
  if (keys.length > ITEMS_MAX) defineField(result, '[more keys]', keys.length - ITEMS_MAX);
  return result;
}

function redactKey(key: string, secrets: ReadonlySet<string>): string {
  // A key is data too when a caller builds objects keyed by user input.
  const redacted = redactString(key, secrets);
  return redacted.length > 128 ? `${redacted.slice(0, 128)}…` : redacted;
}

/**
 * describeError keeps what identifies an error and nothing that could carry data: the stack is
 * dropped (it can quote source and arguments) and the message is redacted and shortened.
 */
export function describeError(error: Error, secrets: ReadonlySet<string>): Record<string, unknown> {
  const described: Record<string, unknown> = { name: redactString(error.name, secrets) };
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') described['code'] = redactString(String(code), secrets);
  const message = redactString(error.message, secrets);
  described['message'] = message.length > ERROR_MESSAGE_CHARS_MAX ? `${message.slice(0, ERROR_MESSAGE_CHARS_MAX)}…` : message;
  return described;
}

function defineField(target: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty, not assignment, so a key named `__proto__` is stored as data.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
