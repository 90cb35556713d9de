/**
 * A software authenticator for tests: makes ES256 or EdDSA credentials and answers registration
 * and assertion ceremonies exactly as WebAuthn lays the bytes out, so the daemon's checks are
 * tested against real signatures, and every field can be bent to test a refusal.
 */
import { generateKeyPairSync, sign as signWithNode, type KeyObject } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { toBase64Url, utf8 } from '../../src/crypto/base64url.js';
import { generateSecretKey, publicKeyOf, signEd25519 } from '../support/raw-signing.js';
import { encodeCbor, type CborInput } from './cbor-encode.js';

export type Algorithm = 'ES256' | 'EdDSA';

export interface Ceremony {
  readonly challenge: Uint8Array;
  readonly origin?: string;
  readonly rpId?: string;
  readonly type?: string;
  readonly flags?: number;
  readonly signCount?: number;
  readonly crossOrigin?: boolean;
}

export const RP_ID = 'localhost';
export const ORIGIN = 'http://localhost:7724';
const UP_UV = 0x01 | 0x04;

export class FakeAuthenticator {
  readonly credentialId: Uint8Array;
  private readonly ecKey?: KeyObject;
  private readonly edSecret?: Uint8Array;
  readonly cosePublicKey: Map<number, CborInput>;

  constructor(readonly algorithm: Algorithm) {
    this.credentialId = Uint8Array.from({ length: 16 }, (_, index) => index + 1);
    if (algorithm === 'ES256') {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      this.ecKey = privateKey;
      const jwk = publicKey.export({ format: 'jwk' });
      this.cosePublicKey = new Map<number, CborInput>([
        [1, 2], [3, -7], [-1, 1],
        [-2, Buffer.from(jwk.x ?? '', 'base64url')], [-3, Buffer.from(jwk.y ?? '', 'base64url')],
      ]);
    } else {
      this.edSecret = generateSecretKey();
      this.cosePublicKey = new Map<number, CborInput>([[1, 1], [3, -8], [-1, 6], [-2, publicKeyOf(this.edSecret)]]);
    }
  }

  clientData(ceremony: Ceremony, defaultType: string): Uint8Array {
    const fields: Record<string, unknown> = {
      type: ceremony.type ?? defaultType,
      challenge: toBase64Url(ceremony.challenge),
      origin: ceremony.origin ?? ORIGIN,
    };
    if (ceremony.crossOrigin !== undefined) fields.crossOrigin = ceremony.crossOrigin;
    return utf8(JSON.stringify(fields));
  }

  authenticatorData(ceremony: Ceremony, withCredential: boolean): Uint8Array {
    const header = new Uint8Array(37);
    header.set(sha256(utf8(ceremony.rpId ?? RP_ID)), 0);
    header[32] = (ceremony.flags ?? UP_UV) | (withCredential ? 0x40 : 0);
    new DataView(header.buffer).setUint32(33, ceremony.signCount ?? 0);
    if (!withCredential) return header;
    const idLength = new Uint8Array([this.credentialId.length >> 8, this.credentialId.length & 0xff]);
    return Buffer.concat([header, new Uint8Array(16), idLength, this.credentialId, encodeCbor(this.cosePublicKey)]);
  }

  register(ceremony: Ceremony): { clientDataJSON: Uint8Array; attestationObject: Uint8Array } {
    const authData = this.authenticatorData(ceremony, true);
    const attestationObject = encodeCbor(new Map<string, CborInput>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    return { clientDataJSON: this.clientData(ceremony, 'webauthn.create'), attestationObject };
  }

  assert(ceremony: Ceremony): { clientDataJSON: Uint8Array; authenticatorData: Uint8Array; signature: Uint8Array } {
    const clientDataJSON = this.clientData(ceremony, 'webauthn.get');
    const authenticatorData = this.authenticatorData(ceremony, false);
    const signed = Buffer.concat([authenticatorData, sha256(clientDataJSON)]);
    const signature = this.ecKey !== undefined
      ? new Uint8Array(signWithNode('sha256', signed, { key: this.ecKey, dsaEncoding: 'der' }))
      : signEd25519(signed, this.edSecret ?? new Uint8Array(32));
    return { clientDataJSON, authenticatorData, signature };
  }
}
