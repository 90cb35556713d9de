import { domainToASCII } from 'node:url';
import { invalidRequest, LatchError } from '../errors/latch-error.js';
import { containsCardNumber } from './card-number-scan.js';

/** A domain is at most 253 characters (RFC 1035, without the trailing dot), each label 1–63. */
const DOMAIN_LENGTH_MAX = 253;
const LABEL_LENGTH_MAX = 63;
/** Input longer than this is refused before any Unicode processing. */
const INPUT_LENGTH_MAX = 1024;

/**
 * Characters that are invisible or change how text displays: format controls (zero-width,
 * bidi), default-ignorable code points (soft hyphen, variation selectors, Hangul fillers),
 * controls, and every kind of space. IDNA would silently drop some of them; Latch refuses them,
 * so the merchant the user approves is the merchant that is signed.
 */
const INVISIBLE_OR_SPACE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Z}\s]/u;
/** One LDH label after IDNA: letters, digits, inner hyphens. */
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
/** Top-level domains are alphabetic (or an IDNA A-label); this also rules out numeric hosts. */
const TOP_LEVEL_LABEL = /^(?:[a-z]+|xn--[a-z0-9-]+)$/;
const DOTTED_IPV4 = /^[0-9]+(?:\.[0-9]+){3}$/;

/**
 * normalizeMerchant turns a merchant domain into the one form Latch signs and the cloud compares
 * exactly (docs/decisions.md §5): lower case, one trailing dot removed, IDNA to ASCII (so a Cyrillic
 * look-alike becomes its distinct `xn--` form). It refuses schemes, paths, queries, ports, user
 * info, IP literals, wildcards, whitespace, invisible characters, empty or over-long labels,
 * labels starting or ending with a hyphen, names over 253 characters and single-label names,
 * with `invalid_request` naming `param`. The refused value is never repeated in the message.
 * The normalized form is checked by the card-data guard again: IDNA can turn text that holds no
 * card number (`4111é1111é1111é1111.com`) into one that does (`xn--4111111111111111-eqbee.com`),
 * and that form is what would be signed, sent and recorded (`card_data_not_accepted`).
 */
export function normalizeMerchant(input: string, param = 'merchant'): string {
  const refuse = (why: string): never => {
    throw invalidRequest(param, `${param} must be a domain like shop.example.com: ${why}.`);
  };
  if (input.length === 0) refuse('it is empty');
  if (input.length > INPUT_LENGTH_MAX) refuse('it is too long');
  if (INVISIBLE_OR_SPACE.test(input)) refuse('no spaces, control or invisible characters');
  if (input.includes('://')) refuse('no scheme such as https://');
  if (input.includes('@')) refuse('no user info');
  if (/[/\\?#]/.test(input)) refuse('no path, query or fragment');
  if (input.includes('[') || input.includes(']')) refuse('no IP address');
  if (input.includes(':')) refuse('no port');
  if (input.includes('*')) refuse('no wildcard');
  if (input.includes('%')) refuse('no percent-encoding');
  // The only ASCII allowed is what a domain is made of; anything else is refused, not mapped.
  if (/[\x00-\x2c\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]/.test(input)) refuse('only letters, digits, hyphens and dots');

  let ascii = domainToASCII(input);
  if (ascii === '') refuse('not a valid internationalized domain name');
  if (ascii.endsWith('.')) ascii = ascii.slice(0, -1);
  if (DOTTED_IPV4.test(ascii)) refuse('no IP address');
  if (ascii.length > DOMAIN_LENGTH_MAX) refuse(`at most ${DOMAIN_LENGTH_MAX} characters`);

  const labels = ascii.split('.');
  if (labels.length < 2) refuse('it needs at least one dot');
  for (const label of labels) {
    if (label.length === 0) refuse('no empty labels');
    if (label.length > LABEL_LENGTH_MAX) refuse(`each label at most ${LABEL_LENGTH_MAX} characters`);
    if (!LDH_LABEL.test(label)) refuse('labels of letters, digits and inner hyphens');
    // IDNA2008 reserves "??--" labels for A-labels; only xn-- is meaningful.
    if (label.slice(2, 4) === '--' && !label.startsWith('xn--')) refuse('no reserved "--" labels');
  }
  if (!TOP_LEVEL_LABEL.test(labels[labels.length - 1] as string)) refuse('the top-level domain must be letters');
  if (containsCardNumber(ascii)) throw new LatchError('card_data_not_accepted');
  return ascii;
}
