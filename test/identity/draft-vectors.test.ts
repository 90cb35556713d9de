/**
 * The Ed25519 test vectors of draft-ietf-webbotauth-httpsig-protocol ("Test Vectors", "EdDSA Using
 * Curve edwards25519"), reproduced byte for byte by Latch's own signing code: the signature base,
 * the Signature-Input member and the Signature, for the dictionary Signature-Agent, the legacy
 * sf-string one, and the signed directory response (its body, Content-Digest and signature).
 * The key is RFC 9421's test-key-ed25519 (Appendix B.1.4). The vectors' RFC 8792 line wrapping is
 * undone here; nothing else is changed.
 *
 * The directory draft's (draft-meunier-http-message-signatures-directory) example directory
 * gives the same key the kid "NFcWBst6DXG-N35nHdzMrioWntdzNZghQSkjHNMMSjw", which is NOT the key's
 * RFC 7638 thumbprint: that is "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U", as the protocol
 * draft's vectors use. Latch's kids are always the thumbprint; the example's kid is kept here only
 * to show that it differs, never as an expected value.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { contentDigest } from '../../src/crypto/content-digest.js';
import { keyIdOf, publicJwk } from '../../src/crypto/jwk.js';
import { signingKeyOf } from '../../src/signer/identity-key-file.js';
import { testSigner } from '../support/test-signer.js';
import { directoryBody, directoryComponents, signDirectory, DIRECTORY_TAG } from '../../src/identity/key-directory.js';
import { component, serializeSignatureParams, signatureBase, type SignatureParameter } from '../../src/identity/message-signature.js';
import { secretOf, signMessage } from '../support/raw-signing.js';

/** RFC 9421 Appendix B.1.4, test-key-ed25519: the PKCS#8 private key, whose last 32 bytes are the seed. */
const TEST_KEY_PKCS8 = 'MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF';
const pkcs8 = Buffer.from(TEST_KEY_PKCS8, 'base64');
const key = signingKeyOf(new Uint8Array(pkcs8.subarray(pkcs8.length - 32)));

const THUMBPRINT = 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U';
const DIRECTORY_DRAFT_EXAMPLE_KID = 'NFcWBst6DXG-N35nHdzMrioWntdzNZghQSkjHNMMSjw';

describe('draft-ietf-webbotauth-httpsig-protocol: Ed25519 test vectors', () => {
  test('the test key is RFC 9421 test-key-ed25519, and its thumbprint is the vectors\' keyid', () => {
    assert.equal(publicJwk(key.publicKey).x, 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs');
    assert.equal(key.keyId, THUMBPRINT);
  });

  test("the directory draft's example kid is not the thumbprint of its own key", () => {
    assert.notEqual(keyIdOf(key.publicKey), DIRECTORY_DRAFT_EXAMPLE_KID);
  });

  test('Signature-Agent Included Present on the Request (dictionary member)', () => {
    const covered = [component('@authority', 'example.com'), { id: '"signature-agent";key="agent2"', value: '"https://signature-agent.test"' }];
    const params: SignatureParameter[] = [
      ['created', 1735689600],
      ['keyid', THUMBPRINT],
      ['alg', 'ed25519'],
      ['expires', 4889289600],
      ['nonce', 'n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA=='],
      ['tag', 'web-bot-auth'],
    ];
    const serialized = serializeSignatureParams(covered, params);
    assert.equal(
      signatureBase(covered, serialized),
      '"@authority": example.com\n"signature-agent";key="agent2": "https://signature-agent.test"\n"@signature-params": ("@authority" "signature-agent";key="agent2");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=4889289600;nonce="n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA==";tag="web-bot-auth"',
    );
    const signed = signMessage('sig2', covered, params, secretOf(key));
    assert.equal(signed.signatureInput, 'sig2=("@authority" "signature-agent";key="agent2");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=4889289600;nonce="n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA==";tag="web-bot-auth"');
    assert.equal(signed.signature, 'sig2=:RdNFx5Bj6au3YgAMQL/RzmUlZE8QZLIaXGRpw985hWnwPfMxT228NMk6ehRS1PSl4e8PhbNZACSanGdhEwYCCg==:');
  });

  test('Legacy Signature-Agent, sf-string', () => {
    const covered = [component('@authority', 'example.com'), component('signature-agent', '"https://signature-agent.test"')];
    const params: SignatureParameter[] = [
      ['created', 1735689600],
      ['keyid', THUMBPRINT],
      ['alg', 'ed25519'],
      ['expires', 1735693200],
      ['nonce', 'e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg=='],
      ['tag', 'web-bot-auth'],
    ];
    assert.equal(
      signatureBase(covered, serializeSignatureParams(covered, params)),
      '"@authority": example.com\n"signature-agent": "https://signature-agent.test"\n"@signature-params": ("@authority" "signature-agent");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=1735693200;nonce="e8N7S2MFd/qrd6T2R3tdfAuuANngKI7LFtKYI/vowzk4lAZYadIX6wW25MwG7DCT9RUKAJ0qVkU0mEeLElW1qg==";tag="web-bot-auth"',
    );
    const signed = signMessage('sig2', covered, params, secretOf(key));
    assert.equal(signed.signature, 'sig2=:jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==:');
  });

  test('Signed Directory Response: the body, its Content-Digest and the binding signature', () => {
    const body = directoryBody([key]);
    assert.equal(Buffer.from(body).toString('utf8'), '{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","use":"sig"}]}');
    const digest = contentDigest(body);
    assert.equal(digest, 'sha-256=:CADMT2aBdV/rqQr/NIru64ERQkCobVvllA4V0fLFDu0=:');
    const params: SignatureParameter[] = [['created', 1735689600], ['expires', 4889289600], ['keyid', THUMBPRINT], ['tag', DIRECTORY_TAG]];
    const covered = directoryComponents('signature-agent.test', digest);
    assert.equal(
      signatureBase(covered, serializeSignatureParams(covered, params)),
      '"@authority";req: signature-agent.test\n"content-digest": sha-256=:CADMT2aBdV/rqQr/NIru64ERQkCobVvllA4V0fLFDu0=:\n"@signature-params": ("@authority";req "content-digest");created=1735689600;expires=4889289600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";tag="http-message-signatures-directory"',
    );
    const expected = 'l6P8R67tm3kujAxbHWio7ll01qrEZ0dKD/WWlGhNYEmTnFZM8Wt0VQ9zqGfvo7T/UMkBxsigzChM1Gpz7gOVBg==';
    assert.equal(signMessage('binding', covered, params, secretOf(key)).signature, `binding=:${expected}:`);
    // The daemon's own directory signer makes the same bytes, under its label binding0.
    const headers = signDirectory(testSigner(new Uint8Array(32)).signer, body, [key], 'signature-agent.test', 1735689600, 4889289600);
    assert.equal(headers['content-digest'], digest);
    assert.equal(headers.signature, `binding0=:${expected}:`);
    assert.equal(headers['signature-input'], 'binding0=("@authority";req "content-digest");created=1735689600;expires=4889289600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";tag="http-message-signatures-directory"');
  });
});
