import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertNoCardData, findCardData, type CardDataInput } from '../../src/validate/card-data-guard.js';
import { JsonNumber, parseJson, type JsonValue } from '../../src/json/parse-json.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { randomId } from '../../src/ids/random-id.js';

const VISA = '4111111111111111';
const VISA_19 = '4111111111111111110'; // 19 digits, Luhn-valid
const AMEX = '378282246310005';
const VISA_13 = '4222222222222';
const MASTERCARD_2 = '2223003122003222';

/** body wraps a value as the only member of an object built by the real parser's types. */
function body(text: string): JsonValue {
  return parseJson(text);
}

const detected: Array<[string, CardDataInput]> = [
  ['16-digit Visa in a string', { body: body(`{"label":"${VISA}"}`) }],
  ['19-digit PAN in a string', { body: body(`{"label":"${VISA_19}"}`) }],
  ['13-digit Visa', { body: body(`{"label":"${VISA_13}"}`) }],
  ['15-digit Amex', { body: body(`{"label":"${AMEX}"}`) }],
  ['Mastercard 2-series', { body: body(`{"label":"${MASTERCARD_2}"}`) }],
  ['spaces between groups', { body: body('{"label":"4111 1111 1111 1111"}') }],
  ['dashes between groups', { body: body('{"label":"4111-1111-1111-1111"}') }],
  ['Amex grouping 4-6-5', { body: body('{"label":"3782 822463 10005"}') }],
  ['mixed single separators', { body: body('{"label":"4111-1111 1111-1111"}') }],
  ['embedded in a sentence', { body: body('{"reason":"my card is 4111 1111 1111 1111, thanks"}') }],
  ['bounded by letters', { body: body(`{"label":"x${VISA}y"}`) }],
  ['followed by a CVV group', { body: body('{"label":"4111 1111 1111 1111 123"}') }],
  ['followed by an expiry group', { body: body('{"label":"4111-1111-1111-1111-2028"}') }],
  ['preceded by a group', { body: body('{"label":"12 4111 1111 1111 1111"}') }],
  ['with a decimal tail', { body: body(`{"label":"${VISA}.00"}`) }],
  ['zero padded within 19 digits', { body: body(`{"label":"000${VISA}"}`) }],
  ['as a JSON number', { body: body(`{"amount":${VISA}}`) }],
  ['as a 19-digit JSON number (beyond 2^53)', { body: body(`{"amount":${VISA_19}}`) }],
  ['as a negative JSON number', { body: body(`{"amount":-${VISA}}`) }],
  ['as a JSON number fraction', { body: body(`{"amount":0.${VISA}}`) }],
  ['as a JSON number in exponent form', { body: body('{"amount":4.111111111111111e15}') }],
  ['as a JSON number with exponent and zero padding', { body: body('{"amount":411111111111111.1E1}') }],
  ['as a JSON number: 65 trailing zeros and e-65', { body: body(`{"amount":${VISA}${'0'.repeat(65)}e-65}`) }],
  ['as a JSON number: 300 trailing zeros and E-300', { body: body(`{"amount":${VISA}${'0'.repeat(300)}E-300}`) }],
  ['as a JSON number: a shifted fraction, e+80', { body: body(`{"amount":0.${'0'.repeat(64)}${VISA}e+80}`) }],
  ['as a JSON number: the fraction part of an exact value', { body: body(`{"amount":1${'0'.repeat(70)}.${VISA}e-70}`) }],
  ['a number outside the parser bounds fails closed', { body: new JsonNumber('4e999999999') }],
  ['in a nested array', { body: body(`{"a":[1,{"b":[["${VISA}"]]}]}`) }],
  ['as an object key', { body: body(`{"${VISA}":1}`) }],
  ['as the top-level string', { body: `${VISA}` }],
  ['as the top-level number', { body: new JsonNumber(VISA) }],
  ['full-width digits', { body: body('{"label":"４１１１１１１１１１１１１１１１"}') }],
  ['Arabic-Indic digits', { body: body('{"label":"٤١١١١١١١١١١١١١١١"}') }],
  ['circled digits (NFKC maps them to ASCII)', { body: body('{"label":"④①①①①①①①①①①①①①①①"}') }],
  ['Devanagari digits', { body: body('{"label":"४१११११११११११११११"}') }],
  ['zero-width spaces inside', { body: body('{"label":"4111\\u200b1111\\u200b1111\\u200b1111"}') }],
  ['soft hyphens inside', { body: body('{"label":"4111\\u00ad1111\\u00ad1111\\u00ad1111"}') }],
  ['no-break spaces as separators', { body: body('{"label":"4111\\u00a01111\\u00a01111\\u00a01111"}') }],
  ['en dashes as separators', { body: body('{"label":"4111\\u20131111\\u20131111\\u20131111"}') }],
  ['double spaces between groups', { body: body('{"label":"4111  1111  1111  1111"}') }],
  ['space and dash between groups', { body: body('{"label":"4111 - 1111 - 1111 - 1111"}') }],
  ['dots between groups', { body: body('{"label":"4111.1111.1111.1111"}') }],
  ['commas between groups', { body: body('{"label":"4,111,111,111,111,111"}') }],
  ['tabs between groups', { body: body('{"label":"4111\\t1111\\t1111\\t1111"}') }],
  ['newlines between groups', { body: body('{"label":"4111\\n1111\\r\\n1111\\n1111"}') }],
  ['underscores between groups', { body: body('{"label":"4111_1111_1111_1111"}') }],
  ['slashes between groups', { body: body('{"label":"4111/1111/1111/1111"}') }],
  ['backslashes between groups', { body: body('{"label":"4111\\\\1111\\\\1111\\\\1111"}') }],
  ['three mixed separators between groups', { body: body('{"label":"4111 /\\t1111 ._1111,- 1111"}') }],
  ['Hangul filler U+3164 between groups', { body: body('{"label":"4111\\u31641111\\u31641111\\u31641111"}') }],
  ['Halfwidth Hangul filler U+FFA0 between groups', { body: body('{"label":"4111\\uffa01111\\uffa01111\\uffa01111"}') }],
  ['braille blank U+2800 between groups', { body: body('{"label":"4111\\u28001111\\u28001111\\u28001111"}') }],
  ['ideographic space between groups', { body: body('{"label":"4111\\u30001111\\u30001111\\u30001111"}') }],
  ['line separator U+2028 between groups', { body: body('{"label":"4111\\u20281111\\u20281111\\u20281111"}') }],
  ['paragraph separator U+2029 between groups', { body: body('{"label":"4111\\u20291111\\u20291111\\u20291111"}') }],
  ['middle dots between groups', { body: body('{"label":"4111\\u00b71111\\u00b71111\\u00b71111"}') }],
  ['bullets between groups', { body: body('{"label":"4111\\u20221111\\u20221111\\u20221111"}') }],
  ['word joiners beside spaces', { body: body('{"label":"4111 \\u2060 1111 \\u2060 1111 \\u2060 1111"}') }],
  ['NUL between groups', { body: body('{"label":"4111\\u00001111\\u00001111\\u00001111"}') }],
  ['fullwidth full stops (NFKC) between groups', { body: body('{"label":"4111\\uff0e1111\\uff0e1111\\uff0e1111"}') }],
  ['in a header with dots', { headerValues: ['retry-4111.1111.1111.1111'] }],
  ['in the path with underscores', { path: '/cards/4111_1111_1111_1111' }],
  ['in the path', { path: `/cards/${VISA}` }],
  ['in the path, percent-encoded', { path: '/cards/%34%31%31%31%31%31%31%31%31%31%31%31%31%31%31%31' }],
  ['in the path, double-encoded', { path: '/cards/%2534111111111111111' }],
  ['in the path with spaces encoded', { path: '/cards/4111%201111%201111%201111' }],
  ['in the path beside a broken escape', { path: `/cards/%E0%A4%A/${VISA}` }],
  ['in the query', { query: `?card_id=${VISA}` }],
  ['in the query without ?', { query: `note=${VISA}` }],
  ['in the query with + as space', { query: 'note=4111+1111+1111+1111' }],
  ['in the query percent-encoded', { query: 'note=4111%2D1111%2D1111%2D1111' }],
  ['in a query parameter name', { query: `${VISA}=1` }],
  ['query parameter named cvv', { query: 'limit=5&cvv=123' }],
  ['query parameter named card-number encoded', { query: 'card%5Fnumber=x' }],
  ['query parameter named pan', { query: 'PAN' }],
  ['query parameter after a semicolon', { query: 'limit=5;cvv=123' }],
  ['query parameter name double-encoded', { query: 'c%2576v=1' }],
  ['query parameter name triple-encoded', { query: 'c%252576v=1' }],
  ['query parameter name fully double-encoded after &', { query: 'x=1&%2563%2576%2576=1' }],
  ['query parameter name encoded after a semicolon', { query: 'limit=5;card%255Fno=1' }],
  ['query parameter named with a Cyrillic look-alike', { query: '%D1%81vv=1' }],
];

