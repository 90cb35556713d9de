import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_JSON_LIMITS, isJsonObject, JsonNumber, parseJson, type JsonValue } from '../../src/json/parse-json.js';
import { LatchError } from '../../src/errors/latch-error.js';

/** plain turns parser output into ordinary values for deepEqual: numbers become their text. */
function plain(value: JsonValue): unknown {
  if (value instanceof JsonNumber) return { number: value.text };
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).map((key) => [key, plain(value[key] as JsonValue)]));
  }
  return value;
}

const valid: Array<[string, unknown]> = [
  ['{}', {}],
  ['[]', []],
  ['null', null],
  ['true', true],
  ['false', false],
  ['"x"', 'x'],
  ['0', { number: '0' }],
  ['-0', { number: '-0' }],
  ['12.50', { number: '12.50' }],
  ['1e3', { number: '1e3' }],
  ['-1.5E-7', { number: '-1.5E-7' }],
  ['4111111111111111110', { number: '4111111111111111110' }],
  ['123456789012345678901234567890', { number: '123456789012345678901234567890' }],
  [' \t\r\n{ "a" : [ 1 , 2 ] }\n ', { a: [{ number: '1' }, { number: '2' }] }],
  ['{"a":{"b":{"c":null}}}', { a: { b: { c: null } } }],
  ['""', ''],
  ['"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\\/\b\f\n\r\t'],
  ['"\\u0041\\u00e9\\u4e2d"', 'Aé中'],
  ['"\\u0000"', '\u0000'],
  ['"\\ud83d\\ude00"', '😀'],
  ['"😀"', '😀'],
  ['"é中"', 'é中'],
  ['{"":1}', { '': { number: '1' } }],
  ['1e400', { number: '1e400' }],
  ['-1E-400', { number: '-1E-400' }],
  ['1e+0000000400', { number: '1e+0000000400' }],
  [`1${'0'.repeat(399)}`, { number: `1${'0'.repeat(399)}` }],
];
for (const [text, expected] of valid) {
  test(`parses ${JSON.stringify(text)}`, () => {
    assert.deepEqual(plain(parseJson(text)), expected);
  });
}

const invalid: Array<[string, string]> = [
  ['empty', ''],
  ['an exponent beyond 400', '1e401'],
  ['a negative exponent beyond 400', '[1E-401]'],
  ['an exponent of nine digits', '{"a":4e999999999}'],
  ['a number text of 401 characters', `1${'0'.repeat(400)}`],
  ['a fraction of 400 digits', `0.${'1'.repeat(400)}`],
  ['only whitespace', '   '],
  ['trailing comma in array', '[1,]'],
  ['trailing comma in object', '{"a":1,}'],
  ['leading comma', '[,1]'],
  ['double comma', '[1,,2]'],
  ['missing comma', '[1 2]'],
  ['missing colon', '{"a" 1}'],
  ['unquoted key', '{a:1}'],
  ['single quotes', "{'a':1}"],
  ['number key', '{1:1}'],
  ['duplicate key', '{"a":1,"a":2}'],
  ['duplicate key via escape', '{"a":1,"\\u0061":2}'],
  ['duplicate __proto__', '{"__proto__":1,"__proto__":2}'],
  ['comment', '{"a":1 /* c */}'],
  ['line comment', '{"a":1} // c'],
  ['unclosed object', '{"a":1'],
  ['unclosed array', '[1'],
  ['unclosed string', '"abc'],
  ['escape at end', '"abc\\'],
  ['bad escape', '"\\x41"'],
  ['short unicode escape', '"\\u12"'],
  ['non-hex unicode escape', '"\\u12g4"'],
  ['lone high surrogate escape', '"\\ud83d"'],
  ['lone low surrogate escape', '"\\ude00"'],
  ['high surrogate escape then letter', '"\\ud83dx"'],
  ['high surrogate escape then non-low escape', '"\\ud83d\\u0041"'],
  ['two high surrogate escapes', '"\\ud83d\\ud83d"'],
  ['raw lone high surrogate', '"\ud83d"'],
  ['raw lone low surrogate', '"\ude00"'],
  ['raw high surrogate at end of string', '"a\ud83d'],
  ['raw control character', '"a\nb"'],
  ['raw tab', '"a\tb"'],
  ['leading zero', '01'],
  ['leading zero in array', '[01]'],
  ['plus sign', '+1'],
  ['bare decimal point', '.5'],
  ['trailing decimal point', '1.'],
  ['empty exponent', '1e'],
  ['hex', '0x10'],
  ['NaN', 'NaN'],
  ['Infinity', 'Infinity'],
  ['-Infinity', '-Infinity'],
  ['lone minus', '-'],
  ['capitalized literal', 'True'],
  ['truncated literal', 'tru'],
  ['literal with tail', 'truex'],
  ['undefined', 'undefined'],
  ['two values', '{} {}'],
  ['value then garbage', '1 x'],
  ['byte order mark', '\ufeff{}'],
  ['non-breaking space as whitespace', '\u00a0{}'],
  ['vertical tab as whitespace', '\u000b{}'],
];
for (const [name, text] of invalid) {
  test(`refuses ${name}`, () => {
    assert.throws(() => parseJson(text), (error: unknown) => {
      assert.ok(error instanceof LatchError);
      assert.equal(error.code, 'invalid_request');
      assert.equal(error.param, 'body');
      return true;
    });
  });
}

