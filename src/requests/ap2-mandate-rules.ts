/**
 * The body of POST /ap2/mandates (shared/spec/ap2-mandates.md §2, docs/ap2.md): the same amount,
 * currency, card and ttl rules as /authorize, plus the merchant as AP2 names it (its https website's
 * host is the merchant the policy sees), the line items and the agent's P-256 public key. The MCP
 * tool and the CLI send the same body. The card-data guard has already run on every field at the
 * front door; titles and names are bounded text like every string.
 */
import { LatchError, invalidRequest } from '../errors/latch-error.js';
import { isJsonObject, type JsonValue } from '../json/parse-json.js';
import { AUTHORIZATION_AMOUNT_MAX_MINOR } from '../money/amount.js';
import { p256PublicJwkFromUntrusted, type P256PublicJwk } from '../ap2/p256.js';
import { normalizeMerchant } from '../validate/merchant.js';
import { amount, int, str } from '../validate/schema.js';
import { wrongType } from '../validate/field-rule.js';
import { exactObject, objectRule } from '../validate/object-rule.js';
import type { RuleJsonSchema } from '../validate/rule-json-schema.js';
import { TTL_MINUTES_MAX, TTL_MINUTES_MIN } from '../validate/ttl.js';
import { cardIdField, currencyField } from './common-fields.js';
import type { Ap2Item, Ap2Merchant, MandateLine } from '../ap2/open-mandates.js';
import { AP2_FREQUENCIES, MAX_OCCURRENCES_MAX, type Ap2Frequency, type MandateRecurrence } from '../ap2/recurrence.js';
import { currencyDecimals } from '../money/amount.js';

/** Bounds of a mandate request: lines, alternatives per line, quantity, and text lengths. */
export const MANDATE_LINES_MAX = 20;
export const MANDATE_ALTERNATIVES_MAX = 9;
export const MANDATE_QUANTITY_MAX = 99;
const ID_LENGTH_MAX = 200;
const TITLE_LENGTH_MAX = 200;
const NAME_LENGTH_MAX = 200;
const WEBSITE_LENGTH_MAX = 2048;
/** The default lifetime of a mandate is short: AP2 cannot revoke one that was handed out (docs/ap2.md). */
export const MANDATE_TTL_MINUTES_DEFAULT = 10;

/** The merchant of a mandate: AP2's Merchant, and the normalized host the policy and the card window see. */
export interface MandateMerchant {
  ap2: Ap2Merchant;
  host: string;
}

const idText = str({ required: true, maxLength: ID_LENGTH_MAX });
const titleText = str({ required: true, maxLength: TITLE_LENGTH_MAX });
const nameText = str({ required: true, maxLength: NAME_LENGTH_MAX });
const websiteText = str({ required: true, maxLength: WEBSITE_LENGTH_MAX });
const quantity = int({ min: 1, max: MANDATE_QUANTITY_MAX, default: 1 });

