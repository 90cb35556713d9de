import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoizeNames } from '../../src/validate/name-memo.js';
import { isCardFieldName } from '../../src/validate/card-field-names.js';
import { looksSecretName } from '../../src/log/secret-names.js';

test('a memoized judgement gives the judge answer, asking it once per name', () => {
  const asked: string[] = [];
  const judge = memoizeNames((name) => {
    asked.push(name);
    return name.startsWith('card');
  });
  assert.equal(judge('card_number'), true);
  assert.equal(judge('card_number'), true);
  assert.equal(judge('amount'), false);
  assert.equal(judge('amount'), false);
  assert.deepEqual(asked, ['card_number', 'amount']);
});

test('names beyond the bound are judged every time, so no input grows the memo without limit', () => {
  let calls = 0;
  const judge = memoizeNames(() => {
    calls += 1;
    return false;
  });
  for (let n = 0; n < 5000; n += 1) judge(`field_${n}`);
  calls = 0;
  judge('field_4999');
  judge('field_4999');
  assert.equal(calls, 2, 'a name seen after the memo filled is not kept');
  judge('field_1');
  assert.equal(calls, 2, 'a name kept before it filled is still answered from the memo');
  const long = 'x'.repeat(129);
  judge(long);
  judge(long);
  assert.equal(calls, 4, 'a long name is never kept');
});

test('the memoized guards answer as before, asked again and again', () => {
  for (let round = 0; round < 3; round += 1) {
    assert.equal(isCardFieldName('cardNumber'), true);
    assert.equal(isCardFieldName('сard_number'), true);
    assert.equal(isCardFieldName('card_notes'), false);
    assert.equal(looksSecretName('daemon_token'), true);
    assert.equal(looksSecretName('public_key'), false);
    assert.equal(looksSecretName('cvv'), true);
    assert.equal(looksSecretName('merchant'), false);
  }
});

test('a kept name cut from a long text does not keep the text alive', async () => {
  const { setFlagsFromString } = await import('node:v8');
  const { runInNewContext } = await import('node:vm');
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const judge = memoizeNames((name) => name.startsWith('card'));
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let n = 0; n < 500; n += 1) {
    // A 16 KB query string, as a request may carry; its first name (13 characters or more) is a V8 slice of it.
    const query = `name_of_a_field_${n}=1&${'x'.repeat(16_000)}${n}`;
    judge(query.split('&')[0]?.split('=')[0] as string);
  }
  gc();
  const grownBytes = process.memoryUsage().heapUsed - before;
  // 500 kept slices would hold about 8 MB of query text; 500 short copies hold a few kilobytes.
  assert.ok(grownBytes < 3_000_000, `the memo keeps ${(grownBytes / 1e6).toFixed(1)} MB alive`);
});
