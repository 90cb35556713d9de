import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkProxyPath } from '../../src/proxy/proxy-path.js';
import { upstreamUrl } from '../../src/cloud/cloud-client.js';
import { LatchError } from '../../src/errors/latch-error.js';

const refused: Array<[string, string]> = [
  ['/v1/../admin', ''],
  ['/v1/%2e%2e/admin', ''],
  ['/v1/%2E%2e/admin', ''],
  ['/v1/.%2e/admin', ''],
  ['/v1/./wallet', ''],
  ['/v1/%2e/wallet', ''],
  ['/v1//evil.example/x', ''],
  ['/v1/wallet/..', ''],
  ['/v1/a%2f..%2fb', ''],
  ['/v1/a%5c..%5cb', ''],
  ['/v1/a\\..\\b', ''],
  ['/v1/a%00b', ''],
  ['/v2/wallet', ''],
  ['/v1', ''],
  ['/v1/', ''],
  ['//evil.example/v1/wallet', ''],
  ['/v1/wallet', 'a=\u0000'],
  ['/v1/%61uthorizations', ''],
  ['/v1/authorization%73', ''],
  ['/v1/%252e%252e/x', ''],
  ['/v1/cards/%63ard_x', ''],
  ['/v1/wallet#x', ''],
];

test('proxy path: every escape shape, and any percent-escape in the path, is refused before anything is sent', () => {
  for (const [path, query] of refused) {
    assert.throws(
      () => checkProxyPath(path, query),
      (error: unknown) => error instanceof LatchError && error.code === 'invalid_request' && error.param === 'path',
      path,
    );
  }
});

test('proxy path: plain paths under /v1/ pass', () => {
  for (const path of ['/v1/wallet', '/v1/authorizations/pw_abc/revoke', '/v1/cards/card_x', '/v1/a.b/c..d']) {
    assert.doesNotThrow(() => checkProxyPath(path, 'limit=5&starting_after=tx%5F1'), path);
  }
});

test('upstreamUrl keeps the configured origin and /v1/ whatever the path says', () => {
  const origin = new URL('http://127.0.0.1:9999');
  assert.equal(upstreamUrl(origin, '/v1/wallet?x=1').href, 'http://127.0.0.1:9999/v1/wallet?x=1');
  for (const bad of ['/v1/../x', '/v1/%2e%2e/x', '//evil.example/v1/x', '/v1\\..\\x', 'http://evil.example/v1/x', '/x', '/v1/%2E%2E']) {
    assert.throws(() => upstreamUrl(origin, bad), LatchError, bad);
  }
});
