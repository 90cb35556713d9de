import { LatchError, invalidRequest } from '../../errors/latch-error.js';
import { fromBase64Url } from '../../crypto/base64url.js';
import { decodeJwsUnverified, verifyJwsCompact } from '../../verify/jws-verify.js';
import type { Device, SandboxState } from '../ledger/state.js';
import { JWS_TYP } from '../../crypto/signature-purposes.js';

/** The JWS purposes the cloud reads: a window where a window is registered, a revocation where one is revoked. */
export type AccountJwsPurpose = 'window' | 'revocation';

/** The JWS compact serialization is bounded by decodeJwsUnverified at 16 KiB. */
const JWS_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * verifyAccountJws verifies a compact JWS (EdDSA) with the public key of the device named by its
 * `kid`, which must be a device of accountId: the payload is bound to the account of the device
 * that sent the request. It returns the payload and the signing device. A JWS from an unknown
 * key or another account's key is `device_key_not_recognized`; a bad signature, or any
 * algorithm other than the key record's Ed25519, is `invalid_signature`. A JWS whose header `typ`
 * is not the purpose's (an evidence pack, a revocation offered as a window) is refused as
 * `invalid_request` on `jws`, whatever its payload looks like (docs/decisions.md §34.2).
 */
export function verifyAccountJws(state: SandboxState, jws: string, accountId: string, purpose: AccountJwsPurpose): { payload: Record<string, unknown>; device: Device } {
  if (!JWS_SHAPE.test(jws)) throw invalidRequest('jws', 'jws must be a compact JWS (three base64url parts).');
  const decoded = decodeJwsUnverified(jws);
  if (decoded === 'malformed') throw invalidRequest('jws', 'jws is not a well-formed compact JWS with a kid.');
  if (decoded === 'unsupported_algorithm' || decoded === 'bad_signature') throw new LatchError('invalid_signature', { param: 'jws' });
  if (decoded.header['typ'] !== JWS_TYP[purpose]) throw invalidRequest('jws', `jws is not a ${purpose}: its header typ must be "${JWS_TYP[purpose]}".`);
  const deviceId = state.device_by_key_id.get(decoded.kid);
  const device = deviceId === undefined ? undefined : state.devices.get(deviceId);
  if (device === undefined || device.account_id !== accountId) throw new LatchError('device_key_not_recognized', { param: 'jws' });
  const verified = verifyJwsCompact(jws, fromBase64Url(device.public_key_x) as Uint8Array);
  if (verified === 'malformed') throw invalidRequest('jws', 'jws is not a well-formed compact JWS.');
  if (typeof verified === 'string') throw new LatchError('invalid_signature', { param: 'jws' });
  if (verified.payload['device_id'] !== device.device_id) throw invalidRequest('device_id', 'device_id must be the device whose key signed the payload.');
  return { payload: verified.payload, device };
}
