import { test } from 'node:test';
import assert from 'node:assert/strict';
import { amount, bool, int, oneOf, parsedStr, str, validateBody, validateQuery } from '../../src/validate/schema.js';
import { parseJson, JsonNumber, type JsonValue } from '../../src/json/parse-json.js';
import { LatchError } from '../../src/errors/latch-error.js';

const authorizeRules = {
  card_id: str({ required: true, pattern: /^card_[a-z0-9]{1,64}$/, describe: 'a card id like card_...' }),
  merchant_name: str({ required: true }),
  amount: amount({ required: true }),
  currency: str({ pattern: /^[A-Z]{3}$/, default: 'USD' }),
  ttl_minutes: int({ min: 1, max: 1440, default: 30 }),
  authorization_type: oneOf(['exact', 'ceiling'], { default: 'exact' }),
  note: str(),
  dry_run: bool({ default: false }),
};

function invalid(param: string): (error: unknown) => boolean {
  return (error: unknown) => {
    assert.ok(error instanceof LatchError, String(error));
    assert.equal(error.code, 'invalid_request');
    assert.equal(error.status, 400);
    assert.equal(error.param, param);
    return true;
  };
}

test('a valid body gives typed values with defaults', () => {
  const input = validateBody(parseJson('{"card_id":"card_abc","merchant_name":"shop.example","amount":12.5}'), authorizeRules);
  assert.deepEqual({ ...input }, {
    card_id: 'card_abc',
    merchant_name: 'shop.example',
    amount: 1250,
    currency: 'USD',
    ttl_minutes: 30,
    authorization_type: 'exact',
    note: undefined,
    dry_run: false,
  });
  // Type-level checks: these lines fail to compile if inference regresses.
  const cardId: string = input.card_id;
  const ttl: number = input.ttl_minutes;
  const type: 'exact' | 'ceiling' = input.authorization_type;
  const dryRun: boolean = input.dry_run;
  // @ts-expect-error an optional field may be undefined
  const note: string = input.note;
  // @ts-expect-error the enum type is exactly its values
  const wrong: 'exact' = input.authorization_type;
  void [cardId, ttl, type, dryRun, note, wrong];
});

test('every field given explicitly', () => {
  const input = validateBody(
    parseJson('{"card_id":"card_1","merchant_name":"m.example","amount":"0.01","currency":"EUR","ttl_minutes":1440,"authorization_type":"ceiling","note":"hi","dry_run":true}'),
    authorizeRules,
  );
  assert.equal(input.amount, 1);
  assert.equal(input.currency, 'EUR');
  assert.equal(input.ttl_minutes, 1440);
  assert.equal(input.authorization_type, 'ceiling');
  assert.equal(input.note, 'hi');
  assert.equal(input.dry_run, true);
});

test('null counts as absent', () => {
  const input = validateBody(parseJson('{"card_id":"card_1","merchant_name":"m","amount":1,"ttl_minutes":null,"note":null}'), authorizeRules);
  assert.equal(input.ttl_minutes, 30);
  assert.equal(input.note, undefined);
  assert.throws(() => validateBody(parseJson('{"card_id":null,"merchant_name":"m","amount":1}'), authorizeRules), invalid('card_id'));
});

