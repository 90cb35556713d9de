/**
 * The signer as a monitor (docs/decisions.md §34.1): each purpose of signer.ts checks its own
 * precondition against the keys and the ledger it was built with, then signs. Internal to the
 * signer folder; index.ts's createSigner is the one way to build it outside tests.
 */
import { HTTP_SIGNATURE_TAG, WEB_SIGNATURE_TAGS } from '../crypto/signature-purposes.js';
import type { SigningKey, UpstreamRequestParts } from '../crypto/signing-key.js';
import type { SignatureParameter } from '../identity/message-signature.js';
import { signRecordedOpenMandates } from './ap2-mandate.js';
import { assertDeviceCall, SignerRefusal } from './cloud-calls.js';
import type { DeviceKey } from './device-key.js';
import { signEvidencePack } from './evidence-pack.js';
import { assertKind } from './held-keys.js';
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
        signUpstream: (request: UpstreamRequestParts, nowSeconds: number) => {
          assertDeviceCall(request.method, request.url.pathname);
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
    if (key === undefined) throw new SignerRefusal(`a signature by ${keyId}`, 'the signer holds no device key of that id');
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
      if (loaded === undefined) throw new SignerRefusal(`the mandates of ${policyId}`, 'there is no mandate key');
      return signRecordedOpenMandates(loaded.key, ledger, policyId, cardLabel);
    },
    keyProof: (keyId, challenge, address) => signKeyProof(deviceKey(keyId), challenge, address),
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

/** identityPurpose refuses a key that is not an identity key, or a signature whose tag is not the purpose's. */
function identityPurpose(key: SigningKey, params: readonly SignatureParameter[], tags: readonly string[]): void {
  assertKind(key, 'identity');
  const tag = params.find(([name]) => name === 'tag')?.[1];
  if (typeof tag !== 'string' || !tags.includes(tag)) throw new SignerRefusal('an identity signature', `its tag is not one of ${tags.join(', ')}`);
}
