import { LatchError, invalidRequest } from '../../errors/latch-error.js';
import { keyIdOf } from '../../crypto/jwk.js';
import { publicKeyFromJwk } from '../../verify/public-jwk.js';
import { toBase64Url } from '../../crypto/base64url.js';
import type { RouteHandler } from '../../http/route.js';
import { isJsonObject, type JsonValue } from '../../json/parse-json.js';
import type { FieldRule } from '../../validate/schema.js';
import { str, validateBody } from '../../validate/schema.js';
import { enrollDevice } from '../ops/devices.js';
import { verifyDeviceSignature } from './device-signature.js';
import { signatureChecks } from './guards.js';
import { runOperation } from './run-operation.js';
import type { SandboxContext } from './sandbox-context.js';

/** A public JWK in a request body: `{kty: "OKP", crv: "Ed25519", x}`, never with `d`. */
const publicKeyRule: FieldRule<Uint8Array, 'required'> = {
  presence: 'required',
  defaultValue: undefined,
  fromJson(value: JsonValue, param: string): Uint8Array {
    const key = isJsonObject(value) ? publicKeyFromJwk(value) : undefined;
    if (key === undefined) throw invalidRequest(param, `${param} must be a public Ed25519 JWK {kty: "OKP", crv: "Ed25519", x} without a private part.`);
    return key;
  },
  fromQuery(_text: string, param: string): Uint8Array {
    throw invalidRequest(param, `${param} cannot be sent in a query.`);
  },
};

/**
 * enrollmentRoute is `POST /v1/devices {setup_token, public_key, name?}`. The request must be
 * signed (RFC 9421) by the key it enrolls, keyid = that key's JWK thumbprint: proof that the
 * caller holds the private key. The setup token is checked in the ledger queue, once.
 */
export function enrollmentRoute(sandbox: SandboxContext): RouteHandler {
  return (context) => {
    const input = validateBody(context.body, {
      setup_token: str({ required: true, maxLength: 128 }),
      public_key: publicKeyRule,
      name: str({ maxLength: 64 }),
    });
    const keyId = keyIdOf(input.public_key);
    const checks = signatureChecks(sandbox, sandbox.ledger.state);
    let signature;
    try {
      signature = verifyDeviceSignature(context, { ...checks, publicKeyOf: (id) => (id === keyId ? input.public_key : undefined) });
    } catch (error) {
      if (error instanceof LatchError && error.code === 'device_key_not_recognized') {
        throw new LatchError('invalid_signature', { message: 'An enrollment must be signed by the key it enrolls (keyid = its JWK thumbprint).' });
      }
      throw error;
    }
    return runOperation(sandbox, context, { idempotencyScope: keyId, signature }, (txn) => {
      const device = enrollDevice(txn, { setupToken: input.setup_token, keyId, publicKeyX: toBase64Url(input.public_key), name: input.name ?? null });
      return { status: 201, body: { device_id: device.device_id, key_id: device.key_id, account_id: device.account_id } };
    });
  };
}