const base = '"card_id":"card_1","merchant_name":"m.example","amount":1';
const badBodies: Array<[string, string, string]> = [
  // [case, body text, expected param]
  ['body is an array', '[]', 'body'],
  ['body is a string', '"x"', 'body'],
  ['body is a number', '1', 'body'],
  ['body is null', 'null', 'body'],
  ['unknown field', `{${base},"extra":1}`, 'extra'],
  ['unknown field __proto__', `{${base},"__proto__":{}}`, '__proto__'],
  ['unknown field toString', `{${base},"toString":"x"}`, 'toString'],
  ['unknown field reported before missing ones', '{"zzz":1}', 'zzz'],
  ['missing card_id', '{"merchant_name":"m","amount":1}', 'card_id'],
  ['missing amount', '{"card_id":"card_1","merchant_name":"m"}', 'amount'],
  ['card_id wrong type', '{"card_id":5,"merchant_name":"m","amount":1}', 'card_id'],
  ['card_id pattern', '{"card_id":"CARD_1","merchant_name":"m","amount":1}', 'card_id'],
  ['card_id trailing newline does not slip past the pattern', '{"card_id":"card_1\\n","merchant_name":"m","amount":1}', 'card_id'],
  ['empty string', '{"card_id":"card_1","merchant_name":"","amount":1}', 'merchant_name'],
  ['string too long', `{"card_id":"card_1","merchant_name":"${'a'.repeat(257)}","amount":1}`, 'merchant_name'],
  ['control character', '{"card_id":"card_1","merchant_name":"a\\u0000b","amount":1}', 'merchant_name'],
  ['tab', '{"card_id":"card_1","merchant_name":"a\\tb","amount":1}', 'merchant_name'],
  ['DEL', '{"card_id":"card_1","merchant_name":"a\\u007fb","amount":1}', 'merchant_name'],
  ['C1 control', '{"card_id":"card_1","merchant_name":"a\\u0085b","amount":1}', 'merchant_name'],
  ['bidi override', '{"card_id":"card_1","merchant_name":"a\\u202eb","amount":1}', 'merchant_name'],
  ['line separator', '{"card_id":"card_1","merchant_name":"a\\u2028b","amount":1}', 'merchant_name'],
  ['string as object', '{"card_id":"card_1","merchant_name":{},"amount":1}', 'merchant_name'],
  ['amount boolean', `{"card_id":"card_1","merchant_name":"m","amount":true}`, 'amount'],
  ['amount array', `{"card_id":"card_1","merchant_name":"m","amount":[1]}`, 'amount'],
  ['amount negative', `{"card_id":"card_1","merchant_name":"m","amount":-1}`, 'amount'],
  ['amount zero', `{"card_id":"card_1","merchant_name":"m","amount":0}`, 'amount'],
  ['amount zero string', `{"card_id":"card_1","merchant_name":"m","amount":"0.00"}`, 'amount'],
  ['amount exponent', `{"card_id":"card_1","merchant_name":"m","amount":1e2}`, 'amount'],
  ['amount three decimals', `{"card_id":"card_1","merchant_name":"m","amount":1.005}`, 'amount'],
  ['amount above maximum', `{"card_id":"card_1","merchant_name":"m","amount":10000.01}`, 'amount'],
  ['amount NaN string', `{"card_id":"card_1","merchant_name":"m","amount":"NaN"}`, 'amount'],
  ['amount Infinity string', `{"card_id":"card_1","merchant_name":"m","amount":"Infinity"}`, 'amount'],
  ['amount string with spaces', `{"card_id":"card_1","merchant_name":"m","amount":" 1.00"}`, 'amount'],
  ['amount string with sign', `{"card_id":"card_1","merchant_name":"m","amount":"+1.00"}`, 'amount'],
  ['amount string hex', `{"card_id":"card_1","merchant_name":"m","amount":"0x10"}`, 'amount'],
  ['ttl as string', `{${base},"ttl_minutes":"30"}`, 'ttl_minutes'],
  ['ttl zero', `{${base},"ttl_minutes":0}`, 'ttl_minutes'],
  ['ttl above max', `{${base},"ttl_minutes":1441}`, 'ttl_minutes'],
  ['ttl negative', `{${base},"ttl_minutes":-5}`, 'ttl_minutes'],
  ['ttl fraction', `{${base},"ttl_minutes":30.5}`, 'ttl_minutes'],
  ['ttl integral fraction', `{${base},"ttl_minutes":30.0}`, 'ttl_minutes'],
  ['ttl exponent', `{${base},"ttl_minutes":3e1}`, 'ttl_minutes'],
  ['ttl huge', `{${base},"ttl_minutes":100000000000000000000}`, 'ttl_minutes'],
  ['ttl boolean', `{${base},"ttl_minutes":true}`, 'ttl_minutes'],
  ['enum other value', `{${base},"authorization_type":"EXACT"}`, 'authorization_type'],
  ['enum number', `{${base},"authorization_type":1}`, 'authorization_type'],
  ['bool as string', `{${base},"dry_run":"true"}`, 'dry_run'],
  ['bool as number', `{${base},"dry_run":1}`, 'dry_run'],
];

for (const [name, text, param] of badBodies) {
  test(`body refused: ${name}`, () => {
    assert.throws(() => validateBody(parseJson(text), authorizeRules), invalid(param));
  });
}

