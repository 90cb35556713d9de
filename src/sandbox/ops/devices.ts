import { LatchError, invalidRequest } from '../../errors/latch-error.js';
import { randomId } from '../../ids/random-id.js';
import type { Txn } from '../ledger/ledger.js';
import type { Device } from '../ledger/state.js';
import { hashSetupToken } from './accounts.js';

export interface Enrollment {
  setupToken: string;
  keyId: string;
  /** The JWK `x` of the new key; the request was verified with this key (proof of possession). */
  publicKeyX: string;
  name: string | null;
}

/**
 * enrollDevice registers a new device key on the setup token's account. A token works once:
 * unknown or used → `setup_token_invalid`, whose message says which; past its expiry on the ledger clock →
 * `setup_token_expired`. A key already registered to a device is refused.
 */
export function enrollDevice(txn: Txn, enrollment: Enrollment): Device {
  const tokenHash = hashSetupToken(enrollment.setupToken);
  const token = txn.state.setup_tokens.get(tokenHash);
  if (token === undefined) throw new LatchError('setup_token_invalid', { message: 'This setup token is unknown to the cloud.' });
  if (token.used) throw new LatchError('setup_token_invalid', { message: 'This setup token was already used to connect a device; a setup token works once.' });
  if (txn.now >= token.expires_at) throw new LatchError('setup_token_expired');
  if (txn.state.device_by_key_id.has(enrollment.keyId)) {
    throw invalidRequest('public_key', 'This key is already registered to a device; reconnect with fresh key material.');
  }
  const device: Device = {
    device_id: randomId('dev'),
    account_id: token.account_id,
    key_id: enrollment.keyId,
    public_key_x: enrollment.publicKeyX,
    name: enrollment.name,
    created_at: txn.now,
  };
  txn.emit({ type: 'setup_token_used', token_hash: tokenHash });
  txn.emit({ type: 'device_enrolled', device });
  return device;
}

/** removeDevice forgets a device and its key, as a cloud that lost the key would (sandbox admin only). */
export function removeDevice(txn: Txn, deviceId: string): Device {
  const device = txn.state.devices.get(deviceId);
  if (device === undefined) throw invalidRequest('device_id', 'No such device.');
  txn.emit({ type: 'device_removed', device_id: deviceId });
  return device;
}
