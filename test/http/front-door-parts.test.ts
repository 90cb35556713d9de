import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkBearer } from '../../src/http/bearer-token.js';
import { OWNER } from '../../src/core/principal.js';
import { fromBrowser } from '../../src/http/browser-check.js';
import { isJsonContentType } from '../../src/http/content-type.js';
import { originFormTarget, validHost } from '../../src/http/host-check.js';
import { splitTarget } from '../../src/http/request-target.js';
import { LatchError } from '../../src/errors/latch-error.js';

describe('validHost', () => {
  const table: Array<[string[], boolean]> = [
    [['Host', '127.0.0.1:7723'], true],
    [['host', 'localhost:7723'], true],
    [['HOST', 'LOCALHOST:7723'], true],
    [['Host', '[::1]:7723'], true],
    [['Host', '127.0.0.1:7732'], false],
    [['Host', '127.0.0.1'], false],
    [['Host', '[::1]'], false],
    [['Host', '[0:0:0:0:0:0:0:1]:7723'], false],
    [['Host', '2130706433:7723'], false],
    [['Host', '0x7f000001:7723'], false],
    [['Host', '127.1:7723'], false],
    [['Host', 'localhost:7723:7723'], false],
    [['Host', ':7723'], false],
    [['Host', 'localhost.:7723'], false],
    [['Host', 'evil.localhost:7723'], false],
    [[], false],
    [['Host', '127.0.0.1:7723', 'Host', '127.0.0.1:7723'], false],
    [['X-Forwarded-Host', '127.0.0.1:7723'], false],
  ];
  for (const [raw, ok] of table) {
    test(`${JSON.stringify(raw)} → ${ok}`, () => assert.equal(validHost(raw, 7723), ok));
  }
});

describe('originFormTarget', () => {
  for (const [target, ok] of [['/health', true], ['/', true], ['*', false], ['http://evil/x', false], ['evil:443', false], ['', false], [undefined, false]] as const) {
    test(`${String(target)} → ${ok}`, () => assert.equal(originFormTarget(target), ok));
  }
});

describe('splitTarget', () => {
  test('splits at the first ? and never resolves //host', () => {
    assert.deepEqual(splitTarget('/a?b=1?c'), { path: '/a', rawQuery: 'b=1?c' });
    assert.deepEqual(splitTarget('//evil.com/x'), { path: '//evil.com/x', rawQuery: '' });
    assert.deepEqual(splitTarget('/a?'), { path: '/a', rawQuery: '' });
  });
});

describe('fromBrowser', () => {
  const table: Array<[Record<string, string>, boolean]> = [
    [{}, false],
    [{ 'sec-fetch-site': 'none' }, false],
    [{ 'user-agent': 'curl/8' }, false],
    [{ origin: '' }, true],
    [{ referer: '' }, true],
    [{ 'sec-fetch-site': 'cross-site' }, true],
    [{ 'sec-fetch-site': 'NONE' }, true],
    [{ 'sec-fetch-site': 'none, cross-site' }, true],
  ];
  for (const [headers, browser] of table) {
    test(`${JSON.stringify(headers)} → ${browser}`, () => assert.equal(fromBrowser(headers), browser));
  }
});

describe('isJsonContentType', () => {
  const table: Array<[string | undefined, boolean]> = [
    ['application/json', true],
    ['application/json;charset=utf-8', true],
    ['application/json ; charset = UTF-8', true],
    [undefined, false],
    ['', false],
    ['application/json;', false],
    ['application/json; charset=utf-16', false],
    ['application/json; boundary=x', false],
    ['application/problem+json', false],
    ['text/json', false],
    [' application/json', false],
  ];
  for (const [value, ok] of table) {
    test(`${JSON.stringify(value)} → ${ok}`, () => assert.equal(isJsonContentType(value), ok));
  }
});

describe('checkBearer', () => {
  const token = 'A'.repeat(43);
  const table: Array<[string[], string | undefined]> = [
    [['Authorization', `Bearer ${token}`], undefined],
    [['authorization', `bearer ${token}`], undefined],
    [[], 'missing_bearer_token'],
    [['Cookie', `token=${token}`], 'missing_bearer_token'],
    [['Authorization', ''], 'invalid_bearer_token'],
    [['Authorization', 'Bearer '], 'invalid_bearer_token'],
    [['Authorization', 'Bearer'], 'invalid_bearer_token'],
    [['Authorization', `Bearer ${token} `], 'invalid_bearer_token'],
    [['Authorization', `Token ${token}`], 'invalid_bearer_token'],
    [['Authorization', `Bearer ${'B'.repeat(43)}`], 'invalid_bearer_token'],
    [['Authorization', `Bearer ${token}`, 'Authorization', `Bearer ${token}`], 'invalid_bearer_token'],
  ];
  for (const [raw, code] of table) {
    test(`${JSON.stringify(raw).replaceAll(token, '<token>')} → ${code ?? 'accepted'}`, () => {
      if (code === undefined) {
        assert.deepEqual(checkBearer(raw, [{ token, principal: OWNER }]), OWNER);
        return;
      }
      assert.throws(
        () => checkBearer(raw, [{ token, principal: OWNER }]),
        (error: unknown) => error instanceof LatchError && error.code === code && !error.message.includes(token),
      );
    });
  }
});
