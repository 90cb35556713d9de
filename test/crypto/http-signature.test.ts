import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createPublicKey, createPrivateKey } from 'node:crypto';
import { signatureBase, type SignableRequest } from '../../src/crypto/http-signature.js';
import { parseSignature, verifyRequestSignature } from '../../src/verify/http-signature-verify.js';
import { signRequest } from '../support/raw-signing.js';
import { contentDigest } from '../../src/crypto/content-digest.js';
import { contentDigestMatches } from '../../src/verify/http-signature-verify.js';
import { utf8 } from '../../src/crypto/base64url.js';

interface Vector {
  key: { keyid: string; public_key_pem: string; private_key_pem: string };
  request: { method: string; target: string; headers: Record<string, string>; body: string };
  covered_components: string[];
  params: { created: number; keyid: string };
  signature_base: string;
  signature_input_header: string;
  signature_header: string;
  content_digest_sha256: string;
}

// RFC 9421 §B.2.6 (a public test vector), kept beside this test so that `npm test` needs nothing
// outside the repository (test/support/self-contained.test.ts).
const vector = JSON.parse(readFileSync(new URL('./vectors/rfc9421-ed25519.json', import.meta.url), 'utf8')) as Vector;

function rawKeys(): { secretKey: Uint8Array; publicKey: Uint8Array } {
  // PKCS#8 and SPKI encodings of Ed25519 end with the raw 32-byte key.
  const pkcs8 = createPrivateKey(vector.key.private_key_pem).export({ format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(vector.key.public_key_pem).export({ format: 'der', type: 'spki' });
  return { secretKey: new Uint8Array(pkcs8.subarray(-32)), publicKey: new Uint8Array(spki.subarray(-32)) };
}

function vectorRequest(): SignableRequest {
  const [pathPart, query = ''] = vector.request.target.split('?');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(vector.request.headers)) headers[name.toLowerCase()] = value;
  return { method: vector.request.method, authority: headers['host'] as string, path: pathPart as string, query, headers };
}

test('RFC 9421 B.2.6: signature base and Ed25519 signature match byte for byte', () => {
  const { secretKey } = rawKeys();
  const label = 'sig-b26';
  const signed = signRequest(vectorRequest(), label, vector.covered_components, { created: vector.params.created, keyid: vector.params.keyid }, secretKey);
  assert.equal(signed['signature-input'], vector.signature_input_header);
  assert.equal(signed.signature, vector.signature_header);
  const parsed = parseSignature(signed['signature-input'], signed.signature, label);
  assert.ok(parsed);
  assert.equal(signatureBase(vectorRequest(), parsed.components, parsed.serializedParams), vector.signature_base);
});

test('RFC 9421 B.2.6: the published signature verifies, and any change to the request does not', () => {
  const { publicKey } = rawKeys();
  const parsed = parseSignature(vector.signature_input_header, vector.signature_header, 'sig-b26');
  assert.ok(parsed);
  assert.equal(verifyRequestSignature(vectorRequest(), parsed, publicKey), true);
  const tampered = { ...vectorRequest(), path: '/bar' };
  assert.equal(verifyRequestSignature(tampered, parsed, publicKey), false);
  const otherType = { ...vectorRequest(), headers: { ...vectorRequest().headers, 'content-type': 'text/plain' } };
  assert.equal(verifyRequestSignature(otherType, parsed, publicKey), false);
});

test('RFC 9530: Content-Digest of the vector body', () => {
  assert.equal(contentDigest(utf8(vector.request.body)), vector.content_digest_sha256);
  assert.equal(contentDigestMatches(vector.content_digest_sha256, utf8(vector.request.body)), true);
  assert.equal(contentDigestMatches(vector.content_digest_sha256, utf8(vector.request.body + ' ')), false);
  assert.equal(contentDigestMatches(undefined, utf8('')), false);
  assert.equal(contentDigestMatches('sha-512=:AAAA:', utf8('')), false);
});

test('parseSignature refuses malformed members', () => {
  const cases: Array<[string, string]> = [
    ['latch=("@method";created=1', 'latch=:AAAA:'],
    ['latch=("@method" "@method");created=1', 'latch=:AAAA:'],
    ['latch=("@method");created=1;created=2', 'latch=:AAAA:'],
    ['latch=("@method");created=1', 'latch=AAAA'],
    ['other=("@method");created=1', 'latch=:AAAA:'],
    ['latch=("@method");created=1, latch=("@path");created=1', 'latch=:AAAA:'],
  ];
  for (const [input, signature] of cases) {
    assert.equal(parseSignature(input, signature, 'latch'), undefined, input);
  }
});
