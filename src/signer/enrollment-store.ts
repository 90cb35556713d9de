/**
 * The device key's enrollment in the data directory (docs/decisions.md §11, §34.1): a fresh key,
 * the one request it signs before it is stored (its own enrollment, POST /v1/devices naming its
 * own public key: the proof of possession), and the switch to it. The new key is staged beside the
 * old one, and key and enrollment switch together at the rename of config.json (key-rollover.ts),
 * so a stop at any point leaves one consistent pair. The key's handle never leaves this file.
 */
import type { EnrollmentStore } from '../operations/enroll.js';
import { loadConfig, saveConfig, type LatchConfig } from '../datadir/config.js';
import { toBase64Url } from '../crypto/base64url.js';
import type { UpstreamKey, UpstreamRequestParts } from '../crypto/signing-key.js';
import { generateDeviceKey, loadDeviceKey, type DeviceKey } from './device-key.js';
import { ENROLLMENT_CALL } from './cloud-calls.js';
import { entered } from './entered.js';
import { finishKeyRollover, stageDeviceKey } from './key-rollover.js';
import { upstreamHeaders } from './upstream-request.js';

/** dataDirEnrollmentStore keeps the device key and the enrollment in the data directory. */
export function dataDirEnrollmentStore(home: string, passphrase: string | undefined): EnrollmentStore {
  let config: LatchConfig = {};
  let made: DeviceKey | undefined;
  return {
    enrolledKeyId() {
      config = loadConfig(home);
      // Finish (or discard) what a setup that was stopped half-way left behind.
      finishKeyRollover(home, passphrase, config.key_id, { discardUnnamed: true });
      return loadDeviceKey(home, passphrase)?.keyId;
    },
    newKey: () => {
      made = generateDeviceKey(passphrase);
      return enrollmentKey(made);
    },
    install(key, enrollment, details) {
      if (made === undefined || made.keyId !== key.keyId) throw new Error('dataDirEnrollmentStore: install names a key this store did not make');
      stageDeviceKey(home, made, passphrase);
      saveConfig(home, {
        ...config,
        cloud_url: details.cloudUrl,
        device_id: enrollment.deviceId,
        key_id: enrollment.keyId,
        account_id: enrollment.accountId,
        device_name: details.deviceName,
      });
      finishKeyRollover(home, passphrase, enrollment.keyId, { discardUnnamed: false });
    },
  };
}

/** enrollmentKey is a new key's one purpose before it is enrolled: signing its own enrollment. */
function enrollmentKey(key: DeviceKey): UpstreamKey {
  const signsCall = (request: UpstreamRequestParts): boolean =>
    request.method === ENROLLMENT_CALL.method && ENROLLMENT_CALL.path.test(request.url.pathname) && namesPublicKey(request.body, key.publicKey);
  return Object.freeze({
    keyId: key.keyId,
    publicKey: key.publicKey,
    signsCall,
    signUpstream: (request: UpstreamRequestParts, nowSeconds: number) => {
      entered(signsCall(request), `enrollment by ${key.keyId}`, () => 'a key being enrolled signs only its own POST /v1/devices naming it');
      return upstreamHeaders(key, request, nowSeconds);
    },
  });
}

/** namesPublicKey reports whether an enrollment body's public_key is this key's. */
function namesPublicKey(body: Uint8Array | undefined, publicKey: Uint8Array): boolean {
  if (body === undefined) return false;
  try {
    const parsed = JSON.parse(new TextDecoder().decode(body)) as { public_key?: { x?: unknown } };
    return parsed.public_key?.x === toBase64Url(publicKey);
  } catch {
    return false;
  }
}
