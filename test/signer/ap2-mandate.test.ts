/** The mandate key's signer signs open mandates of the stated kind only, and never shows its key. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { toBase64Url } from '../../src/crypto/base64url.js';
import { generateP256Scalar, p256PublicJwkOfScalar } from '../../src/signer/p256-scalar.js';
import { Ap2MandateSigner } from '../../src/signer/ap2-mandate.js';
import { openCheckoutClaims, openPaymentClaims, type MandateTerms } from '../../src/ap2/open-mandates.js';

const scalar = generateP256Scalar();
const signer = Ap2MandateSigner.fromScalar(scalar);
const terms: MandateTerms = {
  cardId: 'card_0123456789abcdef',
  merchant: { id: 'shop.example', name: 'Shop' },
  amountMaxMinor: 100,
  currency: 'USD',
  lines: [{ item: { id: 'a', title: 'A' }, alternatives: [], quantity: 1 }],
  agentKey: p256PublicJwkOfScalar(generateP256Scalar()),
};

test('the mandate signer refuses claims of another kind, without a bound agent key or without a lifetime', () => {
  const checkout = openCheckoutClaims(terms, 10, 20);
  const payment = openPaymentClaims(terms, 'h', 10, 20);
  assert.throws(() => signer.signOpenPaymentMandate(checkout as never), /as mandate.payment.open.1/);
  assert.throws(() => signer.signOpenCheckoutMandate(payment as never), /as mandate.checkout.open.1/);
  assert.throws(() => signer.signOpenCheckoutMandate({ ...checkout, cnf: undefined } as never), /cnf/);
  assert.throws(() => signer.signOpenCheckoutMandate({ ...checkout, exp: 10 }), /iat < exp/);
});

test('the mandate signer shows no private key in JSON, inspect or its own members', () => {
  const d = toBase64Url(scalar);
  for (const text of [JSON.stringify(signer), inspect(signer, { showHidden: true, depth: 5 }), JSON.stringify({ ...signer }), Object.keys(signer).join()]) {
    assert.ok(!text.includes(d), 'the scalar is not shown');
    assert.ok(!text.includes('"d"'), 'no d member');
  }
  assert.deepEqual(Object.keys(signer).sort(), ['kid', 'publicJwk']);
});

test('the signer signs open mandates only for the ledger\'s active ap2_mandate entry with the same terms, once', async () => {
  const { signRecordedOpenMandates } = await import('../../src/signer/index.js');
  const request = { kind: 'ap2_mandate' };
  const entry = { policyId: 'pw_1', cardId: terms.cardId, amountMinor: 100, currency: 'USD', notAfterSeconds: 20, state: 'active', evidence: { request, window: { not_before: 10 } } };
  const ledger = (found: object | undefined) => ({ get: () => found as never });
  const signed = signRecordedOpenMandates(signer, ledger(entry), 'pw_1', terms, 10, 20);
  assert.equal(signed.keyId, signer.kid);
  assert.throws(() => signRecordedOpenMandates(signer, ledger(undefined), 'pw_1', terms, 10, 20), /no entry/);
  const refused: object[] = [
    ...['failed', 'unregistered', 'used', 'revoked', 'expired'].map((state) => ({ ...entry, state })),
    { ...entry, evidence: { ...entry.evidence, request: { kind: 'one_time' } } },
    { ...entry, evidence: undefined },
    { ...entry, amountMinor: 99 },
    { ...entry, cardId: 'card_other' },
    { ...entry, currency: 'EUR' },
    { ...entry, notAfterSeconds: 21 },
    { ...entry, evidence: { ...entry.evidence, window: { not_before: 11 } } },
    { ...entry, evidence: { ...entry.evidence, mandates: {} } },
  ];
  for (const found of refused) assert.throws(() => signRecordedOpenMandates(signer, ledger(found), 'pw_1', terms, 10, 20), /not an active AP2 mandate request/, JSON.stringify(found));
});