const text = (maxLength: number): RuleJsonSchema => ({ type: 'string', minLength: 1, maxLength });
const closed = (properties: Record<string, RuleJsonSchema>, required: readonly string[]): RuleJsonSchema => ({ type: 'object', properties, required, additionalProperties: false });
const itemSchema = closed({ id: text(ID_LENGTH_MAX), title: text(TITLE_LENGTH_MAX) }, ['id', 'title']);
const coordinate: RuleJsonSchema = { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$', minLength: 43, maxLength: 43 };

export const ap2MandateRules = {
  card_id: cardIdField(),
  merchant: objectRule<MandateMerchant>('an object {"name", "website", "id"?}', merchantFrom, closed({ name: text(NAME_LENGTH_MAX), website: text(WEBSITE_LENGTH_MAX), id: text(ID_LENGTH_MAX) }, ['name', 'website'])),
  amount_max: amount({ required: true, maxMinor: AUTHORIZATION_AMOUNT_MAX_MINOR }),
  currency: currencyField(),
  items: objectRule<MandateLine[]>(`an array of 1 to ${MANDATE_LINES_MAX} items`, linesFrom, {
    type: 'array',
    minItems: 1,
    maxItems: MANDATE_LINES_MAX,
    items: closed(
      { id: text(ID_LENGTH_MAX), title: text(TITLE_LENGTH_MAX), quantity: { type: 'integer', minimum: 1, maximum: MANDATE_QUANTITY_MAX }, alternatives: { type: 'array', maxItems: MANDATE_ALTERNATIVES_MAX, items: itemSchema } },
      ['id', 'title'],
    ),
  }),
  ttl_minutes: int({ min: TTL_MINUTES_MIN, max: TTL_MINUTES_MAX, default: MANDATE_TTL_MINUTES_DEFAULT }),
  // AP2's human-not-present mandate (spec §6): both or neither, checked together by mandateRecurrence.
  recurrence: objectRule<RecurrenceInput, 'optional'>(`an object {"frequency", "max_occurrences"?}`, recurrenceFrom, closed({ frequency: { type: 'string', enum: [...AP2_FREQUENCIES] }, max_occurrences: { type: 'integer', minimum: 1, maximum: MAX_OCCURRENCES_MAX } }, ['frequency']), 'optional'),
  budget: amount({ maxMinor: AUTHORIZATION_AMOUNT_MAX_MINOR * MAX_OCCURRENCES_MAX }),
  // The schema names the members AP2 lets a JWK carry that are text; the rule also takes and drops key_ops and ext.
  agent_key: objectRule<P256PublicJwk>('a P-256 public JWK', agentKeyFrom, closed({ kty: { type: 'string', enum: ['EC'] }, crv: { type: 'string', enum: ['P-256'] }, x: coordinate, y: coordinate, alg: { type: 'string', enum: ['ES256'] }, kid: text(200), use: text(16) }, ['kty', 'crv', 'x', 'y'])),
};

/** AP2's `payment.agent_recurrence` as the body carries it. */
interface RecurrenceInput {
  frequency: Ap2Frequency;
  maxOccurrences: number | null;
}

const maxOccurrences = int({ min: 1, max: MAX_OCCURRENCES_MAX });

/** recurrenceFrom checks {frequency, max_occurrences?}: one of AP2's frequencies a card window can hold. */
function recurrenceFrom(value: JsonValue, param: string): RecurrenceInput {
  const record = exactObject(value, param, ['frequency'], ['max_occurrences']);
  const frequency = record['frequency'];
  if (typeof frequency !== 'string' || !(AP2_FREQUENCIES as readonly string[]).includes(frequency)) throw invalidRequest(`${param}.frequency`, `${param}.frequency must be one of ${AP2_FREQUENCIES.join(', ')}.`);
  const max = record['max_occurrences'];
  return { frequency: frequency as Ap2Frequency, maxOccurrences: max === undefined || max === null ? null : maxOccurrences.fromJson(max, `${param}.max_occurrences`) };
}

/**
 * mandateRecurrence reads `recurrence` and `budget` together (shared/spec/ap2-mandates.md §6): AP2
 * requires a budget with a recurrence, and a budget alone means nothing. The budget must hold at
 * least one charge of amount_max, and its currency must have two decimals, since AP2's budget is a
 * number of major units its evaluator multiplies by 100 (docs/decisions.md §35).
 */
export function mandateRecurrence(input: { recurrence: RecurrenceInput | undefined; budget: number | undefined; amount_max: number; currency: string }): MandateRecurrence | undefined {
  if (input.recurrence === undefined && input.budget === undefined) return undefined;
  if (input.recurrence === undefined) throw invalidRequest('recurrence', 'budget is the total of a recurring mandate: send recurrence with it, or leave both out.');
  if (input.budget === undefined) throw invalidRequest('budget', 'A recurring mandate needs budget, the most it may spend in total (AP2 requires payment.budget with payment.agent_recurrence).');
  if (currencyDecimals(input.currency) !== 2) throw invalidRequest('currency', 'A recurring mandate is for a currency with two decimals: AP2 reads its budget in hundredths.');
  if (input.budget < input.amount_max) throw invalidRequest('budget', 'budget must be at least amount_max: it is the total of every occurrence.');
  return { frequency: input.recurrence.frequency, maxOccurrences: input.recurrence.maxOccurrences, budgetMinor: input.budget };
}

/** merchantFrom checks {name, website, id?}: website an https URL whose host is a merchant domain; id, when given, is that host. */
function merchantFrom(value: JsonValue, param: string): MandateMerchant {
  const record = exactObject(value, param, ['name', 'website'], ['id']);
  const name = nameText.fromJson(record['name'] as JsonValue, `${param}.name`);
  const website = websiteText.fromJson(record['website'] as JsonValue, `${param}.website`);
  const host = websiteHost(website, `${param}.website`);
  // One merchant (shared/spec/ap2-mandates.md §6): AP2's verifiers match payees by id first, so an
  // id other than the host the policy judged would sign one merchant and judge another.
  if (record['id'] !== undefined && idText.fromJson(record['id'], `${param}.id`) !== host) {
    throw invalidRequest(`${param}.id`, `${param}.id must be the website's host, ${host}, or be left out (it is then set to it): the policy, the card window and both mandates name one merchant.`);
  }
  return { ap2: { id: host, name, website }, host };
}

/** websiteHost returns the normalized host of an https URL with no user info and no port. */
function websiteHost(website: string, param: string): string {
  let url: URL;
  try {
    url = new URL(website);
  } catch {
    throw invalidRequest(param, `${param} must be an https URL like https://shop.example.`);
  }
  if (url.protocol !== 'https:') throw invalidRequest(param, `${param} must be an https URL.`);
  if (url.username !== '' || url.password !== '') throw invalidRequest(param, `${param} must not carry user info.`);
  if (url.port !== '') throw invalidRequest(param, `${param} must not name a port.`);
  return normalizeMerchant(url.hostname, param);
}

/** linesFrom checks the items: 1–20 lines of {id, title, quantity?, alternatives?}. */
function linesFrom(value: JsonValue, param: string): MandateLine[] {
  if (!Array.isArray(value)) throw wrongType(param, `an array of 1 to ${MANDATE_LINES_MAX} items`);
  if (value.length < 1 || value.length > MANDATE_LINES_MAX) throw invalidRequest(param, `${param} must hold 1 to ${MANDATE_LINES_MAX} items.`);
  return value.map((element, index) => {
    const at = `${param}[${index}]`;
    const record = exactObject(element, at, ['id', 'title'], ['quantity', 'alternatives']);
    const alternatives = record['alternatives'] === undefined ? [] : alternativesFrom(record['alternatives'], `${at}.alternatives`);
    return { item: itemFrom(record, at), alternatives, quantity: record['quantity'] === undefined ? 1 : quantity.fromJson(record['quantity'], `${at}.quantity`) };
  });
}

function alternativesFrom(value: JsonValue, param: string): Ap2Item[] {
  if (!Array.isArray(value)) throw wrongType(param, `an array of at most ${MANDATE_ALTERNATIVES_MAX} items`);
  if (value.length > MANDATE_ALTERNATIVES_MAX) throw invalidRequest(param, `${param} may hold at most ${MANDATE_ALTERNATIVES_MAX} items.`);
  return value.map((element, index) => itemFrom(exactObject(element, `${param}[${index}]`, ['id', 'title'], []), `${param}[${index}]`));
}

function itemFrom(record: Record<string, JsonValue>, param: string): Ap2Item {
  return { id: idText.fromJson(record['id'] as JsonValue, `${param}.id`), title: titleText.fromJson(record['title'] as JsonValue, `${param}.title`) };
}

/** agentKeyFrom checks the agent's key; every refusal is invalid_agent_key and says why. */
function agentKeyFrom(value: JsonValue, param: string): P256PublicJwk {
  const checked = p256PublicJwkFromUntrusted(isJsonObject(value) ? plainJwk(value) : value);
  if ('refused' in checked) throw new LatchError('invalid_agent_key', { param, message: `${param} must be the agent's P-256 public JWK: ${checked.refused}.` });
  return checked.jwk;
}

/** plainJwk turns the parsed object's string members into plain values (numbers and nested values are kept as they are, and refused by the checks). */
function plainJwk(value: Record<string, JsonValue>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value));
}
