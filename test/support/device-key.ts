import { generateDeviceKey, storeDeviceKey, type DeviceKey } from '../../src/signer/device-key.js';

/*
 * Tests need a key on disk in one call. The daemon never makes one that way: setup generates a key,
 * has the cloud accept it, and only then stores it (generateDeviceKey + storeDeviceKey), so these
 * two live here rather than in the signer.
 */

/** createDeviceKey generates a key and stores it in device.key, refusing to overwrite one (`exists`). */
export function createDeviceKey(home: string, passphrase?: string): DeviceKey {
  const key = generateDeviceKey(passphrase);
  storeDeviceKey(home, key, passphrase, 'create');
  return key;
}

/** replaceDeviceKey generates a key and atomically replaces device.key with it. */
export function replaceDeviceKey(home: string, passphrase?: string): DeviceKey {
  const key = generateDeviceKey(passphrase);
  storeDeviceKey(home, key, passphrase, 'replace');
  return key;
}
