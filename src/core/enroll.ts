import type { SigningKey } from '../cloud/signing-key.js';
import { publicJwk } from '../crypto/jwk.js';
import { LatchError } from '../errors/latch-error.js';
import type { CloudGateway, Enrollment } from './cloud-gateway.js';

export type { Enrollment } from './cloud-gateway.js';

export interface EnrollInput {
  setupToken: string;
  /** The new device key; the request is signed with it (proof of possession). */
  key: SigningKey;
  deviceName: string;
}

/**
 * enrollDevice registers a new device key with the cloud: POST /v1/devices with the setup token
 * and the public JWK, signed by the new key itself. An expired setup token is
 * setup_token_expired; the cloud's answer must name the same key id.
 */
export async function enrollDevice(cloud: CloudGateway, input: EnrollInput): Promise<Enrollment> {
  const enrollment = await cloud.enrollDevice(
    { setupToken: input.setupToken, publicJwk: publicJwk(input.key.publicKey), deviceName: input.deviceName },
    { key: input.key },
  );
  if (enrollment.keyId !== input.key.keyId) {
    throw new LatchError('upstream_unavailable', { status: 502, message: 'The cloud registered a different key id than the one sent.' });
  }
  return enrollment;
}
