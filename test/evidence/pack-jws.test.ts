/**
 * The pack's signature and its strict reader: the card-data guard runs on every pack (a card
 * number anywhere in it, an audit line included, refuses the pack), while SHA-256 values that
 * happen to hold a Luhn-valid run of digits do not; the reader refuses non-canonical base64url.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateSecretKey, publicKeyOf } from '../support/raw-signing.js';
import { testSigner } from '../support/test-signer.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { verifyCompact } from '../../src/evidence/pack-jws.js';

const secretKey = generateSecretKey();
const publicKey = publicKeyOf(secretKey);
// The signer signs a pack only when its window is the JWS the ledger kept (docs/decisions.md §34.1).
const KEPT = 'kept.window.jws';
const { signer, key } = testSigner(secretKey, { get: (policyId) => (policyId === 'pw_1' ? ({ jws: KEPT } as never) : undefined) });
const signEvidencePack = (signingKey: { keyId: string }, text: string): string => signer.evidencePack(signingKey.keyId, text);
// A SHA-256 in hex whose digits hold 4111111111111111, a test card number that passes Luhn.
const HASH_WITH_DIGITS = `a4111111111111111b${'c'.repeat(46)}`;

function body(extra: Record<string, unknown>): string {
  return JSON.stringify({ v: 1, type: 'latch_evidence', policy_id: 'pw_1', window: { jws: KEPT }, request: { sha256: HASH_WITH_DIGITS }, audit: { lines: [JSON.stringify({ seq: 1, prev: HASH_WITH_DIGITS, operation: 'authorize' })], line_sha256: [HASH_WITH_DIGITS] }, ...extra });
}

test('hashes are not card numbers: a pack of them is signed, and verifies', () => {
  const text = body({});
  const jws = signEvidencePack(key, text);
  const verified = verifyCompact(jws, publicKey);
  assert.notEqual(typeof verified, 'string');
  assert.equal((verified as { payloadText: string }).payloadText, text);
  assert.deepEqual((verified as { header: unknown }).header, { alg: 'EdDSA', kid: key.keyId, typ: 'latch-evidence+jwt' });
});

test('a card number anywhere in a pack refuses it: a member, a reference, an audit line, a field name', () => {
  const cases = [
    body({ note: '4111 1111 1111 1111' }),
    body({ request: { reference: 'card 4111-1111-1111-1111' } }),
    body({ audit: { lines: [JSON.stringify({ seq: 1, operation: 'authorize', user_agent: '4111111111111111' })] } }),
    body({ cloud: { transactions: [{ pan: 'x' }] } }),
    body({ amount: 4111111111111111 }),
  ];
  for (const text of cases) {
    assert.throws(() => signEvidencePack(key, text), (error: unknown) => error instanceof LatchError && error.code === 'card_data_not_accepted', text.slice(0, 80));
  }
});

test('the reader refuses what is not exactly one signature', () => {
  const jws = signEvidencePack(key, body({}));
  const [header, payload, signature] = jws.split('.') as [string, string, string];
  // The last base64url character of a 64-byte signature carries 2 unused bits: another letter
  // decodes to the same bytes, and must still be refused.
  const last = signature.slice(-1);
  const sibling = String.fromCharCode(last.charCodeAt(0) ^ 1);
  assert.match(verifyCompact(`${header}.${payload}.${signature.slice(0, -1)}${sibling}`, publicKey) as string, /canonical base64url|does not verify/);
  assert.match(verifyCompact(`${header}.${payload}`, publicKey) as string, /three segments/);
  assert.match(verifyCompact(`${header}.${payload}.${signature}=`, publicKey) as string, /canonical/);
  const other = signature.at(-2) === 'A' ? 'B' : 'A';
  assert.match(verifyCompact(`${header}.${payload}.${signature.slice(0, -2)}${other}${signature.at(-1)}`, publicKey) as string, /does not verify/);
  assert.match(verifyCompact(jws, publicKeyOf(generateSecretKey())) as string, /does not verify/);
  assert.match(verifyCompact(42, publicKey) as string, /not a compact JWS/);
});
