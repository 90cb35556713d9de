/**
 * The strict check of a root SD-JWT that Latch issued (for `latch evidence verify` and the tests):
 * stricter than generic libraries, which silently drop a disclosure nothing references and an
 * element whose disclosure is missing (docs/decisions.md §32). Every disclosure must be referenced
 * exactly once, every digest must resolve, no digest may repeat, and nothing else may be present.
 */
import type { KeyObject } from 'node:crypto';
import { fromBase64Url } from '../crypto/base64url.js';
import { verifyEs256 } from './p256.js';
import { ARRAY_DIGEST_KEY, ROOT_SD_JWT_TYP, SD_ALG, decodeJsonSegment, sdDigest, type RootSdJwtHeader } from './sd-jwt.js';

/** A verified root SD-JWT: its header, the resolved delegate claims and how many disclosures it had. */
export interface VerifiedRootSdJwt {
  header: RootSdJwtHeader;
  delegate: Record<string, unknown>;
  disclosureCount: number;
  /** The issuer JWT's `iss`, when it has one (mandates signed before it was written have none). */
  issuer?: string;
}

/** Why a root SD-JWT is refused, in words. */
export class SdJwtRefused extends Error {}

/** A root mandate is a few kilobytes; anything far larger is refused before it is parsed. */
const TOKEN_LENGTH_MAX = 64 * 1024;
const DISCLOSURES_MAX = 200;

/**
 * verifyRootSdJwt checks a compact root SD-JWT under the key `keyFor(kid)` returns and resolves
 * its disclosures, or throws SdJwtRefused saying why.
 */
export function verifyRootSdJwt(token: string, keyFor: (kid: string) => KeyObject | undefined): VerifiedRootSdJwt {
  if (token.length > TOKEN_LENGTH_MAX) throw new SdJwtRefused('too long');
  if (!token.endsWith('~')) throw new SdJwtRefused('a root SD-JWT ends with ~ (no key-binding JWT)');
  const parts = token.slice(0, -1).split('~');
  const jwt = parts[0] as string;
  const encodedDisclosures = parts.slice(1);
  if (encodedDisclosures.length > DISCLOSURES_MAX) throw new SdJwtRefused('too many disclosures');
  if (encodedDisclosures.some((d) => d === '')) throw new SdJwtRefused('an empty disclosure');

  const segments = jwt.split('.');
  if (segments.length !== 3) throw new SdJwtRefused('the issuer JWT is not three segments');
  const [headerText, payloadText, signatureText] = segments as [string, string, string];
  const header = checkHeader(decodeJsonSegment(headerText));
  const key = keyFor(header.kid);
  if (key === undefined) throw new SdJwtRefused(`no key ${header.kid} in the JWKS`);
  const signature = fromBase64Url(signatureText);
  if (signature === undefined || !verifyEs256(`${headerText}.${payloadText}`, signature, key)) throw new SdJwtRefused('the ES256 signature does not verify');

  const payload = decodeJsonSegment(payloadText);
  const payloadKeys = isRecord(payload) && Object.hasOwn(payload, 'iss') ? ['iss', 'delegate_payload', '_sd_alg'] : ['delegate_payload', '_sd_alg'];
  if (!isRecord(payload) || !hasExactKeys(payload, payloadKeys)) throw new SdJwtRefused('the payload is not exactly delegate_payload and _sd_alg, with iss or without');
  const issuer = payload['iss'];
  if (issuer !== undefined && (typeof issuer !== 'string' || issuer === '')) throw new SdJwtRefused('iss is not text');
  if (payload['_sd_alg'] !== SD_ALG) throw new SdJwtRefused('_sd_alg is not sha-256');
  const delegates = payload['delegate_payload'];
  if (!Array.isArray(delegates) || delegates.length !== 1) throw new SdJwtRefused('delegate_payload is not one element');
  if (!isRecord(delegates[0]) || !Object.hasOwn(delegates[0], ARRAY_DIGEST_KEY)) throw new SdJwtRefused('delegate_payload[0] is not a disclosed element');

  const byDigest = new Map<string, { value: unknown; used: boolean }>();
  for (const encoded of encodedDisclosures) {
    const digest = sdDigest(encoded);
    if (byDigest.has(digest)) throw new SdJwtRefused('a disclosure repeats');
    byDigest.set(digest, { value: arrayElementValue(encoded), used: false });
  }
  const resolved = resolve(delegates, byDigest) as unknown[];
  const unused = [...byDigest.values()].filter((entry) => !entry.used).length;
  if (unused > 0) throw new SdJwtRefused(`${unused} disclosure(s) not referenced`);
  const delegate = resolved[0];
  if (!isRecord(delegate)) throw new SdJwtRefused('delegate_payload[0] is not an object');
  return { header, delegate, disclosureCount: encodedDisclosures.length, ...(typeof issuer === 'string' && { issuer }) };
}

function checkHeader(value: unknown): RootSdJwtHeader {
  if (!isRecord(value) || !hasExactKeys(value, ['alg', 'typ', 'kid'])) throw new SdJwtRefused('the header is not exactly alg, typ, kid');
  if (value['alg'] !== 'ES256') throw new SdJwtRefused('alg is not ES256');
  if (value['typ'] !== ROOT_SD_JWT_TYP) throw new SdJwtRefused(`typ is not ${ROOT_SD_JWT_TYP}`);
  if (typeof value['kid'] !== 'string' || value['kid'] === '') throw new SdJwtRefused('kid is missing');
  return value as unknown as RootSdJwtHeader;
}

/** arrayElementValue decodes an array-element disclosure `[salt, value]`; object-property ones are not issued by Latch. */
function arrayElementValue(encoded: string): unknown {
  const decoded = decodeJsonSegment(encoded);
  if (!Array.isArray(decoded) || decoded.length !== 2 || typeof decoded[0] !== 'string' || decoded[0].length < 16) throw new SdJwtRefused('a disclosure is not [salt, value]');
  return decoded[1];
}

/** resolve replaces each `{"...": digest}` array element by its disclosure's value, recursively, once each. */
function resolve(value: unknown, byDigest: Map<string, { value: unknown; used: boolean }>): unknown {
  if (Array.isArray(value)) {
    return value.map((element) => {
      if (isRecord(element) && Object.hasOwn(element, ARRAY_DIGEST_KEY)) {
        const digest = element[ARRAY_DIGEST_KEY];
        if (!hasExactKeys(element, [ARRAY_DIGEST_KEY]) || typeof digest !== 'string') throw new SdJwtRefused('an array digest has other members');
        const entry = byDigest.get(digest);
        if (entry === undefined) throw new SdJwtRefused('an array digest has no disclosure');
        if (entry.used) throw new SdJwtRefused('a digest is referenced twice');
        entry.used = true;
        return resolve(entry.value, byDigest);
      }
      return resolve(element, byDigest);
    });
  }
  if (isRecord(value)) {
    if (Object.hasOwn(value, '_sd')) throw new SdJwtRefused('object-property digests (_sd) are not part of an open mandate');
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) out[key] = resolve(member, byDigest);
    return out;
  }
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasExactKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const present = Object.keys(value);
  return present.length === keys.length && keys.every((key) => Object.hasOwn(value, key));
}
