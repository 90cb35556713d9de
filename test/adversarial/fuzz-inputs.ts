/**
 * The fuzzer's inputs: every endpoint of both listeners with a valid request of each, and seeded
 * ways to break them — malformed JSON, wrong types, odd numbers, look-alike and invisible
 * characters in merchant names, deep nesting, duplicate keys, odd queries and path ids.
 */
import type { SeededRandom } from './seeded-random.js';

/** Ids from the running stack that make otherwise valid requests. */
export interface FuzzIds {
  cardIds: string[];
  policyId: string;
  transactionId: string;
}

/** One request to send: exactly these bytes after the request line's target. */
export interface FuzzCase {
  listener: 'a' | 'b';
  method: string;
  target: string;
  body?: Buffer;
  /** What was done, for the failure message. */
  label: string;
  /** The endpoint pattern, for checks on valid answers. */
  pattern: string;
}

interface Endpoint {
  listener: 'a' | 'b';
  method: 'GET' | 'POST';
  pattern: string;
  /** A valid body as JSON texts per field (so odd number texts survive). */
  body?: (ids: FuzzIds, random: SeededRandom) => Record<string, string>;
  /** The kind of id in the path, if any. */
  pathId?: 'card' | 'tx' | 'v1';
}

const json = (value: unknown): string => JSON.stringify(value);

/** merchants that are valid domains, so a valid request can succeed. */
const VALID_MERCHANTS = ['shop.example.com', 'fuzz.example', 'ShOp.Example.COM', 'shop.example.com.', 'bücher.example', 'xn--bcher-kva.example', 'café.example'];

export const ENDPOINTS: readonly Endpoint[] = [
  { listener: 'a', method: 'GET', pattern: '/health' },
  { listener: 'a', method: 'GET', pattern: '/cards' },
  { listener: 'a', method: 'GET', pattern: '/cards/:card_id', pathId: 'card' },
  { listener: 'a', method: 'POST', pattern: '/authorize', body: (ids, r) => ({ card_id: json(r.pick(ids.cardIds)), amount: r.pick(['1', '0.5', '"2.00"']), merchant_name: json(r.pick(VALID_MERCHANTS)), ttl_minutes: '5' }) },
  { listener: 'a', method: 'POST', pattern: '/merchant-bind', body: (ids, r) => ({ card_id: json(r.pick(ids.cardIds)), merchant_name: json(r.pick(VALID_MERCHANTS)), amount: '0' }) },
  { listener: 'a', method: 'POST', pattern: '/recurring', body: (ids, r) => ({ card_id: json(r.pick(ids.cardIds)), merchant_name: json(r.pick(VALID_MERCHANTS)), amount: '3', interval: json(r.pick(['day', 'week', 'month', 'year'])) }) },
  { listener: 'a', method: 'POST', pattern: '/sign-card-policy-window', body: (ids, r) => ({ card_id: json(r.pick(ids.cardIds)), amount: '1', merchant_name: json(r.pick(VALID_MERCHANTS)) }) },
  { listener: 'a', method: 'POST', pattern: '/sign-policy-window', body: (_ids, r) => ({ amount: '1', merchant_name: json(r.pick(VALID_MERCHANTS)), authorization_type: '"ceiling"' }) },
  { listener: 'a', method: 'POST', pattern: '/sign-revocation', body: (ids) => ({ policy_id: json(ids.policyId), reason: '"fuzz"' }) },
  { listener: 'a', method: 'GET', pattern: '/transactions' },
  { listener: 'a', method: 'GET', pattern: '/transactions/:tx_id', pathId: 'tx' },
  { listener: 'a', method: 'GET', pattern: '/wallet/balance' },
  { listener: 'a', method: 'POST', pattern: '/wallet/allocate', body: (ids) => ({ card_id: json(ids.cardIds[0]), amount: '"0.01"' }) },
  { listener: 'a', method: 'GET', pattern: '/v1/*', pathId: 'v1' },
  { listener: 'a', method: 'POST', pattern: '/v1/authorizations', body: () => ({ jws: '"e30.e30.e30"' }) },
  { listener: 'a', method: 'POST', pattern: '/v1/wallet/allocate', body: (ids) => ({ card_id: json(ids.cardIds[0]), amount: '"0.01"' }) },
  { listener: 'b', method: 'GET', pattern: '/health' },
  { listener: 'b', method: 'GET', pattern: '/cards' },
  { listener: 'b', method: 'GET', pattern: '/cards/:card_id', pathId: 'card' },
  { listener: 'b', method: 'POST', pattern: '/authorize', body: (ids, r) => ({ card_id: json(r.pick(ids.cardIds)), amount: r.pick(['1', '0.25']), merchant: json(r.pick(VALID_MERCHANTS)), currency: '"USD"', ttl: json(r.pick(['5m', '60s', '1h'])) }) },
  { listener: 'b', method: 'GET', pattern: '/transactions' },
  { listener: 'b', method: 'GET', pattern: '/transactions/:tx_id', pathId: 'tx' },
  { listener: 'b', method: 'GET', pattern: '/wallet/balance' },
  { listener: 'b', method: 'POST', pattern: '/wallet/allocate', body: (ids) => ({ card_id: json(ids.cardIds[1]), amount: '0.01' }) },
];

