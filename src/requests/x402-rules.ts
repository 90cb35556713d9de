/**
 * The body of POST /x402/authorize (shared/spec/x402.md §2): x402 v2's ResourceInfo and one
 * PaymentRequirements, each member bounded. The card-data guard has already run on every string at
 * the front door. The MCP tool latch_x402_authorize takes the same body, its schema derived from
 * these rules.
 */
import { LatchError, invalidRequest } from '../errors/latch-error.js';
import { isJsonObject, JsonNumber, type JsonValue } from '../json/parse-json.js';
import { isLoopbackName } from '../http/loopback.js';
import { normalizeMerchant } from '../validate/merchant.js';
import { wrongType, type FieldRule } from '../validate/field-rule.js';
import type { RuleJsonSchema } from '../validate/rule-json-schema.js';
import { int, str } from '../validate/schema.js';
import { exactObject, objectRule } from '../validate/object-rule.js';
import { checkText } from '../validate/string-rule.js';
import { ATOMIC_AMOUNT } from '../x402/counting.js';
import { X402_SCHEMES, X402_VERSION, type X402Requirements, type X402Resource, type X402Scheme } from '../x402/requirements.js';

/** Bounds of the request's members. */
export const X402_ADDRESS_LENGTH_MAX = 128;
export const X402_NETWORK_LENGTH_MAX = 64;
export const X402_URL_LENGTH_MAX = 2048;
export const X402_TEXT_LENGTH_MAX = 1024;
export const X402_TAGS_MAX = 20;
export const X402_TAG_LENGTH_MAX = 64;
export const X402_TIMEOUT_SECONDS_MAX = 3600;
export const X402_EXTRA_BYTES_MAX = 4096;

/** A CAIP-2 chain id: namespace:reference. */
const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;
/** Printable ASCII without spaces: every EVM address and every asset id x402 names. */
const PRINTABLE = /^[\x21-\x7e]+$/;


/** A resource with the merchant read from its URL: the normalized host (loopback hosts as written). */
export interface X402ResourceInput {
  resource: X402Resource;
  merchant: string;
}

const timeoutRule = int({ required: true, min: 1, max: X402_TIMEOUT_SECONDS_MAX });

const text = (maxLength: number, minLength = 1): RuleJsonSchema => ({ type: 'string', minLength, maxLength });

export const x402AuthorizeRules = {
  x402_version: versionRule(),
  resource: objectRule<X402ResourceInput>('an x402 ResourceInfo object {"url", ...}', resourceFrom, {
    type: 'object',
    properties: { url: text(X402_URL_LENGTH_MAX), description: text(X402_TEXT_LENGTH_MAX, 0), mimeType: text(X402_TEXT_LENGTH_MAX, 0), serviceName: text(X402_TEXT_LENGTH_MAX, 0), tags: { type: 'array', maxItems: X402_TAGS_MAX, items: text(X402_TAG_LENGTH_MAX, 0) }, iconUrl: text(X402_URL_LENGTH_MAX, 0) },
    required: ['url'],
    additionalProperties: false,
  }),
  requirements: objectRule<X402Requirements>('an x402 PaymentRequirements object', requirementsFrom, {
    type: 'object',
    properties: {
      scheme: { type: 'string', enum: X402_SCHEMES },
      network: text(X402_NETWORK_LENGTH_MAX),
      amount: { type: 'string', pattern: '^[1-9][0-9]{0,77}$', minLength: 1, maxLength: 78 },
      asset: text(X402_ADDRESS_LENGTH_MAX),
      payTo: text(X402_ADDRESS_LENGTH_MAX),
      maxTimeoutSeconds: { type: 'integer', minimum: 1, maximum: X402_TIMEOUT_SECONDS_MAX },
      extra: { type: 'object' },
    },
    required: ['scheme', 'network', 'amount', 'asset', 'payTo', 'maxTimeoutSeconds'],
    additionalProperties: false,
  }),
  reference: str({ maxLength: 200 }),
};

/** x402_version must be 2: anything else is x402_version_not_supported (an integer that is not 2) or invalid_request. */
function versionRule(): FieldRule<2, 'required'> {
  return {
    presence: 'required',
    defaultValue: undefined,
    jsonSchema: { type: 'integer', minimum: X402_VERSION, maximum: X402_VERSION },
    fromJson: (value, param) => {
      if (!(value instanceof JsonNumber) || !/^-?[0-9]{1,15}$/.test(value.text)) throw wrongType(param, 'the integer 2');
      if (value.text !== String(X402_VERSION)) throw new LatchError('x402_version_not_supported', { param });
      return X402_VERSION;
    },
    fromQuery: (_text, param) => {
      throw wrongType(param, 'the integer 2');
    },
  };
}

