/**
 * The signer as a monitor (docs/decisions.md §34.1): each purpose of signer.ts checks its own
 * precondition against the keys and the ledger it was built with, then signs. Internal to the
 * signer folder; index.ts's createSigner is the one way to build it outside tests.
 */
import { HTTP_SIGNATURE_TAG, WEB_SIGNATURE_TAGS } from '../crypto/signature-purposes.js';
import type { SigningKey, UpstreamRequestParts } from '../crypto/signing-key.js';
import { LatchError } from '../errors/latch-error.js';
import type { SignatureParameter } from '../identity/message-signature.js';
import { signRecordedOpenMandates } from './ap2-mandate.js';
import { callShape, isDeviceCall } from './cloud-calls.js';
import type { DeviceKey } from './device-key.js';
import { signEvidencePack } from './evidence-pack.js';
import { entered } from './entered.js';
import { kindOf } from './held-keys.js';
import type { SignerKeys } from './key-source.js';
import { signKeyProof } from './key-proof.js';
import { signDirectoryEntry, signRegistrationProof, signWebBotAuth } from './message-signatures.js';
import type { DeviceKeyRef, Signer } from './signer.js';
import { upstreamHeaders } from './upstream-request.js';
import { signRecordedWindow, signRevocation, type RecordedWindows } from './window.js';
import { signRecordedX402Receipt } from './x402-receipt.js';

/** The installed key and the one staged by a rollover: at most two device keys are in use at once. */
const ANSWERED_KEYS_MAX = 2;

/** monitor builds the signer of keys, bound to ledger. */
export function monitor(keys: SignerKeys, ledger: RecordedWindows): Signer {
  const refs = new WeakMap<DeviceKey, DeviceKeyRef>();
  const refOf = (key: DeviceKey): DeviceKeyRef => {
    let ref = refs.get(key);
    if (ref === undefined) {
      ref = Object.freeze({
        keyId: key.keyId,
        publicKey: key.publicKey,
        publicJwk: key.publicJwk,
        storage: key.storage,
        signsCall: (request: UpstreamRequestParts) => isDeviceCall(request.method, request.url.pathname),
        signUpstream: (request: UpstreamRequestParts, nowSeconds: number) => {
          entered(isDeviceCall(request.method, request.url.pathname), `upstream request by ${key.keyId}`, () => `${callShape(request.method, request.url.pathname)} is not a cloud call the device key signs`);
          return upstreamHeaders(key, request, nowSeconds);
        },
      });
      refs.set(key, ref);
    }
    return ref;
  };
  // The keys deviceKey() last answered: an operation resolves its key once and signs with that
  // one (its window and its request name the same key), without reading the files again.
  const answered: DeviceKey[] = [];
  const deviceKey = (keyId: string): DeviceKey => {
    const key = answered.find((held) => held.keyId === keyId) ?? keys.deviceById(keyId);
    // The data directory changed under the request (a setup or rollover replaced the key it resolved): outside state, a refusal.
    if (key === undefined) throw new LatchError('data_directory_unavailable', { message: 'The device key this request started with is no longer in the data directory (a setup replaced it); nothing was signed. Retry.' });
    return key;
  };
  return {
    deviceKey: () => {
      const key = keys.device();
      if (key === undefined) return undefined;
      if (answered[0] !== key) {
        answered.unshift(key);
        answered.length = Math.min(answered.length, ANSWERED_KEYS_MAX);
      }
      return refOf(key);
    },
    mandateKey: () => {
      const loaded = keys.mandate();
      return loaded === undefined ? undefined : { kid: loaded.key.kid, publicJwk: loaded.key.publicJwk, storage: loaded.storage };
    },
    window: (keyId, payload) => signRecordedWindow(deviceKey(keyId), ledger, payload),
    revocation: (keyId, payload) => signRevocation(deviceKey(keyId), payload),
    x402Receipt: (keyId, id) => signRecordedX402Receipt(deviceKey(keyId), ledger, id),
    evidencePack: (keyId, bodyText) => signEvidencePack(deviceKey(keyId), ledger, bodyText),
    openMandates: (policyId, cardLabel) => {
      const loaded = keys.mandate();
      if (loaded === undefined) throw new LatchError('data_directory_unavailable', { message: 'The AP2 mandate key is no longer in the data directory; nothing was signed. Restart the daemon to make mandate.key.' });
      return signRecordedOpenMandates(loaded.key, ledger, policyId, cardLabel);
    },
    keyProof: (keyId, challenge, address) => {
      entered(/^[A-Za-z0-9_-]{43}$/.test(challenge) && /^[^\s]{1,300}$/.test(address), `key proof by ${keyId}`, () => 'the challenge or the address is not well formed');
      return signKeyProof(deviceKey(keyId), challenge, address);
    },
    webBotAuth: (key, label, components, params) => {
      identityPurpose(key, params, WEB_SIGNATURE_TAGS);
      return signWebBotAuth(key, label, components, params);
    },
    directoryEntry: (key, label, components, params) => {
      identityPurpose(key, params, [HTTP_SIGNATURE_TAG.keyDirectory]);
      return signDirectoryEntry(key, label, components, params);
    },
    registrationProof: (key, label, components, params) => {
      identityPurpose(key, params, [HTTP_SIGNATURE_TAG.keyDirectory]);
      return signRegistrationProof(key, label, components, params);
    },
  };
}

/** identityPurpose is entered only with a handle the signer holds as an identity key, and the purpose's own tag. */
function identityPurpose(key: SigningKey, params: readonly SignatureParameter[], tags: readonly string[]): void {
  const tag = params.find(([name]) => name === 'tag')?.[1];
  entered(kindOf(key) === 'identity', `identity signature by ${key.keyId}`, () => 'the key is not an identity key the signer holds');
  entered(typeof tag === 'string' && tags.includes(tag), `identity signature by ${key.keyId}`, () => `its tag is not one of ${tags.join(', ')}`);
}
