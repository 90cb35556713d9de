import assert from 'node:assert/strict';
import { test } from 'node:test';
import { holdsTestCardNumber } from './card-text.js';

test('the test card number is found in every form a leak would take', () => {
  for (const text of ['4111111111111111', 'x 4111 1111 1111 1111 y', '4111-1111-1111-1111', 'q=4111%201111%201111%201111', 'q=4111+1111+1111+1111', '/cards/%34%31%31%31%31%31%31%31%31%31%31%31%31%31%31%31']) {
    assert.equal(holdsTestCardNumber(text), true, text);
  }
});

test('fragments that turn up by chance are not a card number', () => {
  for (const text of ['created=1795441113', 'req_4111abc', '1111 1111', '4111 1111 1111', 'Date: Mon, 23 Nov 2026 14:11:11 GMT']) {
    assert.equal(holdsTestCardNumber(text), false, text);
  }
});
