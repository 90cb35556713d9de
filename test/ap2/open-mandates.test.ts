/**
 * The two open mandates, verified with code Latch did not write: @sd-jwt/core (signature and
 * disclosures) and jose (ES256 under the JWKS, the RFC 7638 kid). Generic libraries drop what they
 * cannot resolve, so every test deep-compares the resolved delegate with the claims Latch meant to
 * sign and counts the disclosures (docs/decisions.md §32).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SDJwtInstance } from '@sd-jwt/core';
import { ES256, digest } from '@sd-jwt/crypto-nodejs';
import { calculateJwkThumbprint, compactVerify, createLocalJWKSet, decodeProtectedHeader } from 'jose';
import { createHash } from 'node:crypto';
import { p256PublicKeyObject } from '../../src/ap2/p256.js';
import { generateP256Scalar, p256PublicJwkOfScalar } from '../../src/signer/p256-scalar.js';
import { rawMandateSigner } from '../support/mandate-signing.js';
import { MandateKey, signRecordedOpenMandates } from '../../src/signer/ap2-mandate.js';
import { signOpenMandates } from '../../src/ap2/sign-open-mandates.js';
import { disclosureCount, openCheckoutClaims, openPaymentClaims, type MandateTerms } from '../../src/ap2/open-mandates.js';
import { verifyRootSdJwt } from '../../src/ap2/verify-sd-jwt.js';
import { issueRootSdJwt, sdDigest, sdHash } from '../../src/ap2/sd-jwt.js';

const agentKey = p256PublicJwkOfScalar(generateP256Scalar());
const signer = rawMandateSigner(generateP256Scalar());
const jwk = { ...signer.publicJwk, kid: signer.kid, alg: 'ES256', use: 'sig' };
const jwks = { keys: [jwk] };

function terms(over: Partial<MandateTerms> = {}): MandateTerms {
  return {
    cardId: 'card_0123456789abcdef',
    cardLabel: 'Work card',
    merchant: { id: 'shop.example', name: 'Example Shop', website: 'https://shop.example' },
    amountMaxMinor: 2500,
    currency: 'USD',
    lines: [
      { item: { id: 'sku-1', title: 'Blue mug' }, alternatives: [{ id: 'sku-2', title: 'Red mug • é' }], quantity: 1 },
      { item: { id: 'sku-3', title: 'Saucer' }, alternatives: [], quantity: 2 },
    ],
    agentKey,
    ...over,
  };
}

const IAT = 1_790_000_000;
const EXP = IAT + 600;

async function sdJwtLibrary() {
  return new SDJwtInstance({ hasher: digest, hashAlg: 'sha-256', verifier: await ES256.getVerifier(jwk) });
}

test('both open mandates verify with @sd-jwt/core and resolve to exactly the claims Latch meant, with every disclosure counted', async () => {
  const t = terms();
  const signed = signOpenMandates(t, signer, IAT, EXP);
  const library = await sdJwtLibrary();
  const expectedCheckout = openCheckoutClaims(t, IAT, EXP);
  const expectedPayment = openPaymentClaims(t, signed.openCheckoutHash, IAT, EXP);
  for (const [token, expected] of [[signed.openCheckoutMandate, expectedCheckout], [signed.openPaymentMandate, expectedPayment]] as const) {
    const { payload, header } = await library.verify(token);
    assert.deepEqual(header, { alg: 'ES256', typ: 'example+sd-jwt', kid: signer.kid });
    // The library drops _sd_alg from what it resolves; the raw payload is checked with jose below.
    assert.deepEqual(payload, { delegate_payload: [expected] });
    const decoded = await library.decode(token);
    assert.equal(decoded.disclosures?.length, disclosureCount(expected));
    assert.ok(token.endsWith('~') && !token.endsWith('~~'), 'a root mandate ends in one ~, with no key-binding JWT');
  }
  assert.equal(disclosureCount(expectedCheckout), 1 + 3 + 1);
  assert.equal(disclosureCount(expectedPayment), 3);
});

test('the issuer JWT of each mandate verifies with jose under the mandate JWKS, and kid is the RFC 7638 thumbprint', async () => {
  const signed = signOpenMandates(terms(), signer, IAT, EXP);
  assert.equal(signer.kid, await calculateJwkThumbprint(signer.publicJwk));
  for (const token of [signed.openCheckoutMandate, signed.openPaymentMandate]) {
    const jwt = token.split('~')[0] as string;
    const { protectedHeader, payload } = await compactVerify(jwt, createLocalJWKSet(jwks));
    assert.equal(protectedHeader.kid, signer.kid);
    const top = JSON.parse(Buffer.from(payload).toString('utf8'));
    assert.deepEqual(Object.keys(top), ['delegate_payload', '_sd_alg'], 'the top level is exactly what the AP2 SDK writes');
  }
});

test('the payment mandate references the checkout mandate by its sd_hash: SHA-256 of the whole token, trailing ~ included', () => {
  const signed = signOpenMandates(terms(), signer, IAT, EXP);
  const expected = createHash('sha256').update(signed.openCheckoutMandate, 'ascii').digest('base64url');
  assert.equal(signed.openCheckoutHash, expected);
  const payment = verifyRootSdJwt(signed.openPaymentMandate, () => p256PublicKeyObject(signer.publicJwk)).delegate;
  assert.deepEqual((payment['constraints'] as unknown[])[3], { type: 'payment.reference', conditional_transaction_id: expected });
});

test('a card without a label is an instrument without a description (never null), and nothing carries a card number', async () => {
  const t = terms();
  delete t.cardLabel;
  const signed = signOpenMandates(t, signer, IAT, EXP);
  const { payload } = await (await sdJwtLibrary()).verify(signed.openPaymentMandate);
  const delegate = ((payload as Record<string, unknown>)['delegate_payload'] as Record<string, unknown>[])[0] as Record<string, unknown>;
  assert.deepEqual((delegate['constraints'] as unknown[])[2], { type: 'payment.allowed_payment_instruments', allowed: [{ id: 'card_0123456789abcdef', type: 'card' }] });
  assert.ok(!JSON.stringify(payload).includes('null'));
  // The daemon's mandate key refuses it: its purpose reads the lines from the ledger entry and runs the card-data guard.
  const withCard = terms({ lines: [{ item: { id: 'sku-1', title: '4111 1111 1111 1111' }, alternatives: [], quantity: 1 }] });
  const request = { kind: 'ap2_mandate', cardId: withCard.cardId, amountMinor: withCard.amountMaxMinor, currency: withCard.currency, mandate: { merchant: withCard.merchant, lines: withCard.lines, agentKey: withCard.agentKey } };
  const entry = { cardId: withCard.cardId, amountMinor: withCard.amountMaxMinor, currency: withCard.currency, notAfterSeconds: EXP, state: 'active', evidence: { request, window: { not_before: IAT } } };
  assert.throws(() => signRecordedOpenMandates(MandateKey.fromScalar(generateP256Scalar()), { get: () => entry as never }, 'pw_1', undefined), { code: 'card_data_not_accepted' } as object);
});

test('disclosure digests are SHA-256 over the base64url text of [salt, value], as SD-JWT and the AP2 SDK compute them', () => {
  const salts = ['c2FsdHNhbHRzYWx0c2FsdA', 'b3RoZXJzYWx0b3RoZXJzYQ'];
  let next = 0;
  const token = issueRootSdJwt({ a: ['x'] }, (claims, disclose) => ({ a: claims.a.map(disclose) }), { kid: 'k', sign: () => new Uint8Array(64) }, () => salts[next++] as string);
  const [, inner, outer] = token.slice(0, -1).split('~') as [string, string, string];
  assert.equal(Buffer.from(inner, 'base64url').toString('utf8'), '["c2FsdHNhbHRzYWx0c2FsdA","x"]');
  const innerDigest = createHash('sha256').update(inner, 'ascii').digest('base64url');
  assert.equal(sdDigest(inner), innerDigest);
  assert.deepEqual(JSON.parse(Buffer.from(outer, 'base64url').toString('utf8')), ['b3RoZXJzYWx0b3RoZXJzYQ', { a: [{ '...': innerDigest }] }]);
  const header = JSON.parse(Buffer.from(token.split('.')[0] as string, 'base64url').toString('utf8'));
  assert.deepEqual(header, { alg: 'ES256', typ: 'example+sd-jwt', kid: 'k' });
  assert.equal(sdHash('a~'), createHash('sha256').update('a~').digest('base64url'));
});

test('the strict verifier accepts what Latch signs and refuses every tampering a generic library lets through', async () => {
  const signed = signOpenMandates(terms(), signer, IAT, EXP);
  const keyFor = (kid: string) => (kid === signer.kid ? p256PublicKeyObject(signer.publicJwk) : undefined);
  const ok = verifyRootSdJwt(signed.openCheckoutMandate, keyFor);
  assert.deepEqual(ok.delegate, openCheckoutClaims(terms(), IAT, EXP));
  assert.equal(ok.disclosureCount, 5);

  const parts = signed.openCheckoutMandate.slice(0, -1).split('~');
  const library = await sdJwtLibrary();
  const extra = `${signed.openCheckoutMandate}${Buffer.from(JSON.stringify(['c2FsdHNhbHRzYWx0c2FsdA', { id: 'sku-9', title: 'Other' }])).toString('base64url')}~`;
  const missing = `${[parts[0], ...parts.slice(2)].join('~')}~`;
  const repeated = `${[...parts, parts[1]].join('~')}~`;
  // What a lax library accepts: an unreferenced extra disclosure, and an element whose disclosure is missing.
  await library.verify(extra);
  await library.verify(missing);
  const cases: [string, string, RegExp][] = [
    ['an unreferenced extra disclosure', extra, /not referenced/],
    ['a missing disclosure', missing, /has no disclosure/],
    ['a repeated disclosure', repeated, /repeats/],
    ['a key-binding JWT after it', `${signed.openCheckoutMandate}eyJ.eyJ.sig`, /ends with ~/],
    ['another key', signed.openCheckoutMandate, /no key/],
    ['a flipped signature', signed.openCheckoutMandate.replace(/\.([A-Za-z0-9_-])([A-Za-z0-9_-]*)~/, (_m, a: string, rest: string) => `.${a === 'A' ? 'B' : 'A'}${rest}~`), /signature/],
  ];
  for (const [name, token, reason] of cases) {
    const keys = name === 'another key' ? () => undefined : keyFor;
    assert.throws(() => verifyRootSdJwt(token, keys), reason, name);
  }
  assert.equal(decodeProtectedHeader(signed.openCheckoutMandate.split('~')[0] as string).typ, 'example+sd-jwt');
});

test('a signature under another key fails @sd-jwt/core and jose', async () => {
  const other = rawMandateSigner(generateP256Scalar());
  const signed = signOpenMandates(terms(), other, IAT, EXP);
  await assert.rejects((await sdJwtLibrary()).verify(signed.openPaymentMandate), /Invalid JWT Signature/);
  await assert.rejects(compactVerify(signed.openPaymentMandate.split('~')[0] as string, createLocalJWKSet(jwks)));
});
