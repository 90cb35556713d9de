/**
 * The wire vocabulary of ids: which prefixed ids Latch accepts from a request, a path, a flag or
 * a signed payload, and how it names them in error messages. Every check of an id's form imports
 * its pattern from here, so the daemon, the MCP tools, the CLI and the sandbox cannot disagree.
 */
import type { IdPrefix } from './random-id.js';

/** The ids that travel on the wire and are checked by their form. */
export type WireIdPrefix = Extract<IdPrefix, 'card' | 'pw' | 'tx' | 'dev' | 'ap' | 'md' | 'xa'>;

/**
 * Most characters after the prefix. Latch makes 24; the cloud's ids are accepted up to 64, a
 * bound that keeps every id short enough for logs and paths.
 */
export const WIRE_ID_BODY_LENGTH_MAX = 64;

/** What each id is called in messages ("card_id must be a card id like card_…"). */
const WIRE_ID_NOUNS: Readonly<Record<WireIdPrefix, string>> = {
  card: 'a card id',
  pw: 'a policy id',
  tx: 'a transaction id',
  dev: 'a device id',
  ap: 'an approval id',
  md: 'an AP2 mandate id',
  xa: 'an x402 authorization id',
};

/**
 * wireIdPattern is the anchored pattern of one kind of id: the prefix, an underscore and
 * `bodyLengthMin`..64 lower-case ASCII letters and digits. Upper case, other scripts, percent
 * escapes and separators are refused, so an id can be put in a path or a log line as it is.
 */
export function wireIdPattern(prefix: WireIdPrefix, bodyLengthMin = 1): RegExp {
  if (!Number.isInteger(bodyLengthMin) || bodyLengthMin < 1 || bodyLengthMin > WIRE_ID_BODY_LENGTH_MAX) {
    throw new Error('wireIdPattern: bodyLengthMin must be from 1 to the body maximum');
  }
  return new RegExp(`^${prefix}_[a-z0-9]{${bodyLengthMin},${WIRE_ID_BODY_LENGTH_MAX}}$`);
}

/** isWireId reports whether text is an id of this kind. */
export function isWireId(prefix: WireIdPrefix, text: string): boolean {
  return wireIdPattern(prefix).test(text);
}

/** wireIdWords describes an id for an error message, e.g. "a card id like card_…". */
export function wireIdWords(prefix: WireIdPrefix): string {
  return `${WIRE_ID_NOUNS[prefix]} like ${prefix}_…`;
}

/** The anchored patterns of the ids requests carry. */
export const CARD_ID_PATTERN = wireIdPattern('card');
export const POLICY_ID_PATTERN = wireIdPattern('pw');
export const TRANSACTION_ID_PATTERN = wireIdPattern('tx');
export const APPROVAL_ID_PATTERN = wireIdPattern('ap');
export const MANDATE_ID_PATTERN = wireIdPattern('md');
export const X402_ID_PATTERN = wireIdPattern('xa');
/** The id of any ledger entry: a window's policy id, or an x402 authorization's id (docs/x402.md). */
export const LEDGER_ID_PATTERN = new RegExp(`^(?:pw|xa)_[a-z0-9]{1,${WIRE_ID_BODY_LENGTH_MAX}}$`);

/**
 * The looser shape the sandbox cloud takes where it only looks an id up (an unknown id is simply
 * not found): any lower-case prefix, an underscore and ASCII letters and digits. Callers bound
 * its length themselves.
 */
export const LOOKUP_ID_SHAPE = /^[a-z]+_[A-Za-z0-9]+$/;