/** JSON texts of the wrong type or an odd value, valid JSON or not. */
const ODD_VALUES: readonly string[] = [
  'null', 'true', 'false', '0', '-0', '-1', '1e2', '1E+2', '1e-7', '1e308', '-1e308', '1e309', '5e-324', '0.1e1', '00.1', '1.', '.5', '12.345',
  '10000.01', '10000', '99999999999999999999999999999', '0.001', '1.005', '"1.00"', '" 1.00"', '"1.00 "', '"+1.00"', '"1e2"', '"-1.00"', '"0x10"',
  '"1,00"', '"NaN"', '"Infinity"', '"١٢٣"', '"１２"', '""', '" "', '[]', '{}', '[1,2]', '{"a":1}', '"\\u0000"', '"\\ud800"', '"\\udfff\\ud800"',
  '"😀"', '"a\\nb"', `"${'a'.repeat(5000)}"`, 'NaN', 'Infinity', '-Infinity', 'undefined', '0x10', '+1', '1_000', "'single'", '"card_\\u0030"',
  '"exact "', '"EXACT"', '"ceiling\\u0000"', '"USD "', '"usd"', '"USDT"', '"XXX"', '"1441"', '1441', '0', '1440', '"5m"', '"0m"', '"1441m"', '"5 m"',
  '"-5m"', '"5d"', '"1e2m"', '"m"', '"pw_"', '"tx_"', '"card_"', `"card_${'a'.repeat(70)}"`, '"2026-13-01T00:00:00Z"', '"2026-01-01"', '"yesterday"',
];

/** Merchant names: look-alikes, IDNA, invisible characters, odd case and dots, things that are not domains. */
export const ODD_MERCHANTS: readonly string[] = [
  'аpple.com', 'xn--pple-43d.com', 'bücher.de', 'BÜCHER.DE', 'xn--bcher-kva.de', 'shop\u200b.example.com', 'shop.example.com\u200d', 'shop\u00ad.example.com',
  '\u202egnp.example', 'ShOp.ExAmPlE.CoM', 'shop.example.com.', 'shop.example.com..', '.shop.example.com', 'shop..example.com', 'shop。example。com',
  'shop．example．com', 'https://shop.example.com', 'shop.example.com/path', 'shop.example.com:443', 'user@shop.example.com', '127.0.0.1', '[::1]',
  '*.example.com', 'example', `${'a'.repeat(64)}.com`, `${'a.'.repeat(130)}com`, 'exa mple.com', 'exam\tple.com', 'xn--.com', 'xn--zz.com', 'ﬁ.example.com',
  'Ⅸ.example', '😀.example.com', 'shop.example.com\u0000', '-shop.example.com', 'shop-.example.com', 'ß.de', 'ς.gr', 'İstanbul.tr', 'ab--cd.example',
  'shop.example.123', 'shop.example.c0m', '%73hop.example.com', 'shop\\example.com', 'shop.example.com#x', '', ' ', 'a'.repeat(2000),
];

/** Whole bodies that are not the JSON a route takes. */
const ODD_BODIES: ReadonlyArray<string | Buffer> = [
  '', ' ', '{', '}', '[]', 'null', '"text"', '1', '{"a":}', '{"a" 1}', "{'a':1}", '{"a":1,}', '{"a":1}//c', '/*c*/{}', '{"a":1}{"b":2}', '{"a":1} x',
  '\ufeff{}', '{"a":1}\u0000', `${'['.repeat(10_000)}${']'.repeat(10_000)}`, `${'{"a":'.repeat(1_000)}1${'}'.repeat(1_000)}`, '{"a":1,"a":2}',
  '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', `{${Array.from({ length: 3_000 }, (_, i) => `"k${i}":0`).join(',')}}`,
  Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), Buffer.from([0x7b, 0x22, 0xc0, 0xaf, 0x22, 0x3a, 0x31, 0x7d]), Buffer.from([0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d]),
  `{"pad":"${'x'.repeat(64 * 1024)}"}`,
];

