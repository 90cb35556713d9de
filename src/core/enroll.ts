import { CloudClient, type RequestSignatureRecord } from '../cloud/cloud-client.js';
import { cloudJson, errorFromCloud } from '../cloud/cloud-errors.js';
import { readEnrollment } from '../cloud/cloud-shapes.js';
import type { SigningKey } from '../cloud/signing-key.js';
import { utf8 } from '../crypto/base64url.js';
import { publicJwk } from '../crypto/jwk.js';
import { LatchError } from '../errors/latch-error.js';

export interface EnrollInput {
  cloudUrl: string;
  setupToken: string;
  /** The new device key; the request is signed with it (proof of possession). */
  key: SigningKey;
  deviceName: string;
  userAgent: string;
  fetch?: typeof fetch;
  /** Called once the enrollment request is signed and before it is sent (the audit log). */
  onRequestSigned?: (record: RequestSignatureRecord) => void | Promise<void>;
}

export interface Enrollment {
  deviceId: string;
  keyId: string;
  accountId: string;
}

/**
 * enrollDevice registers a new device key with the cloud: POST /v1/devices with the setup token
 * and the public JWK, signed by the new key itself. An expired setup token is
 * setup_token_expired; the cloud's answer must name the same key id.
 */
export async function enrollDevice(input: EnrollInput): Promise<Enrollment> {
  const client = new CloudClient({
    cloudUrl: input.cloudUrl,
    signingKey: () => input.key,
    userAgent: input.userAgent,
    ...(input.fetch !== undefined && { fetch: input.fetch }),
    ...(input.onRequestSigned !== undefined && { onRequestSigned: input.onRequestSigned }),
  });
  const body = { setup_token: input.setupToken, public_key: publicJwk(input.key.publicKey), name: input.deviceName };
  const response = await client.send({ method: 'POST', pathAndQuery: '/v1/devices', body: utf8(JSON.stringify(body)), contentType: 'application/json', key: input.key });
  if (response.status !== 200 && response.status !== 201) throw errorFromCloud(response);
  const enrollment = readEnrollment(cloudJson(response));
  if (enrollment.keyId !== input.key.keyId) {
    throw new LatchError('upstream_unavailable', { status: 502, message: 'The cloud registered a different key id than the one sent.' });
  }
  return enrollment;
}
