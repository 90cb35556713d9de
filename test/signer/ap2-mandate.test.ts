/**
 * The mandate key signs only through its purpose (docs/decisions.md §34.1): the open mandates of
 * the ledger's active `ap2_mandate` entry, with the terms the entry holds, once. Its handle shows
 * no private key and has no method that signs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { toBase64Url } from '../../src/crypto/base64url.js';
import { generateP256Scalar, p256PublicJwkOfScalar } from '../../src/signer/p256-scalar.js';
import { MandateKey, signRecordedOpenMandates } from '../../src/signer/ap2-mandate.js';
import { verifyRootSdJwt } from '../../src/ap2/verify-sd-jwt.js';
import { p256PublicKeyObject } from '../../src/ap2/p256.js';
import type { MandateTerms } from '../../src/ap2/open-mandates.js';
import { assertPurposeBroken } from '../support/test-signer.js';

const scalar = generateP256Scalar();
const key = MandateKey.fromScalar(scalar);
const terms: MandateTerms = {
  cardId: 'card_0123456789abcdef',
  merchant: { id: 'shop.example', name: 'Shop' },
  amountMaxMinor: 100,
  currency: 'USD',
  lines: [{ item: { id: 'a', title: 'A' }, alternatives: [], quantity: 1 }],
  agentKey: p256PublicJwkOfScalar(generateP256Scalar()),
};
const request = { kind: 'ap2_mandate', cardId: terms.cardId, amountMinor: 100, currency: 'USD', mandate: { merchant: terms.merchant, lines: terms.lines, agentKey: terms.agentKey } };
const entry = { policyId: 'pw_1', cardId: terms.cardId, amountMinor: 100, currency: 'USD', notAfterSeconds: 20, state: 'active', evidence: { request, window: { not_before: 10 } } };
const ledger = (found: object | undefined) => ({ get: (policyId: string) => (policyId === 'pw_1' ? (found as never) : undefined) });

test('the mandate key shows no private key in JSON, inspect or its own members, and has no method that signs', () => {
  const d = toBase64Url(scalar);
  for (const text of [JSON.stringify(key), inspect(key, { showHidden: true, depth: 5 }), JSON.stringify({ ...key }), Object.keys(key).join()]) {
    assert.ok(!text.includes(d), 'the scalar is not shown');
    assert.ok(!text.includes('"d"'), 'no d member');
  }
  assert.deepEqual(Object.keys(key).sort(), ['kid', 'publicJwk']);
  const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(key)).filter((name) => name !== 'constructor');
  assert.deepEqual(methods, ['toJSON'], 'no signing method on the handle');
});

test('the signer signs the entry\'s own terms: the mandates grant what the ledger recorded', () => {
  const signed = signRecordedOpenMandates(key, ledger(entry), 'pw_1', 'Groceries');
  assert.equal(signed.keyId, key.kid);
  const payment = verifyRootSdJwt(signed.openPaymentMandate, () => p256PublicKeyObject(key.publicJwk)).delegate as { constraints: Array<{ max?: number }>; iat: number; exp: number };
  assert.equal(payment.iat, 10);
  assert.equal(payment.exp, 20);
  assert.ok(payment.constraints.some((constraint) => constraint.max === 100), JSON.stringify(payment.constraints));
});

test('the signer stops (signing_purpose_entered) when the ledger lacks the entry, the entry is not an active ap2_mandate request, its terms differ, or its mandates are signed', () => {
  assertPurposeBroken(() => signRecordedOpenMandates(key, ledger(undefined), 'pw_1', undefined), /no entry/);
  assertPurposeBroken(() => signRecordedOpenMandates(key, ledger(entry), 'pw_other', undefined), /no entry/);
  const refused: Array<[object, RegExp]> = [
    ...['failed', 'unregistered', 'used', 'revoked', 'expired'].map((state): [object, RegExp] => [{ ...entry, state }, /not an active AP2 mandate request/]),
    [{ ...entry, evidence: { ...entry.evidence, request: { ...request, kind: 'one_time' } } }, /not an active AP2 mandate request/],
    [{ ...entry, evidence: undefined }, /not an active AP2 mandate request/],
    [{ ...entry, amountMinor: 1_000_000 }, /differ/],
    [{ ...entry, cardId: 'card_other' }, /differ/],
    [{ ...entry, currency: 'EUR' }, /differ/],
    [{ ...entry, evidence: { ...entry.evidence, mandates: {} } }, /signed already/],
  ];
  for (const [found, why] of refused) assertPurposeBroken(() => signRecordedOpenMandates(key, ledger(found), 'pw_1', undefined), why, JSON.stringify(found));
});