/** resourceFrom checks x402's ResourceInfo; the URL is https (http only for a loopback host) and names the merchant. */
function resourceFrom(value: JsonValue, param: string): X402ResourceInput {
  const record = exactObject(value, param, ['url'], ['description', 'mimeType', 'serviceName', 'tags', 'iconUrl']);
  const url = checkText(stringOf(record['url'], `${param}.url`), `${param}.url`, { maxLength: X402_URL_LENGTH_MAX });
  const resource: X402Resource = { url };
  for (const name of ['description', 'mimeType', 'serviceName', 'iconUrl'] as const) {
    const member = record[name];
    if (member === undefined || member === null) continue;
    const shown = stringOf(member, `${param}.${name}`);
    resource[name] = shown === '' ? '' : checkText(shown, `${param}.${name}`, { maxLength: name === 'iconUrl' ? X402_URL_LENGTH_MAX : X402_TEXT_LENGTH_MAX });
  }
  if (record['tags'] !== undefined && record['tags'] !== null) resource.tags = tagsFrom(record['tags'], `${param}.tags`);
  return { resource, merchant: merchantOf(url, `${param}.url`) };
}

function tagsFrom(value: JsonValue, param: string): string[] {
  if (!Array.isArray(value)) throw wrongType(param, `an array of at most ${X402_TAGS_MAX} strings`);
  if (value.length > X402_TAGS_MAX) throw invalidRequest(param, `${param} may hold at most ${X402_TAGS_MAX} tags.`);
  return value.map((tag, index) => {
    const shown = stringOf(tag, `${param}[${index}]`);
    return shown === '' ? '' : checkText(shown, `${param}[${index}]`, { maxLength: X402_TAG_LENGTH_MAX });
  });
}

/** merchantOf is the resource URL's host as the policy sees it: https, or http on a loopback host; no user info. */
function merchantOf(url: string, param: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidRequest(param, `${param} must be an absolute https URL.`);
  }
  if (parsed.username !== '' || parsed.password !== '') throw invalidRequest(param, `${param} must not carry user info.`);
  const loopback = isLoopbackName(parsed.hostname);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && loopback)) throw invalidRequest(param, `${param} must be an https URL (http only for a loopback host).`);
  // A loopback host is the merchant as written (normalizeMerchant refuses IP literals and single labels).
  return loopback ? parsed.hostname.toLowerCase() : normalizeMerchant(parsed.hostname, param);
}

/** requirementsFrom checks one PaymentRequirements. */
function requirementsFrom(value: JsonValue, param: string): X402Requirements {
  const record = exactObject(value, param, ['scheme', 'network', 'amount', 'asset', 'payTo', 'maxTimeoutSeconds'], ['extra']);
  const scheme = stringOf(record['scheme'], `${param}.scheme`);
  if (!(X402_SCHEMES as readonly string[]).includes(scheme)) throw new LatchError('x402_scheme_not_supported', { param: `${param}.scheme` });
  const network = stringOf(record['network'], `${param}.network`);
  if (network.length > X402_NETWORK_LENGTH_MAX || !CAIP2.test(network)) throw invalidRequest(`${param}.network`, `${param}.network must be a CAIP-2 network id like eip155:8453.`);
  const amount = stringOf(record['amount'], `${param}.amount`);
  if (!ATOMIC_AMOUNT.test(amount) || amount === '0') throw invalidRequest(`${param}.amount`, `${param}.amount must be an atomic amount: 1 to 78 digits, above 0.`);
  const requirements: X402Requirements = {
    scheme: scheme as X402Scheme,
    network,
    amount,
    asset: addressOf(record['asset'], `${param}.asset`),
    payTo: addressOf(record['payTo'], `${param}.payTo`),
    maxTimeoutSeconds: timeoutRule.fromJson(record['maxTimeoutSeconds'] as JsonValue, `${param}.maxTimeoutSeconds`),
  };
  if (record['extra'] !== undefined && record['extra'] !== null) requirements.extra = extraOf(record['extra'], `${param}.extra`);
  return requirements;
}

function addressOf(value: JsonValue | undefined, param: string): string {
  const address = stringOf(value, param);
  if (address.length > X402_ADDRESS_LENGTH_MAX || !PRINTABLE.test(address)) throw invalidRequest(param, `${param} must be 1 to ${X402_ADDRESS_LENGTH_MAX} printable characters.`);
  return address;
}

/** extraOf keeps the scheme's extra data as plain JSON (at most 4 KiB); it is hashed, never interpreted. */
function extraOf(value: JsonValue, param: string): Record<string, unknown> {
  if (!isJsonObject(value)) throw wrongType(param, 'an object');
  const plain = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  if (new TextEncoder().encode(JSON.stringify(plain)).length > X402_EXTRA_BYTES_MAX) throw invalidRequest(param, `${param} must be at most ${X402_EXTRA_BYTES_MAX} bytes of JSON.`);
  return plain;
}

function stringOf(value: JsonValue | undefined, param: string): string {
  if (typeof value !== 'string') throw wrongType(param, 'a string');
  return value;
}
