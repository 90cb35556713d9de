import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normalizeMerchant } from '../../src/validate/merchant.js';
import { LatchError } from '../../src/errors/latch-error.js';

const normalized: Array<[string, string]> = [
  ['example.com', 'example.com'],
  ['shop.example.com', 'shop.example.com'],
  ['Shop.Example.COM', 'shop.example.com'],
  ['SHOP.EXAMPLE.COM.', 'shop.example.com'],
  ['example.com.', 'example.com'],
  ['a-b.example.co.uk', 'a-b.example.co.uk'],
  ['123.example', '123.example'],
  ['a.io', 'a.io'],
  ['bücher.de', 'xn--bcher-kva.de'],
  ['BÜCHER.DE', 'xn--bcher-kva.de'],
  ['xn--bcher-kva.de', 'xn--bcher-kva.de'],
  ['faß.de', 'xn--fa-hia.de'],
  ['例え.jp', 'xn--r8jz45g.jp'],
  ['пример.рф', 'xn--e1afmkfd.xn--p1ai'],
  ['ｅｘａｍｐｌｅ。com', 'example.com'],
  [`${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`],
  [`${'a.'.repeat(125)}com`, `${'a.'.repeat(125)}com`],
];
for (const [input, expected] of normalized) {
  test(`merchant ${JSON.stringify(input)} → ${expected}`, () => {
    assert.equal(normalizeMerchant(input), expected);
    // Normalizing is idempotent: the signed form normalizes to itself.
    assert.equal(normalizeMerchant(expected), expected);
  });
}

test('mixed case and a trailing dot name the same merchant', () => {
  const forms = ['shop.example.com', 'SHOP.example.com', 'Shop.Example.Com.', 'shop.example.com.'];
  assert.deepEqual(new Set(forms.map((form) => normalizeMerchant(form))), new Set(['shop.example.com']));
});

test('homoglyph domains never equal the Latin domain', () => {
  const cyrillicA = 'аpple.com'; // U+0430 CYRILLIC SMALL LETTER A
  assert.notEqual(cyrillicA, 'apple.com');
  const normalizedLookAlike = normalizeMerchant(cyrillicA);
  assert.match(normalizedLookAlike, /^xn--/);
  assert.notEqual(normalizedLookAlike, normalizeMerchant('apple.com'));
  assert.equal(normalizedLookAlike, 'xn--pple-43d.com');
  const greekO = 'gοοgle.com'; // U+03BF GREEK SMALL LETTER OMICRON
  assert.notEqual(normalizeMerchant(greekO), 'google.com');
  assert.match(normalizeMerchant('exаmple.com'), /^xn--/);
});

