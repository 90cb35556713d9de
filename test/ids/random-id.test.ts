import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomId, type IdPrefix } from '../../src/ids/random-id.js';

const PREFIXES: readonly IdPrefix[] = ['card', 'pw', 'tx', 'dev', 'acct', 'req', 'st', 'idem', 'dep', 'nonce'];
const BODY = /^[a-km-np-z2-9]{24}$/;

test('every prefix gives <prefix>_ and 24 characters of the unambiguous alphabet', () => {
  for (const prefix of PREFIXES) {
    const id = randomId(prefix);
    assert.ok(id.startsWith(`${prefix}_`), id);
    assert.match(id.slice(prefix.length + 1), BODY);
  }
});

test('ids never hold ambiguous characters, upper case, 0 or 1', () => {
  for (let i = 0; i < 2000; i++) {
    const body = randomId('tx').slice(3);
    assert.doesNotMatch(body, /[lo01A-Z_-]/, body);
  }
});

test('every fourth character is a letter, so no id has more than three digits in a row', () => {
  for (let i = 0; i < 10_000; i++) {
    const body = randomId('card').slice(5);
    for (let position = 3; position < body.length; position += 4) {
      assert.match(body[position] as string, /[a-z]/, body);
    }
    assert.doesNotMatch(body, /[0-9]{4}/, body);
  }
});

test('10,000 ids are distinct', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 10_000; i++) seen.add(randomId('pw'));
  assert.equal(seen.size, 10_000);
});

test('every allowed character appears in every position class (no stuck alphabet)', () => {
  // With 4,000 ids each character has thousands of chances per class; missing one means a bug.
  const letterPositions = new Set<string>();
  const mixedPositions = new Set<string>();
  for (let i = 0; i < 4000; i++) {
    const body = randomId('dep').slice(4);
    for (let position = 0; position < body.length; position++) {
      (position % 4 === 3 ? letterPositions : mixedPositions).add(body[position] as string);
    }
  }
  assert.equal([...letterPositions].sort().join(''), 'abcdefghijkmnpqrstuvwxyz');
  assert.equal([...mixedPositions].sort().join(''), '23456789abcdefghijkmnpqrstuvwxyz');
});