const QUERY_KEYS = ['limit', 'starting_after', 'card_id', 'status', 'foo', '', '__proto__', 'LIMIT', 'limit[]'];
const QUERY_VALUES = ['0', '1', '100', '101', '-1', '1e2', 'abc', '%zz', '%00', '%', 'tx_abc', 'card_abc', 'SETTLED', 'settled', '%F0%9F%98%80', 'a'.repeat(300), '', '1%20', '+1'];
const PATH_IDS = ['', '%', '%zz', '%00', '..', '%2e%2e', 'card_', 'card_ABC', `card_${'a'.repeat(65)}`, 'card_abc%2fdef', 'card_abc/def', '😀', '%F0%9F%98%80', 'card_abc?', 'card_abc#x', 'null', '__proto__', 'constructor', 'tx_abc', 'tx_ABC', 'pw_abc', ' '];
const V1_PATHS = ['/v1/cards', '/v1/wallet', '/v1/transactions?limit=101', '/v1/authorizations?status=nope', '/v1/sandbox/state', '/v1/nope', '/v1/cards/%2e%2e/x', '/v1/..%2fsandbox/state', '/v1//evil.example/x', '/v1/%5c%5cevil', '/v1/cards?a=%zz', '/v1/'];

/** bodyText assembles fields (JSON texts) into an object's text. */
function bodyText(fields: Record<string, string>): string {
  return `{${Object.entries(fields).map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`;
}

/** mutateFields breaks a valid body in one of several ways and names what it did. */
function mutateFields(fields: Record<string, string>, random: SeededRandom): [string, string] {
  const names = Object.keys(fields);
  const name = random.pick(names);
  switch (random.int(8)) {
    case 0:
      return [`${name} = odd value`, bodyText({ ...fields, [name]: random.pick(ODD_VALUES) })];
    case 1: {
      const rest = { ...fields };
      delete rest[name];
      return [`without ${name}`, bodyText(rest)];
    }
    case 2:
      return ['an unknown field', bodyText({ ...fields, [random.pick(['extra', 'Card_Id', 'card_іd', 'amount ', 'merchant_domain', '__proto__'])]: random.pick(ODD_VALUES) })];
    case 3:
      return [`${name} twice`, `${bodyText(fields).slice(0, -1)},${JSON.stringify(name)}:${random.pick(ODD_VALUES)}}`];
    case 4:
      return ['merchant = odd name', bodyText({ ...fields, [names.includes('merchant') ? 'merchant' : 'merchant_name']: JSON.stringify(random.pick(ODD_MERCHANTS)) })];
    case 5:
      return ['amount = odd number', bodyText({ ...fields, amount: random.pick(ODD_VALUES.slice(0, 32)) })];
    case 6:
      return ['the body wrapped in an array', `[${bodyText(fields)}]`];
    default:
      return [`${name} nested deep`, bodyText({ ...fields, [name]: `${'['.repeat(200)}1${']'.repeat(200)}` })];
  }
}

/** makeCase draws one request: an endpoint and one way of breaking it (or none, now and then). */
export function makeCase(random: SeededRandom, ids: FuzzIds): FuzzCase {
  const endpoint = random.pick(ENDPOINTS);
  let path = endpoint.pattern;
  let label = 'valid';
  if (endpoint.pathId === 'card') path = path.replace(':card_id', random.chance(0.3) ? random.pick(ids.cardIds) : (label = 'odd card id', random.pick(PATH_IDS)));
  if (endpoint.pathId === 'tx') path = path.replace(':tx_id', random.chance(0.3) ? ids.transactionId : (label = 'odd tx id', random.pick(PATH_IDS)));
  if (endpoint.pathId === 'v1') path = random.pick(V1_PATHS);
  if (endpoint.method === 'GET' && random.chance(0.5)) {
    const pairs = Array.from({ length: 1 + random.int(3) }, () => `${random.pick(QUERY_KEYS)}=${random.pick(QUERY_VALUES)}`);
    path += `${path.includes('?') ? '&' : '?'}${pairs.join('&')}`;
    label = 'odd query';
  }
  const base: FuzzCase = { listener: endpoint.listener, method: endpoint.method, target: path, label, pattern: endpoint.pattern };
  if (endpoint.body === undefined) return base;
  const fields = endpoint.body(ids, random);
  const roll = random.next();
  if (roll < 0.15) return { ...base, body: Buffer.from(bodyText(fields)), label: 'valid' };
  if (roll < 0.35) {
    const odd = random.pick(ODD_BODIES);
    return { ...base, body: typeof odd === 'string' ? Buffer.from(odd) : odd, label: 'malformed body' };
  }
  const [what, text] = mutateFields(fields, random);
  return { ...base, body: Buffer.from(text), label: what };
}
