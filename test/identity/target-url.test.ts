/**
 * Web Bot Auth targets name hosts, not addresses (issue 34 review): the merchant deny rules match
 * domains, so an IP literal would reach a denied merchant's server without ever matching its rule.
 * Every spelling of an address the URL parser accepts is refused, except this machine's own.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LatchError } from '../../src/errors/latch-error.js';
import { checkTargetUrl } from '../../src/identity/target-url.js';

const REFUSED: ReadonlyArray<[string, string]> = [
  ['dotted IPv4', 'https://93.184.216.34/'],
  ['dotted IPv4 with a trailing dot', 'https://93.184.216.34./'],
  ['dotted IPv4 with a port', 'https://93.184.216.34:8443/pay'],
  ['a decimal integer', 'https://1572395042/'],
  ['a hex integer', 'https://0x5db8d822/'],
  ['an octal integer', 'https://013556154042/'],
  ['hex and octal parts', 'https://0x5d.0270.216.34/'],
  ['a short form (a.b.c)', 'https://93.184.55330/'],
  ['percent-encoded digits', 'https://%39%33.184.216.34/'],
  ['full-width dots', 'https://93\u3002184\u3002216\u300234/'],
  ['0 (all zeros)', 'https://0/'],
  ['a private address', 'https://192.168.1.1/'],
  ['IPv6 in brackets', 'https://[2606:2800:220:1:248:1893:25c8:1946]/'],
  ['IPv6 unspecified', 'https://[::]/'],
  ['IPv4-mapped IPv6', 'https://[::ffff:93.184.216.34]/'],
  ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/'],
  ['link-local IPv6', 'https://[fe80::1]/'],
];

for (const [name, url] of REFUSED) {
  test(`a Web Bot Auth target at an IP literal is refused: ${name} (invalid_request, param url)`, () => {
    assert.throws(
      () => checkTargetUrl(url),
      (error: unknown) => error instanceof LatchError && error.code === 'invalid_request' && error.param === 'url' && /not an IP address/.test(error.message),
    );
  });
}

test('loopback addresses stay accepted, in every spelling, and host names keep working', () => {
  for (const [url, host] of [
    ['http://127.0.0.1:9/x', '127.0.0.1'],
    ['https://127.1.2.3/', '127.1.2.3'],
    ['https://0x7f000001/', '127.0.0.1'],
    ['https://017700000001/', '127.0.0.1'],
    ['http://[::1]:9/', '[::1]'],
    ['http://[0:0:0:0:0:0:0:1]/', '[::1]'],
    ['http://localhost/', 'localhost'],
    ['https://Shop.Example.com./', 'shop.example.com'],
    ['https://1x.example/', '1x.example'],
  ] as const) {
    assert.equal(checkTargetUrl(url).host, host, url);
  }
});
