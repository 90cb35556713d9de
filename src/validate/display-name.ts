import { invalidRequest, type LatchError } from '../errors/latch-error.js';
import { isCardFieldName } from './card-field-names.js';
import { containsCardNumber } from './card-number-scan.js';

/** Names echoed in an error are cut to this many characters, with an ellipsis. */
export const DISPLAY_NAME_CHARS_MAX = 64;
const SAFE_NAME = /^[A-Za-z0-9_.-]+$/;

/**
 * displayName returns a caller-supplied name in the form an error may repeat, or undefined when it
 * must not be repeated: only names of letters, digits, `_`, `.` and `-` that the card-data guard
 * passes are echoed, cut to 64 characters. So an error never carries markup, control or bidi
 * characters, look-alikes or card data back to the caller, a terminal or a log.
 */
export function displayName(name: string): string | undefined {
  if (name.length === 0 || !SAFE_NAME.test(name)) return undefined;
  if (isCardFieldName(name) || containsCardNumber(name)) return undefined;
  return name.length > DISPLAY_NAME_CHARS_MAX ? `${name.slice(0, DISPLAY_NAME_CHARS_MAX)}…` : name;
}

/**
 * unknownNameError is the `invalid_request` for an unknown body field or query parameter. It names
 * the field in `param` and the message when displayName allows, and otherwise names only where it
 * was (`body` or `query`).
 */
export function unknownNameError(where: 'body' | 'query', name: string): LatchError {
  const what = where === 'body' ? 'field' : 'query parameter';
  const shown = displayName(name);
  if (shown === undefined) return invalidRequest(where, `Unknown ${what}; its name is not repeated because it holds characters other than letters, digits, "_", "." and "-".`);
  return invalidRequest(shown, `Unknown ${what} ${shown}.`);
}
