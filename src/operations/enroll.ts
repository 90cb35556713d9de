/**
 * Enrollment, the one workflow behind `latch setup` and `latch start`: make a fresh device key,
 * register it with the cloud (the request signed by the new key itself: proof of possession),
 * and only then put key and enrollment in place together. If the cloud refuses, the old key and
 * config stay exactly as they were.
 */
import type { UpstreamKey } from '../crypto/signing-key.js';
import { publicJwk } from '../crypto/jwk.js';
import { LatchError } from '../errors/latch-error.js';
import type { CloudReads, Enrollment } from './cloud-reads.js';

export type { Enrollment } from './cloud-reads.js';

/** Where the device key and the enrollment live: the data directory, or a test's memory. */
export interface EnrollmentStore<K extends UpstreamKey = UpstreamKey> {
  /**
   * enrolledKeyId finishes (or discards) what a stopped enrollment left behind and returns the
   * key id of the device key in place, or undefined when there is none.
   */
  enrolledKeyId(): string | undefined;
  /** newKey makes a fresh key that signs its own enrollment only; nothing is in place until install. */
  newKey(): K;
  /** install puts the new key and its enrollment in place together, as one switch. */
  install(key: K, enrollment: Enrollment, details: { cloudUrl: string; deviceName: string }): void;
}

export interface EnrollmentRequest {
  setupToken: string;
  cloudUrl: string;
  deviceName: string;
  /** Replace the key of a device that is already enrolled (`--reconnect`). */
  reconnect: boolean;
}

/** What enrollDevice answers: enrolled, or refused because the device is enrolled already. */
export type EnrollmentResult =
  | { outcome: 'enrolled'; enrollment: Enrollment; cloudUrl: string; reconnected: boolean }
  | { outcome: 'already_enrolled'; keyId: string };

/**
 * enrollDevice runs the workflow: refuse to replace a key without `reconnect`, make the key,
 * POST /v1/devices with the setup token and the public JWK signed by the new key (an expired
 * setup token is setup_token_expired), check that the cloud names the same key id, install.
 */
export async function enrollDevice<K extends UpstreamKey>(store: EnrollmentStore<K>, cloud: Pick<CloudReads, 'enrollDevice'>, request: EnrollmentRequest): Promise<EnrollmentResult> {
  const existing = store.enrolledKeyId();
  if (existing !== undefined && !request.reconnect) return { outcome: 'already_enrolled', keyId: existing };
  const key = store.newKey();
  const enrollment = await cloud.enrollDevice({ setupToken: request.setupToken, publicJwk: publicJwk(key.publicKey), deviceName: request.deviceName }, { key });
  if (enrollment.keyId !== key.keyId) {
    throw new LatchError('upstream_unavailable', { status: 502, message: 'The cloud registered a different key id than the one sent.' });
  }
  store.install(key, enrollment, { cloudUrl: request.cloudUrl, deviceName: request.deviceName });
  return { outcome: 'enrolled', enrollment, cloudUrl: request.cloudUrl, reconnected: existing !== undefined };
}
