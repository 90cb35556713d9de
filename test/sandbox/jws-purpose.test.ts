/**
 * Domain separation at the cloud (docs/decisions.md §34.2): a JWS is read as a window only when
 * its header says it is one. The red team's reproduction: a JWS by the device key over a
 * window-shaped payload, made for another purpose (an evidence pack's typ), was registered as a
 * window because nothing read the header's `typ`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JWS_TYP } from '../../src/crypto/signature-purposes.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { createWindow } from '../../src/sandbox/ops/authorize.js';
import { DEFAULT_LIMITS } from '../../src/sandbox/ops/limits.js';
import { revokeWindow } from '../../src/sandbox/ops/revoke.js';
import { toBase64Url, utf8 } from '../../src/crypto/base64url.js';
import { signEd25519, signJwsCompact } from '../support/raw-signing.js';
import { LedgerHarness } from './harness.js';

const otherPurposes = Object.entries(JWS_TYP).filter(([purpose]) => purpose !== 'window');

for (const [purpose, typ] of [...otherPurposes, ['bare JWT', 'JWT'], ['no typ', undefined]] as Array<[string, string | undefined]>) {
  test(`a window-shaped payload signed as ${purpose} (${String(typ)}) is not a window`, async () => {
    const h = await LedgerHarness.create();
    try {
      const device = await h.device();
      const card = await h.card(device.accountId, 100_00);
      const payload = h.payload(device, { card_id: card });
      const jws = typ === undefined ? withoutTyp(payload, device.key.keyId, device.key.secretKey) : signJwsCompact(payload, device.key.keyId, device.key.secretKey, typ);
      const answer = await h.run((txn) => createWindow(txn, device.accountId, jws, 'card_policy_window', DEFAULT_LIMITS)).catch((error: unknown) => error);
      assert.ok(answer instanceof LatchError, 'refused');
      assert.equal(answer.code, 'invalid_request');
      assert.equal(answer.param, 'jws');
      // The same payload under the window's typ is a window: the refusal is the typ's alone.
      const window = await h.run((txn) => createWindow(txn, device.accountId, signJwsCompact(payload, device.key.keyId, device.key.secretKey, JWS_TYP.window), 'card_policy_window', DEFAULT_LIMITS));
      assert.equal(window.status, 'active');
    } finally {
      await h.dispose();
    }
  });
}

test('a revocation signed under the window typ is not a revocation', async () => {
  const h = await LedgerHarness.create();
  try {
    const device = await h.device();
    const card = await h.card(device.accountId, 100_00);
    const window = await h.window(device, { card_id: card });
    assert.ok(!(window instanceof LatchError));
    const revocation = { v: 1, typ: 'revocation', policy_id: window.policy_id, device_id: device.deviceId, nonce: 'n'.repeat(16), iat: Math.floor(Date.now() / 1000) };
    const jws = signJwsCompact(revocation, device.key.keyId, device.key.secretKey, JWS_TYP.window);
    const answer = await h.run((txn) => revokeWindow(txn, device.accountId, window.policy_id, jws)).catch((error: unknown) => error);
    assert.ok(answer instanceof LatchError, 'refused');
    assert.equal(answer.param, 'jws');
  } finally {
    await h.dispose();
  }
});

/** withoutTyp signs payload under a header that names no typ at all. */
function withoutTyp(payload: object, keyId: string, secret: Uint8Array): string {
  const input = `${toBase64Url(utf8(JSON.stringify({ alg: 'EdDSA', kid: keyId })))}.${toBase64Url(utf8(JSON.stringify(payload)))}`;
  return `${input}.${toBase64Url(signEd25519(utf8(input), secret))}`;
}