test('error messages name the field but never echo the value', () => {
  const secretish = 'VALUE-THAT-MUST-NOT-APPEAR';
  const cases: JsonValue[] = [
    parseJson(`{${base},"ttl_minutes":"${secretish}"}`),
    parseJson(`{${base},"authorization_type":"${secretish}"}`),
    parseJson(`{"card_id":"${secretish}","merchant_name":"m","amount":1}`),
    parseJson(`{"card_id":"card_1","merchant_name":"m","amount":"${secretish}"}`),
    parseJson(`{${base},"dry_run":"${secretish}"}`),
  ];
  for (const body of cases) {
    assert.throws(() => validateBody(body, authorizeRules), (error: unknown) => {
      assert.ok(error instanceof LatchError);
      assert.ok(!error.message.includes(secretish), error.message);
      assert.ok(error.message.includes(error.param ?? '?'), error.message);
      return true;
    });
  }
});

test('int bounds and signs', () => {
  const signed = { n: int({ signed: true, min: -10, max: 10 }) };
  assert.equal(validateBody(parseJson('{"n":-10}'), signed).n, -10);
  assert.equal(validateBody(parseJson('{"n":0}'), signed).n, 0);
  assert.throws(() => validateBody(parseJson('{"n":-0}'), signed), invalid('n'));
  assert.throws(() => validateBody(parseJson('{"n":-11}'), signed), invalid('n'));
  const unsigned = { n: int() };
  assert.equal(validateBody(parseJson('{"n":999999999999999}'), unsigned).n, 999_999_999_999_999);
  assert.throws(() => validateBody(parseJson('{"n":9999999999999999}'), unsigned), invalid('n'), 'beyond 15 digits');
  assert.throws(() => validateBody(parseJson('{"n":-1}'), unsigned), invalid('n'));
  assert.throws(() => validateBody({ n: new JsonNumber('+1') }, unsigned), invalid('n'));
  assert.throws(() => validateBody({ n: new JsonNumber('01') }, unsigned), invalid('n'));
});

test('amount options: allowZero, maxMinor, default in minor units', () => {
  const rules = { amount: amount({ allowZero: true, maxMinor: 100, default: 0 }) };
  assert.equal(validateBody(parseJson('{}'), rules).amount, 0);
  assert.equal(validateBody(parseJson('{"amount":0}'), rules).amount, 0);
  assert.equal(validateBody(parseJson('{"amount":"1.00"}'), rules).amount, 100);
  assert.throws(() => validateBody(parseJson('{"amount":1.01}'), rules), invalid('amount'));
  const max = { amount: amount({ required: true }) };
  assert.equal(validateBody(parseJson('{"amount":10000}'), max).amount, 1_000_000);
  assert.equal(validateBody(parseJson('{"amount":10000.00}'), max).amount, 1_000_000);
  assert.equal(validateBody(parseJson('{"amount":0.1}'), max).amount, 10);
});

test('string options: maxLength counts code points, minLength, global patterns are safe to reuse', () => {
  const rules = { s: str({ maxLength: 3 }) };
  assert.equal(validateBody(parseJson('{"s":"😀😀😀"}'), rules).s, '😀😀😀');
  assert.throws(() => validateBody(parseJson('{"s":"😀😀😀😀"}'), rules), invalid('s'));
  assert.throws(() => validateBody(parseJson('{"s":"a"}'), { s: str({ minLength: 2 }) }), invalid('s'));
  const global = { s: str({ pattern: /[a-z]+/g }) };
  for (let i = 0; i < 3; i++) assert.equal(validateBody(parseJson('{"s":"abc"}'), global).s, 'abc');
  assert.throws(() => validateBody(parseJson('{"s":"abc1"}'), global), invalid('s'), 'pattern must match the whole value');
  assert.throws(() => validateBody({ s: 'a\ud800' }, rules), invalid('s'), 'lone surrogate');
});

test('parsedStr runs a parser after the text checks and passes the param', () => {
  const seen: string[] = [];
  const rules = {
    upper: parsedStr((text, param) => {
      seen.push(param);
      return text.toUpperCase();
    }, { required: true }),
  };
  const out = validateBody(parseJson('{"upper":"abc"}'), rules);
  const typed: string = out.upper;
  assert.equal(typed, 'ABC');
  assert.deepEqual(seen, ['upper']);
  assert.throws(() => validateBody(parseJson('{"upper":"a\\u0001"}'), rules), invalid('upper'));
  assert.deepEqual(seen, ['upper'], 'the parser never sees text that failed the checks');
});

test('rule builders refuse contradictory definitions', () => {
  assert.throws(() => int({ required: true, default: 3 }));
  assert.throws(() => oneOf(['a', 'b'], { default: 'c' as 'a' }));
  assert.throws(() => oneOf([]));
});

