import type { EnrollmentStore } from '../operations/enroll.js';
import { loadConfig, saveConfig, type LatchConfig } from './config.js';
import { generateDeviceKey, loadDeviceKey, type DeviceKey } from '../signer/device-key.js';
import { finishKeyRollover, stageDeviceKey } from './key-rollover.js';

/**
 * dataDirEnrollmentStore keeps the device key and the enrollment in the data directory. The new
 * key is staged beside the old one, and key and enrollment switch together at the rename of
 * config.json (see key-rollover.ts), so a stop at any point leaves one consistent pair.
 */
export function dataDirEnrollmentStore(home: string, passphrase: string | undefined): EnrollmentStore<DeviceKey> {
  let config: LatchConfig = {};
  return {
    enrolledKeyId() {
      config = loadConfig(home);
      // Finish (or discard) what a setup that was stopped half-way left behind.
      finishKeyRollover(home, passphrase, config.key_id, { discardUnnamed: true });
      return loadDeviceKey(home, passphrase)?.keyId;
    },
    newKey: () => generateDeviceKey(passphrase),
    install(key, enrollment, details) {
      stageDeviceKey(home, key, passphrase);
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
