import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { randomId } from '../../src/ids/random-id.js';
import {
  CARD_ID_PATTERN,
  isWireId,
  LOOKUP_ID_SHAPE,
  POLICY_ID_PATTERN,
  TRANSACTION_ID_PATTERN,
  WIRE_ID_BODY_LENGTH_MAX,
  wireIdPattern,
  wireIdWords,
  type WireIdPrefix,
} from '../../src/ids/wire-ids.js';

const PREFIXES: readonly WireIdPrefix[] = ['card', 'pw', 'tx', 'dev'];

/** Bodies that follow every prefix: [what, body, accepted]. */
const BODIES: ReadonlyArray<[string, string, boolean]> = [
  ['one character', 'a', true],
  ['digits only', '123', true],
  ['letters and digits', 'k3xq9z', true],
  ['the longest body', 'a'.repeat(WIRE_ID_BODY_LENGTH_MAX), true],
  ['a body one too long', 'a'.repeat(WIRE_ID_BODY_LENGTH_MAX + 1), false],
  ['an empty body', '', false],
  ['upper case', 'ABC', false],
  ['mixed case', 'abC', false],
  ['a Cyrillic look-alike', 'аbc', false],
  ['an emoji', '😀', false],
  ['a full-width digit', '１', false],
  ['a percent-encoded letter', '%61', false],
  ['a percent-encoded slash', 'abc%2fdef', false],
  ['a slash', 'abc/def', false],
  ['dot segments', '..', false],
  ['a hyphen', 'abc-def', false],
  ['a second underscore', 'abc_def', false],
  ['a space', 'abc def', false],
  ['a trailing newline', 'abc\n', false],
  ['a NUL', 'abc\u0000', false],
  ['a query', 'abc?x=1', false],
];

describe('wire id patterns', () => {
  for (const prefix of PREFIXES) {
    for (const [what, body, accepted] of BODIES) {
      test(`${prefix}_ with ${what}: ${accepted ? 'accepted' : 'refused'}`, () => {
        assert.equal(isWireId(prefix, `${prefix}_${body}`), accepted);
        assert.equal(wireIdPattern(prefix).test(`${prefix}_${body}`), accepted);
      });
    }
  }

  const WRONG: ReadonlyArray<[string, WireIdPrefix, string]> = [
    ['empty text', 'card', ''],
    ['the bare prefix', 'card', 'card'],
    ['the prefix and underscore alone', 'card', 'card_'],
    ['another kind of id', 'card', 'pw_abc'],
    ['a transaction id for a policy id', 'pw', 'tx_abc'],
    ['an upper-case prefix', 'card', 'CARD_abc'],
    ['a prefix glued to another word', 'card', 'cards_abc'],
    ['a prefix inside the text', 'tx', 'x_tx_abc'],
    ['a leading space', 'tx', ' tx_abc'],
    ['a percent-encoded underscore', 'card', 'card%5Fabc'],
    ['a card number', 'card', '4111111111111111'],
    ['a dash for the underscore', 'dev', 'dev-abc'],
  ];
  for (const [what, prefix, text] of WRONG) {
    test(`refuses ${what} as ${wireIdWords(prefix)}`, () => assert.equal(isWireId(prefix, text), false));
  }

  test('every id Latch makes is a wire id of its kind', () => {
    for (const prefix of PREFIXES) {
      for (let i = 0; i < 100; i++) assert.ok(isWireId(prefix, randomId(prefix)), prefix);
    }
  });

  test('the named patterns are the patterns of their prefixes', () => {
    assert.equal(CARD_ID_PATTERN.source, wireIdPattern('card').source);
    assert.equal(POLICY_ID_PATTERN.source, wireIdPattern('pw').source);
    assert.equal(TRANSACTION_ID_PATTERN.source, wireIdPattern('tx').source);
    for (const pattern of [CARD_ID_PATTERN, POLICY_ID_PATTERN, TRANSACTION_ID_PATTERN]) assert.doesNotMatch(pattern.flags, /[gy]/);
  });

  test('a longer minimum body refuses shorter ids and keeps the maximum', () => {
    const signed = wireIdPattern('pw', 8);
    assert.equal(signed.test('pw_abcdefg'), false);
    assert.equal(signed.test('pw_abcdefgh'), true);
    assert.equal(signed.test(`pw_${'a'.repeat(WIRE_ID_BODY_LENGTH_MAX + 1)}`), false);
  });

  for (const bad of [0, -1, 1.5, WIRE_ID_BODY_LENGTH_MAX + 1]) {
    test(`a minimum body of ${bad} is a programming error`, () => assert.throws(() => wireIdPattern('card', bad), /bodyLengthMin/));
  }

  test('wireIdWords names the kind and shows the prefix', () => {
    assert.equal(wireIdWords('card'), 'a card id like card_…');
    assert.equal(wireIdWords('pw'), 'a policy id like pw_…');
    assert.equal(wireIdWords('tx'), 'a transaction id like tx_…');
    assert.equal(wireIdWords('dev'), 'a device id like dev_…');
  });
});

describe('the lookup id shape', () => {
  const CASES: ReadonlyArray<[string, string, boolean]> = [
    ['a card id', 'card_abc', true],
    ['an account id with upper case', 'acct_AbC123', true],
    ['an empty text', '', false],
    ['no underscore', 'cardabc', false],
    ['an empty body', 'acct_', false],
    ['an upper-case prefix', 'ACCT_abc', false],
    ['a percent escape', 'acct_%41', false],
    ['unicode', 'acct_ä', false],
    ['a slash', 'acct_a/b', false],
  ];
  for (const [what, text, accepted] of CASES) {
    test(`${what}: ${accepted ? 'accepted' : 'refused'}`, () => assert.equal(LOOKUP_ID_SHAPE.test(text), accepted));
  }
});