const listRules = {
  limit: int({ min: 1, max: 100, default: 20 }),
  starting_after: str({ pattern: /^tx_[a-z0-9]{1,64}$/ }),
  status: oneOf(['authorized', 'settled', 'declined', 'expired', 'revoked']),
  card_id: str(),
  amount: amount(),
  verbose: bool(),
};

test('query: valid parameters and defaults', () => {
  const q = validateQuery(new URLSearchParams('limit=5&status=settled&starting_after=tx_abc&amount=12.50&verbose=true'), listRules);
  assert.deepEqual({ ...q }, { limit: 5, starting_after: 'tx_abc', status: 'settled', card_id: undefined, amount: 1250, verbose: true });
  const empty = validateQuery(new URLSearchParams(''), listRules);
  assert.equal(empty.limit, 20);
  assert.equal(empty.status, undefined);
  const limit: number = empty.limit;
  void limit;
});

const badQueries: Array<[string, string, string]> = [
  ['unknown parameter', 'limit=5&foo=1', 'foo'],
  ['repeated parameter', 'limit=5&limit=6', 'limit'],
  ['repeated parameter with the same value', 'status=settled&status=settled', 'status'],
  ['limit not an integer', 'limit=abc', 'limit'],
  ['limit with sign', 'limit=+5', 'limit'],
  ['limit negative', 'limit=-5', 'limit'],
  ['limit leading zero', 'limit=05', 'limit'],
  ['limit fraction', 'limit=5.0', 'limit'],
  ['limit exponent', 'limit=5e1', 'limit'],
  ['limit with space', 'limit=%205', 'limit'],
  ['limit zero', 'limit=0', 'limit'],
  ['limit above max', 'limit=101', 'limit'],
  ['limit empty', 'limit=', 'limit'],
  ['limit without value', 'limit', 'limit'],
  ['enum wrong', 'status=SETTLED', 'status'],
  ['cursor wrong', 'starting_after=card_1', 'starting_after'],
  ['empty string value', 'card_id=', 'card_id'],
  ['control character', 'card_id=a%00b', 'card_id'],
  ['amount with exponent', 'amount=1e2', 'amount'],
  ['bool not exact', 'verbose=1', 'verbose'],
  ['bool capitalized', 'verbose=True', 'verbose'],
];

for (const [name, query, param] of badQueries) {
  test(`query refused: ${name}`, () => {
    assert.throws(() => validateQuery(new URLSearchParams(query), listRules), invalid(param));
  });
}

test('query: required parameters', () => {
  const rules = { card_id: str({ required: true }) };
  assert.throws(() => validateQuery(new URLSearchParams(''), rules), invalid('card_id'));
  assert.equal(validateQuery(new URLSearchParams('card_id=card_1'), rules).card_id, 'card_1');
});

const unknownNames: Array<[string, string, string, string | undefined]> = [
  // [case, name, expected param, name expected in the message]
  ['a plain name is named', 'extra_field', 'extra_field', 'extra_field'],
  ['dots and dashes are named', 'a.b-c', 'a.b-c', 'a.b-c'],
  ['markup is not repeated', '<script>alert(1)</script>', 'body', undefined],
  ['a bidi override is not repeated', 'a\u202eb', 'body', undefined],
  ['spaces are not repeated', 'name with spaces', 'body', undefined],
  ['a Cyrillic look-alike is not repeated', 'm\u0435rchant', 'body', undefined],
  ['a long name is cut to 64 characters', `x${'y'.repeat(200)}`, `x${'y'.repeat(63)}…`, `x${'y'.repeat(63)}…`],
  ['a card field name is not repeated', 'card_no', 'body', undefined],
];
for (const [name, field, param, shown] of unknownNames) {
  test(`unknown field and query names: ${name}`, () => {
    const body = parseJson(`{${JSON.stringify(field)}:1}`);
    for (const [where, run] of [
      ['body', () => validateBody(body, { a: str() })],
      ['query', () => validateQuery(new URLSearchParams([[field, '1']]), { a: str() })],
    ] as const) {
      assert.throws(run, (error: unknown) => {
        assert.ok(error instanceof LatchError);
        assert.equal(error.code, 'invalid_request');
        assert.equal(error.param, param === 'body' ? where : param);
        if (shown !== undefined) assert.ok(error.message.includes(shown), error.message);
        else assert.ok(!error.message.includes(field) && /^[\x20-\x7e]*$/.test(error.message), error.message);
        return true;
      });
    }
  });
}