function nested(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

test('depth limit: depthMax levels pass, one more is refused (arrays and objects)', () => {
  const max = DEFAULT_JSON_LIMITS.depthMax;
  assert.doesNotThrow(() => parseJson(nested(max)));
  assert.throws(() => parseJson(nested(max + 1)), LatchError);
  const objects = (depth: number): string => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
  assert.doesNotThrow(() => parseJson(objects(max)));
  assert.throws(() => parseJson(objects(max + 1)), LatchError);
  assert.doesNotThrow(() => parseJson(nested(3), { depthMax: 3, membersMax: 4 }));
  assert.throws(() => parseJson(nested(4), { depthMax: 3, membersMax: 4 }), LatchError);
});

test('a very deep document is refused, not a stack overflow', () => {
  assert.throws(() => parseJson(nested(100_000)), LatchError);
});

test('member limit: membersMax members pass, one more is refused', () => {
  const max = DEFAULT_JSON_LIMITS.membersMax;
  const array = (n: number): string => `[${Array.from({ length: n }, () => '0').join(',')}]`;
  const object = (n: number): string => `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',')}}`;
  assert.equal((parseJson(array(max)) as JsonValue[]).length, max);
  assert.throws(() => parseJson(array(max + 1)), LatchError);
  assert.equal(Object.keys(parseJson(object(max)) as object).length, max);
  assert.throws(() => parseJson(object(max + 1)), LatchError);
});

test('__proto__, constructor and prototype keys stay data and pollute nothing', () => {
  const value = parseJson('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
  assert.ok(isJsonObject(value));
  assert.deepEqual(Object.keys(value), ['__proto__', 'constructor']);
  assert.equal(Object.getPrototypeOf(value), null);
  assert.ok(Object.hasOwn(value, '__proto__'));
  assert.deepEqual(plain(value['__proto__'] as JsonValue), { polluted: true });
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  assert.equal((Object.prototype as Record<string, unknown>)['polluted'], undefined);
  const nestedValue = parseJson('{"a":{"__proto__":{"x":1}}}');
  assert.ok(isJsonObject(nestedValue) && isJsonObject(nestedValue['a']));
  assert.equal(Object.getPrototypeOf(nestedValue['a']), null);
});

test('numbers keep their exact text, including 19 digits beyond 2^53', () => {
  const value = parseJson('{"n":4111111111111111110,"m":12.50,"z":9007199254740993}');
  assert.ok(isJsonObject(value));
  const n = value['n'];
  assert.ok(n instanceof JsonNumber);
  assert.equal(n.text, '4111111111111111110');
  assert.notEqual(String(Number(n.text)), n.text, 'the float form would have lost digits');
  assert.equal((value['m'] as JsonNumber).text, '12.50');
  assert.equal((value['z'] as JsonNumber).text, '9007199254740993');
  assert.equal(JSON.stringify(value['m']), '12.5');
});

test('the error message names the offset and never the content', () => {
  const secret = 'SECRET-CONTENT';
  assert.throws(() => parseJson(`{"a":"${secret}",}`), (error: unknown) => {
    assert.ok(error instanceof LatchError);
    assert.ok(!error.message.includes(secret));
    assert.match(error.message, /offset \d+/);
    return true;
  });
});

test('isJsonObject tells objects from arrays, numbers and null', () => {
  assert.equal(isJsonObject(parseJson('{}')), true);
  for (const text of ['[]', 'null', '1', '"s"', 'true']) assert.equal(isJsonObject(parseJson(text)), false, text);
  assert.equal(isJsonObject(undefined), false);
});