for (const [name, input] of detected) {
  test(`card data is found: ${name}`, () => {
    assert.equal(findCardData(input), true);
    assert.throws(() => assertNoCardData(input), (error: unknown) => {
      assert.ok(error instanceof LatchError);
      assert.equal(error.code, 'card_data_not_accepted');
      assert.equal(error.status, 400);
      assert.equal(error.param, undefined);
      assert.ok(!/\d{4}/.test(error.message), 'the message must not echo digits');
      return true;
    });
  });
}

const cardFieldNames = [
  'pan', 'PAN', 'card_number', 'cardNumber', 'card-number', 'CardNumber', 'CARD_NUMBER', 'cardnumber',
  'card number', 'cvv', 'CVV2', 'cvc', 'cvc2', 'cid', 'security_code', 'securityCode', 'exp_month',
  'expMonth', 'exp-year', 'expiry', 'track1', 'track2', 'track_data', 'Track-Data', 'billing_card_number',
  'card_cvv', 'pin', 'c\u200bvv',
  'cardNo', 'card_no', 'CardNo', 'billing_card_no', 'card_nr', 'cv2', 'CV2', 'cvc_2', 'panNumber', 'pan_number',
  'pin_code', 'pinCode', 'card_pin', 'valid_thru', 'validThrough', 'good_thru', 'card-exp', 'cardExpDate', 'exp_date',
  '\u0441vv', 'cv\u0441', '\u0421VV', '\u0441ard_n\u043e', '\u03c1an', 'p\u0430n', '\u0420\u0410N', 'card\u2010number',
  'c\u0301vv', 'ｃｖｖ', 'CVV\u2082', '\u0441\u0430rd\u039do', 'pin\u200d_code', 'v\u0430lid_thru', 'c\u0430rd-\u0435xp',
];
for (const name of cardFieldNames) {
  test(`card field name is refused at any depth: ${JSON.stringify(name)}`, () => {
    const key = JSON.stringify(name);
    assert.equal(findCardData({ body: body(`{${key}:"x"}`) }), true);
    assert.equal(findCardData({ body: body(`{"a":{"b":[{${key}:null}]}}`) }), true);
    assert.equal(findCardData({ body: body(`{${key}:{}}`) }), true);
  });
}

