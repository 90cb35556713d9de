/**
 * The enrolled device as the core and the signing proxy see it: the device key, the device id and
 * the cloud config.json names, read as one consistent pair of files at each use.
 */
import type { CloudClient } from '../cloud/cloud-client.js';
import type { ReadingDevice } from '../operations/cloud-reads.js';
import { effectiveCloudUrl } from '../datadir/config.js';
import { LatchError } from '../errors/latch-error.js';
import type { CloudConnection } from './cloud-connection.js';
import type { DaemonServices } from './services.js';
import type { Signer } from '../signer/index.js';

/** The enrolled device with the signed client the proxy forwards through. */
export type EnrolledWithClient = ReadingDevice & { client: CloudClient };

/**
 * enrolledDevice resolves the device key, device id and cloud once; it throws device_not_enrolled
 * before `latch setup`. A concurrent `latch setup` may rename config.json between the two reads;
 * read the pair again until it holds still (deviceKey resolves the key config.json names).
 */
export function enrolledDevice(services: DaemonServices, signer: Pick<Signer, 'deviceKey'>, cloud: CloudConnection): EnrolledWithClient {
  let key = signer.deviceKey();
  let config = services.config();
  for (let attempt = 1; attempt < 3 && key !== undefined && config.key_id !== undefined && config.key_id !== key.keyId; attempt++) {
    key = signer.deviceKey();
    config = services.config();
  }
  const url = effectiveCloudUrl(config, services.env);
  if (key === undefined || config.device_id === undefined || url === undefined) throw new LatchError('device_not_enrolled');
  // Never sign with one device's key under another device's id.
  if (config.key_id !== undefined && config.key_id !== key.keyId) {
    throw new LatchError('device_not_enrolled', { message: 'device.key is not the key config.json enrolled; run latch setup --reconnect.' });
  }
  const { client, gateway } = cloud.cloudFor(url);
  return { key, deviceId: config.device_id, cloud: gateway, client };
}
