import type { JsonObject, JsonValue } from '../json/parse-json.js';
import { LatchError } from '../errors/latch-error.js';
import { currencyDecimals, parseAmountText } from '../money/amount.js';
import { normalizeMerchant } from '../validate/merchant.js';
import { memberPath, refuse } from './policy-invalid-error.js';
import { readChoice, readList, readPattern } from './policy-json-reader.js';
import type { AuthorizationKind, PolicyScope } from './policy-types.js';
import { AGENT_NAME_TEXT } from '../ids/agent-name.js';
import { CARD_ID_PATTERN, wireIdWords } from '../ids/wire-ids.js';
import { REQUEST_KINDS } from '../core/model.js';

/** The daemon token's holder, in `agents`. */
export const OWNER_AGENT = 'owner';
/** Any agent (never the owner), in `agents`. */
export const ANY_AGENT = '*';
/** An entry of `agents`: an agent's name, `owner`, or `*`. */
const AGENT_OR_ANY = new RegExp(`^(?:\\*|${AGENT_NAME_TEXT})$`);
const CURRENCY = /^[A-Z]{3}$/;
const WILDCARD_PREFIX = '*.';
/** The decimals of amounts whose currency the policy does not pin: every currency Latch handles has 2. */
const DEFAULT_AMOUNT_DECIMALS = 2;

export const AGENTS_MAX = 100;
export const CARDS_MAX = 100;
export const MERCHANTS_MAX = 200;
export const CURRENCIES_MAX = 16;
export const KINDS: readonly AuthorizationKind[] = REQUEST_KINDS;

/** The scope members of rules, budgets and velocity limits. */
export const SCOPE_FIELDS = ['agents', 'cards', 'merchants', 'currencies'] as const;

/** readScope reads the optional `agents`, `cards`, `merchants` and `currencies` of one entry. */
export function readScope(object: JsonObject, field: string): PolicyScope {
  const scope: { -readonly [K in keyof PolicyScope]: PolicyScope[K] } = {};
  if (object.agents !== undefined) scope.agents = readList(object.agents, memberPath(field, 'agents'), AGENTS_MAX, readAgent);
  if (object.cards !== undefined) {
    scope.cards = readList(object.cards, memberPath(field, 'cards'), CARDS_MAX, (v, f) => readPattern(v, f, CARD_ID_PATTERN, wireIdWords('card')));
  }
  if (object.merchants !== undefined) scope.merchants = readList(object.merchants, memberPath(field, 'merchants'), MERCHANTS_MAX, readMerchantPattern);
  if (object.currencies !== undefined) {
    scope.currencies = readList(object.currencies, memberPath(field, 'currencies'), CURRENCIES_MAX, (v, f) =>
      readPattern(v, f, CURRENCY, 'an ISO 4217 code of three upper-case letters like USD'),
    );
  }
  return scope;
}

/** readKinds reads a rule's `kinds`. */
export function readKinds(value: JsonValue, field: string): AuthorizationKind[] {
  return readList(value, field, KINDS.length, (v, f) => readChoice(v, f, KINDS));
}

function readAgent(value: JsonValue, field: string): string {
  return readPattern(value, field, AGENT_OR_ANY, `an agent name (${AGENT_NAME_TEXT}), "owner" or "*"`);
}

/**
 * readMerchantPattern reads an exact domain or `*.domain`, normalized as requests are (lower case,
 * no trailing dot, IDNA A-labels), so a look-alike in the file is the look-alike's `xn--` form
 * and can never equal the Latin domain. `*.` only stands first and covers strict subdomains.
 */
function readMerchantPattern(value: JsonValue, field: string): string {
  const text = readPattern(value, field, /^[^]{1,256}$/, 'a domain');
  const wildcard = text.startsWith(WILDCARD_PREFIX);
  const domain = wildcard ? text.slice(WILDCARD_PREFIX.length) : text;
  try {
    const normalized = normalizeMerchant(domain, field);
    return wildcard ? WILDCARD_PREFIX + normalized : normalized;
  } catch (error) {
    if (error instanceof LatchError) refuse(field, `must be a domain like shop.example or *.shop.example (${reasonOf(error)}).`);
    throw error;
  }
}

/** normalizeMerchant's message names its param first; keep only the reason after the colon. */
function reasonOf(error: LatchError): string {
  const colon = error.message.indexOf(': ');
  return colon === -1 ? 'not a valid domain' : error.message.slice(colon + 2).replace(/\.$/, '');
}

/**
 * amountDecimals gives the decimal places of an entry's amounts: those of its `currencies` when
 * Latch knows them (they must agree), else 2, the decimals of every currency Latch handles.
 */
export function amountDecimals(scope: PolicyScope, field: string): number {
  const known = (scope.currencies ?? []).map(currencyDecimals).filter((d): d is number => d !== undefined);
  const first = known[0] ?? DEFAULT_AMOUNT_DECIMALS;
  if (known.some((d) => d !== first)) refuse(memberPath(field, 'currencies'), 'currencies with different decimal places cannot share one amount.');
  return first;
}

/**
 * readAmount reads a decimal amount given as a string ("12.50") into minor units, within
 * [min, max]. A JSON number is refused: money is never a binary float in Latch.
 */
export function readAmount(value: JsonValue, field: string, decimals: number, bounds: { allowZero: boolean; maxMinor: number }): number {
  if (typeof value !== 'string') refuse(field, 'must be a decimal amount in a string, like "12.50".');
  if (value.length > 32) refuse(field, 'is too long.');
  try {
    return parseAmountText(value, { param: field, decimals, allowZero: bounds.allowZero, maxMinor: bounds.maxMinor });
  } catch (error) {
    if (error instanceof LatchError) refuse(field, error.message.startsWith(`${field} `) ? error.message.slice(field.length + 1) : error.message);
    throw error;
  }
}
