/**
 * minisign's formats (docs/decisions.md §38.2), written with noble's Ed25519 and BLAKE2b so the
 * release needs no signing tool of its own; the `minisign` program itself verifies the result
 * (test/release/minisign.test.ts). The layouts are those of minisign's src/minisign.h:
 *
 *     public key   "Ed" ‖ key id (8) ‖ Ed25519 public key (32)
 *     secret key   "Ed" ‖ kdf "\0\0" (unencrypted) ‖ "B2" ‖ salt (32) ‖ ops (8) ‖ mem (8)
 *                  ‖ key id (8) ‖ Ed25519 seed ‖ public key (64) ‖ checksum (32)
 *     signature    "ED" ‖ key id (8) ‖ Ed25519(BLAKE2b-512(file)) (64)
 *     global sig   Ed25519(signature (64) ‖ trusted comment)
 *
 * each base64 on its own line under an "untrusted comment:" line. Only the prehashed `ED` form is
 * written: the legacy `Ed` form signs the whole file and is what `minisign -H` refuses.
 */
import * as ed from '@noble/ed25519';
import { blake2b } from '@noble/hashes/blake2.js';

const SIG_ALG = 'Ed';
const SIG_ALG_PREHASHED = 'ED';
const KDF_NONE = '\0\0';
const KDF_SCRYPT = 'Sc';
const CHK_ALG = 'B2';
const KEY_ID_BYTES = 8;
const SECRET_KEY_STRUCT_BYTES = 2 + 2 + 2 + 32 + 8 + 8 + KEY_ID_BYTES + 64 + 32;
const UNTRUSTED = 'untrusted comment: ';
const TRUSTED = 'trusted comment: ';

/** A release signing key read from a minisign secret key file. */
export interface ReleaseKey {
  keyId: Uint8Array;
  /** The Ed25519 secret key (the 32-byte seed). */
  seed: Uint8Array;
  publicKey: Uint8Array;
}

/** MinisignKeyError is a key file Latch cannot sign with, with what to do instead. */
export class MinisignKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MinisignKeyError';
  }
}

/**
 * readSecretKey parses an unencrypted minisign secret key (`minisign -G -W`). An encrypted one
 * (scrypt, minisign's default) is refused with the command that removes the password: the key is
 * meant to live on the maintainers' offline medium, not to be decrypted by this script.
 */
export async function readSecretKey(text: string): Promise<ReleaseKey> {
  const lines = text.split('\n').map((line) => line.trim());
  if (!(lines[0] ?? '').startsWith(UNTRUSTED)) throw new MinisignKeyError('not a minisign secret key file (its first line is not an untrusted comment)');
  const bytes = base64Strict(lines[1] ?? '');
  if (bytes === undefined || bytes.length !== SECRET_KEY_STRUCT_BYTES) throw new MinisignKeyError('not a minisign secret key file (its second line is not a secret key)');
  const ascii = (from: number, to: number) => Buffer.from(bytes.subarray(from, to)).toString('latin1');
  if (ascii(0, 2) !== SIG_ALG || ascii(4, 6) !== CHK_ALG) throw new MinisignKeyError('the key file names an algorithm minisign does not use');
  const kdf = ascii(2, 4);
  if (kdf === KDF_SCRYPT) throw new MinisignKeyError('the key file is password-protected; give an unencrypted copy (minisign -C -W -s KEY) on a medium only the release machine reads');
  if (kdf !== KDF_NONE) throw new MinisignKeyError('the key file names an unknown key derivation');
  const at = 2 + 2 + 2 + 32 + 8 + 8;
  const keyId = bytes.slice(at, at + KEY_ID_BYTES);
  const seed = bytes.slice(at + KEY_ID_BYTES, at + KEY_ID_BYTES + 32);
  const publicKey = bytes.slice(at + KEY_ID_BYTES + 32, at + KEY_ID_BYTES + 64);
  bytes.fill(0);
  // minisign leaves the checksum of an unencrypted key zero; the public half is checked instead.
  const derived = await ed.getPublicKeyAsync(seed);
  if (!Buffer.from(derived).equals(Buffer.from(publicKey))) throw new MinisignKeyError('the key file is damaged (its public half does not belong to its secret half)');
  return { keyId, seed, publicKey };
}

/** publicKeyBase64 is the key as `minisign -P` takes it. */
export function publicKeyBase64(key: Pick<ReleaseKey, 'keyId' | 'publicKey'>): string {
  return Buffer.concat([Buffer.from(SIG_ALG, 'latin1'), key.keyId, key.publicKey]).toString('base64');
}

/** publicKeyFile is a minisign.pub file's text. */
export function publicKeyFile(key: Pick<ReleaseKey, 'keyId' | 'publicKey'>): string {
  return `${UNTRUSTED}minisign public key ${keyIdHex(key.keyId)}\n${publicKeyBase64(key)}\n`;
}

/** keyIdHex is the id as minisign prints it: the 8 bytes read little-endian, upper-case hex. */
export function keyIdHex(keyId: Uint8Array): string {
  return Buffer.from(keyId).reverse().toString('hex').toUpperCase();
}

/** What a signature says besides the file's hash. */
export interface SignatureComments {
  /** Signed: minisign's default form is `timestamp:<seconds>\tfile:<name>\thashed`. */
  trusted: string;
  untrusted?: string;
}

/**
 * signPrehashed returns the .minisig text for file: the prehashed signature and the global
 * signature over it and the trusted comment, exactly as `minisign -S` writes them. Ed25519 is
 * deterministic, so the same file, key and comments give the same bytes.
 */
export async function signPrehashed(file: Uint8Array, key: ReleaseKey, comments: SignatureComments): Promise<string> {
  const untrusted = comments.untrusted ?? 'signature from minisign secret key';
  for (const comment of [comments.trusted, untrusted]) {
    if (/[\r\n]/.test(comment) || !/^[\t\x20-\x7e]*$/.test(comment)) throw new MinisignKeyError('a signature comment must be one line of printable ASCII');
  }
  const signature = await ed.signAsync(blake2b(file, { dkLen: 64 }), key.seed);
  const global = await ed.signAsync(Buffer.concat([signature, Buffer.from(comments.trusted, 'utf8')]), key.seed);
  const body = Buffer.concat([Buffer.from(SIG_ALG_PREHASHED, 'latin1'), key.keyId, signature]);
  return `${UNTRUSTED}${untrusted}\n${body.toString('base64')}\n${TRUSTED}${comments.trusted}\n${Buffer.from(global).toString('base64')}\n`;
}

/** defaultTrustedComment is minisign's own: the time (here SOURCE_DATE_EPOCH), the name, "hashed". */
export function defaultTrustedComment(timestamp: number, fileName: string): string {
  return `timestamp:${timestamp}\tfile:${fileName}\thashed`;
}

/** base64Strict decodes canonical base64 only (Buffer.from would skip junk silently). */
function base64Strict(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  const bytes = new Uint8Array(Buffer.from(text, 'base64'));
  return Buffer.from(bytes).toString('base64') === text ? bytes : undefined;
}
