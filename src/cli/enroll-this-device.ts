import { hostname } from 'node:os';
import { CloudClient } from '../cloud/cloud-client.js';
import { httpCloudGateway } from '../cloud/http-cloud-gateway.js';
import { enrollDevice } from '../operations/enroll.js';
import { requestSignatureEntry } from '../daemon/audit-records.js';
import { sharedAuditWriter } from '../datadir/audit-writer.js';
import { keyPassphrase } from '../datadir/key-passphrase.js';
import { dataDirEnrollmentStore } from '../signer/key-admin.js';
import { ensureHome } from '../datadir/home.js';
import { assertFetchCanRun } from '../runtime/wasm-memory.js';
import { assertDataDirSecure } from '../datadir/permissions.js';
import { ensureToken } from '../datadir/token.js';
import { latchVersion } from '../version.js';
import { UsageError } from './command.js';

export interface EnrollThisDevice {
  home: string;
  env: NodeJS.ProcessEnv;
  setupToken: string;
  cloudUrl: string;
  /** Default: the host name. */
  deviceName?: string;
  reconnect: boolean;
}

/** What `latch setup --json` prints. */
export interface EnrolledDevice {
  device_id: string;
  key_id: string;
  account_id: string;
  cloud_url: string;
  reconnected: boolean;
}

/**
 * enrollThisDevice runs the core enrollment workflow on the data directory, for `latch setup`
 * and `latch start` alike. An enrolled device without `reconnect` is a usage error.
 */
export async function enrollThisDevice(options: EnrollThisDevice): Promise<EnrolledDevice> {
  const { home } = options;
  ensureHome(home);
  assertDataDirSecure(home);
  ensureToken(home);
  const client = new CloudClient({
    cloudUrl: options.cloudUrl,
    userAgent: `latch/${latchVersion()}`,
    assertFetchCanRun,
    // The proof of possession is a signature by the device key like any other (docs/decisions.md §11).
    // The shared writer: a daemon running in this same process (npm start, embedders) appends
    // to the same chain without racing it.
    onRequestSigned: async (record) => {
      await sharedAuditWriter(home).append(requestSignatureEntry(record));
    },
  });
  const store = dataDirEnrollmentStore(home, keyPassphrase(options.env));
  const deviceName = options.deviceName ?? hostname().slice(0, 64);
  const result = await enrollDevice(store, httpCloudGateway(client), { ...options, deviceName });
  if (result.outcome === 'already_enrolled') {
    throw new UsageError(`this device is already enrolled (key_id ${result.keyId}); use --reconnect to replace its key`);
  }
  const { enrollment } = result;
  return { device_id: enrollment.deviceId, key_id: enrollment.keyId, account_id: enrollment.accountId, cloud_url: result.cloudUrl, reconnected: result.reconnected };
}

/** enrolledLine is what `latch setup` (and so `latch start` on its first run) prints. */
export function enrolledLine(device: EnrolledDevice): string {
  return `Enrolled device ${device.device_id} (key_id ${device.key_id}) with account ${device.account_id} at ${device.cloud_url}.`;
}