const notDetected: Array<[string, CardDataInput]> = [
  ['nothing', {}],
  ['empty body object', { body: body('{}') }],
  ['Luhn-invalid 16 digits', { body: body('{"label":"1111111111111111"}') }],
  ['Luhn-invalid Visa-like', { body: body('{"label":"4111111111111112"}') }],
  ['12 digits', { body: body('{"label":"411111111116"}') }],
  ['11 digits', { body: body('{"label":"41111111113"}') }],
  ['20-digit unseparated run holding a Luhn-valid 16-digit window', { body: body(`{"label":"${VISA}0000"}`) }],
  ['20-digit run that is itself Luhn-valid', { body: body('{"label":"41111111111111111114"}') }],
  ['64-digit number', { body: body(`{"amount":${'4'.repeat(64)}}`) }],
  ['all zeros', { body: body('{"label":"0000000000000000"}') }],
  ['zero padded short number', { body: body('{"label":"0000000000001234"}') }],
  ['groups four separators apart', { body: body('{"label":"4111    1111    1111    1111"}') }],
  ['groups joined by colons (times)', { body: body('{"label":"4111:1111:1111:1111"}') }],
  ['list of amounts', { body: body('{"label":"12.50, 7.25, 100.00, 3.10"}') }],
  ['version and build', { body: body('{"label":"v1.2.3 build 20261121"}') }],
  ['date with slashes and a reference', { body: body('{"label":"see 10/12/2026, ref A-17"}') }],
  ['ISO timestamp with microseconds', { body: body('{"t":"2026-11-21T05:33:00.123456Z"}') }],
  ['ISO date and time with a space', { body: body('{"t":"2026-11-21 05:33:00.123"}') }],
  ['IPv4 address and port', { body: body('{"label":"192.168.100.200:8080"}') }],
  ['a user agent', { headerValues: ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.109 Safari/537.36'] }],
  ['an Accept-Language', { headerValues: ['en-US,en;q=0.9,de;q=0.8'] }],
  ['thousands with commas', { body: body('{"label":"1,234,567.89"}') }],
  ['a fraction with 4 digits', { body: body('{"amount":0.1234}') }],
  ['ISO timestamp', { body: body('{"starts_at":"2026-11-21T05:33:00Z"}') }],
  ['ISO timestamp with fraction and offset', { body: body('{"starts_at":"2026-11-21T05:33:00.123+01:00"}') }],
  ['Unix time in seconds', { body: body('{"starts_at":1763703180}') }],
  ['Unix time in milliseconds (13 digits from 1)', { body: body('{"t":1763703180002}') }],
  ['Unix time in milliseconds as a string', { body: body('{"t":"1000000000009"}') }],
  ['amount', { body: body('{"amount":12.50}') }],
  ['amount string', { body: body('{"amount":"10000.00"}') }],
  ['US phone number', { body: body('{"label":"+1 415-555-0132"}') }],
  ['UK phone number', { body: body('{"label":"+44 20 7946 0958"}') }],
  ['date', { body: body('{"label":"2026-11-21"}') }],
  ['last4 only', { body: body('{"last4":"1111"}') }],
  ['our field names', { body: body('{"card_id":"card_x","merchant_name":"a.com","ttl_minutes":30,"expires_at":"x","authorization_type":"exact","policy_id":"pw_x","interval_count":1,"max_charges":3,"label":"Groceries","company":"x","expand":"y","decided":"z","spin":1}') }],
  ['exponent 400', { body: body(`{"amount":${VISA}e400}`) }],
  ['exact value: a card number times 10', { body: body(`{"amount":${VISA}${'0'.repeat(65)}e-64}`) }],
  ['exact value: integer and fraction runs are separate', { body: body('{"amount":4111.111111111111}') }],
  ['Unix time in seconds with a fraction', { body: body('{"t":1763703180.1234}') }],
  ['booleans and null', { body: body('[true,false,null]') }],
  ['path with ids', { path: `/cards/${randomId('card')}/transactions/${randomId('tx')}` }],
  ['path with a malformed escape', { path: '/cards/%E0%A4%A' }],
  ['path with a lone percent', { path: '/cards/%' }],
  ['path with invalid UTF-8 escapes', { path: '/cards/%FF%FE%80' }],
  ['path with a short number', { path: '/transactions/123456789012' }],
  ['query with normal parameters', { query: '?limit=20&starting_after=tx_abc&status=settled&card_id=card_k3x' }],
  ['query with broken escapes', { query: '?a=%&b=%zz&c=%E0%A4%A' }],
  ['query with a Unix time', { query: 'since=1763703180' }],
  ['query with a plus-separated date', { query: 'q=2026+11+21' }],
  ['empty query', { query: '' }],
  ['just a question mark', { query: '?' }],
];

for (const [name, input] of notDetected) {
  test(`not card data: ${name}`, () => {
    assert.equal(findCardData(input), false);
    assert.doesNotThrow(() => assertNoCardData(input));
  });
}

const notCardFieldNames = [
  'card_id', 'card', 'cards', 'last4', 'expires_at', 'expand', 'company', 'span', 'panel', 'pinned',
  'decided', 'merchant_name', 'amount', 'ttl_minutes', 'track', 'exp', 'expires', 'security',
  'card_notes', 'cardnotes', 'discard_no', 'pinned_at', 'spin_code', 'valid', 'through', 'card_expand', 'expected',
  'interval_count', 'max_charges', 'not_before', 'policy_id', 'nonce', 'starting_after', 'limit', 'panel_number',
  'span_number', 'company_no', 'okpin', 'cv', 'validation', 'card_exported', 'exp_id',
  '\u0441\u0430rd_id', '\u043c\u0435rchant',
];
for (const name of notCardFieldNames) {
  test(`ordinary field name passes: ${name}`, () => {
    assert.equal(findCardData({ body: body(`{${JSON.stringify(name)}:"x"}`) }), false);
    assert.equal(findCardData({ query: `${name}=x` }), false);
  });
}

test('10,000 generated ids never hold a 13-digit run and are never card data', () => {
  const prefixes = ['card', 'pw', 'tx', 'dev', 'acct', 'req', 'st', 'idem', 'dep', 'nonce'] as const;
  for (let i = 0; i < 10_000; i++) {
    const id = randomId(prefixes[i % prefixes.length] as (typeof prefixes)[number]);
    assert.ok(!/[0-9]{13}/.test(id), id);
    assert.equal(findCardData({ body: id, path: `/cards/${id}`, query: `starting_after=${id}` }), false, id);
  }
});

test('every Luhn-valid number of 13–19 digits is found, and a changed check digit is not', () => {
  for (let length = 13; length <= 19; length++) {
    const partial = '4' + '7'.repeat(length - 2);
    const number = partial + luhnCheckDigit(partial);
    assert.equal(findCardData({ body: number }), true, number);
    const wrong = partial + ((Number(luhnCheckDigit(partial)) + 1) % 10);
    assert.equal(findCardData({ body: wrong }), false, wrong);
  }
});

test('a long input of short separated groups is scanned span by span', () => {
  // Seventeen 2s pass Luhn and no span of 13–19 ones does, so only the first run is card data.
  assert.equal(luhnSum('2'.repeat(17)) % 10, 0);
  for (let n = 13; n <= 19; n++) assert.notEqual(luhnSum('1'.repeat(n)) % 10, 0);
  assert.equal(findCardData({ body: '2 '.repeat(30_000) }), true);
  assert.equal(findCardData({ body: '1 '.repeat(30_000) }), false);
  assert.equal(findCardData({ body: 'a2 '.repeat(30_000) }), false);
});

test('a deep body within parser limits and a full array are both traversed', () => {
  const deep = body(`[[[[[[[{"k":"${VISA}"}]]]]]]]`);
  assert.equal(findCardData({ body: deep }), true);
  const items = Array.from({ length: 63 }, (_, i) => `"v${i}"`);
  const wide = body(`[${items.join(',')},"${VISA}"]`);
  assert.equal(findCardData({ body: wide }), true);
});

function luhnCheckDigit(partial: string): string {
  for (let d = 0; d <= 9; d++) if (luhnSum(partial + d) % 10 === 0) return String(d);
  throw new Error('unreachable');
}

function luhnSum(number: string): number {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum;
}

test('nothing carrying card data is signed: a JWS payload or an upstream path or query is refused before signing', async () => {
  const { testSigner } = await import('../support/test-signer.js');
  const { signer, key: signingKey } = testSigner(new Uint8Array(32).fill(7));
  const sign = (payload: object) => signer.revocation(signingKey.keyId, { v: 1, typ: 'revocation', policy_id: 'pw_1', device_id: 'dev_1', nonce: 'n', iat: 1, ...payload } as Parameters<typeof signer.revocation>[1]);
  const refused = (error: unknown): boolean => error instanceof LatchError && error.code === 'card_data_not_accepted';
  const payloads: object[] = [
    { merchant: 'xn--4111111111111111-eqbee.com' },
    { reason: '4111 1111 1111 1111' },
    { nested: [{ amount: 4111111111111111 }] },
    { cvv: 'x' },
  ];
  for (const payload of payloads) assert.throws(() => sign(payload), refused, JSON.stringify(payload));
  assert.match(sign({ merchant: 'shop.example', amount: '12.50', not_before: 1763703180, nonce: 'abc' }), /^[\w-]+\.[\w-]+\.[\w-]+$/);
  const key = signingKey;
  for (const url of [`https://cloud.example/v1/cards/${VISA}`, `https://cloud.example/v1/transactions?note=4111-1111-1111-1111`, 'https://cloud.example/v1/transactions?cvv=1', 'https://cloud.example/v1/transactions?note=4111.1111.1111.1111', 'https://cloud.example/v1/transactions?c%2576v=1']) {
    assert.throws(() => key.signUpstream({ method: 'GET', url: new URL(url), body: undefined, contentType: undefined, idempotencyKey: undefined }, 1763703180), refused, url);
  }
  assert.ok('signature' in key.signUpstream({ method: 'GET', url: new URL('https://cloud.example/v1/transactions?limit=5'), body: undefined, contentType: undefined, idempotencyKey: undefined }, 1763703180));
});

test('a SHA-256 named as one (`*_sha256`, exactly 64 lowercase hex) is a hash, not card data; anything else there is still scanned', () => {
  // 64 hex digits whose first 16 are a Luhn-valid card number, as a random hash is now and then.
  const hashWithRun = `4111111111111111${'a'.repeat(48)}`;
  assert.equal(findCardData({ body: { payload_sha256: hashWithRun } }), false);
  assert.equal(findCardData({ body: { accepted: { note: hashWithRun } } }), true, 'the same digits under another name are card data');
  assert.equal(findCardData({ body: { payload_sha256: `${hashWithRun}a` } }), true, 'not a SHA-256: 65 digits');
  assert.equal(findCardData({ body: { payload_sha256: hashWithRun.toUpperCase() } }), true, 'not the lowercase form');
  assert.equal(findCardData({ body: { payload_sha256: '4111111111111111' } }), true, 'a card number named like a hash');
});