const refused: Array<[string, string]> = [
  ['empty', ''],
  ['single label', 'localhost'],
  ['single label with trailing dot', 'com.'],
  ['scheme', 'https://example.com'],
  ['scheme without slashes', 'mailto:a@example.com'],
  ['path', 'example.com/checkout'],
  ['trailing slash', 'example.com/'],
  ['backslash', 'example.com\\evil.com'],
  ['query', 'example.com?x=1'],
  ['fragment', 'example.com#x'],
  ['port', 'example.com:443'],
  ['user info', 'user@example.com'],
  ['user info with password', 'user:pw@example.com'],
  ['IPv4', '127.0.0.1'],
  ['IPv4 short form', '127.1'],
  ['IPv4 hex form', '0x7f.1'],
  ['IPv4 octal form', '0177.0.0.1'],
  ['IPv4 public', '8.8.8.8'],
  ['IPv4 with trailing dot', '10.0.0.1.'],
  ['IPv6 literal', '[::1]'],
  ['IPv6 bare', '::1'],
  ['IPv6 full', '2001:db8::1'],
  ['numeric top-level label', 'example.123'],
  ['wildcard', '*.example.com'],
  ['wildcard inside', 'shop.*.com'],
  ['empty label', 'shop..example.com'],
  ['leading dot', '.example.com'],
  ['two trailing dots', 'example.com..'],
  ['just a dot', '.'],
  ['label over 63', `${'a'.repeat(64)}.com`],
  ['name over 253', `${'a.'.repeat(126)}com`],
  ['huge input', `${'a'.repeat(5000)}.com`],
  ['leading hyphen', '-shop.example.com'],
  ['trailing hyphen', 'shop-.example.com'],
  ['reserved double hyphen', 'ab--cd.com'],
  ['invalid punycode', 'xn--zz.com'],
  ['underscore', 'my_shop.example.com'],
  ['space inside', 'exa mple.com'],
  ['leading space', ' example.com'],
  ['trailing space', 'example.com '],
  ['tab', 'example.com\t'],
  ['newline', 'example.com\n'],
  ['no-break space', 'example\u00a0.com'],
  ['ideographic space', 'example\u3000.com'],
  ['zero-width space', 'exa\u200bmple.com'],
  ['zero-width non-joiner', 'exa\u200cmple.com'],
  ['zero-width joiner', 'exa\u200dmple.com'],
  ['left-to-right mark', 'example.com\u200e'],
  ['right-to-left mark', '\u200fexample.com'],
  ['word joiner', 'exa\u2060mple.com'],
  ['byte order mark', '\ufeffexample.com'],
  ['soft hyphen', 'exa\u00admple.com'],
  ['bidi override', 'example.com\u202e'],
  ['bidi isolate', '\u2066example.com\u2069'],
  ['Arabic letter mark', 'example\u061c.com'],
  ['combining grapheme joiner', 'exa\u034fmple.com'],
  ['variation selector', 'exa\ufe0fmple.com'],
  ['Hangul filler', 'exa\u3164mple.com'],
  ['NUL', 'example.com\u0000'],
  ['percent-encoded dot', 'example%2ecom'],
  ['fullwidth solidus', 'example.com／evil'],
  ['fullwidth colon port', 'example.com：443'],
  ['quote', '"example.com"'],
  ['comma list', 'a.com,b.com'],
  ['equals', 'a=b.com'],
];
for (const [name, input] of refused) {
  test(`merchant refused: ${name}`, () => {
    assert.throws(() => normalizeMerchant(input, 'merchant_name'), (error: unknown) => {
      assert.ok(error instanceof LatchError);
      assert.equal(error.code, 'invalid_request');
      assert.equal(error.param, 'merchant_name');
      // The message's own example domain is the only place such text may appear.
      const echoed = error.message.replace('shop.example.com', '').includes(input);
      if (input.length > 3) assert.ok(!echoed, 'the message must not echo the value');
      return true;
    });
  });
}

test('param defaults to merchant', () => {
  assert.throws(() => normalizeMerchant('x'), (error: unknown) => error instanceof LatchError && error.param === 'merchant');
});

test('exact match only: subdomains and parents stay distinct', () => {
  assert.notEqual(normalizeMerchant('shop.example.com'), normalizeMerchant('example.com'));
  assert.notEqual(normalizeMerchant('example.com.evil.com'), normalizeMerchant('example.com'));
});

const cardAfterNormalization: Array<[string, string]> = [
  ['é between the groups (IDNA moves them out)', '4111é1111é1111é1111.com'],
  ['ü between the groups, in a subdomain', 'pay.4111ü1111ü1111ü1111.example'],
  ['fullwidth digits (mapped to ASCII by IDNA)', '４１１１１１１１１１１１１１１１.example'],
  ['a 15-digit Amex with ñ', '3782ñ822463ñ10005.shop'],
];
for (const [name, input] of cardAfterNormalization) {
  test(`a card number that appears only after normalization is refused: ${name}`, () => {
    assert.throws(() => normalizeMerchant(input, 'merchant_name'), (error: unknown) => {
      assert.ok(error instanceof LatchError);
      assert.equal(error.code, 'card_data_not_accepted');
      assert.equal(error.param, undefined);
      assert.ok(!/\d{4}/.test(error.message));
      return true;
    });
  });
}

test('control: domains with digits and IDNA labels are still normalized', () => {
  for (const [input, expected] of [
    ['shop-2026.example', 'shop-2026.example'],
    ['münchen-1860.de', 'xn--mnchen-1860-thb.de'],
    ['4111.example', '4111.example'],
  ] as const) {
    assert.equal(normalizeMerchant(input), expected);
  }
});
