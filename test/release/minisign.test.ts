/**
 * The release signature is minisign's own (docs/decisions.md §38.2), checked by the `minisign`
 * program itself: a throwaway key made by `minisign -G -W` in a temporary directory, a file signed
 * by scripts/release/minisign.ts, then `minisign -V` (and `-H`, which accepts only the prehashed
 * `ED` form) verifies it and refuses any changed byte. Skipped, saying so, where minisign is not
 * installed (.ci/run installs it).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { defaultTrustedComment, keyIdHex, MinisignKeyError, publicKeyBase64, publicKeyFile, readSecretKey, signPrehashed, type ReleaseKey } from '../../scripts/release/minisign.js';

const hasMinisign = spawnSync('minisign', ['-v'], { stdio: 'ignore' }).status === 0;
const SKIP = hasMinisign ? false : 'needs the minisign program (Debian package minisign; .ci/run installs it)';

function minisign(args: string[], cwd: string): { status: number | null; out: string } {
  const ran = spawnSync('minisign', args, { cwd, encoding: 'utf8', input: '' });
  return { status: ran.status, out: `${ran.stdout}${ran.stderr}` };
}

describe('minisign signatures made with noble', { skip: SKIP }, () => {
  let dir: string;
  let key: ReleaseKey;
  const message = Buffer.from('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  latch-0.1.0.tgz\n');
  const trusted = defaultTrustedComment(1764000000, 'SHA256SUMS');

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'latch-minisign-'));
    const made = minisign(['-G', '-W', '-p', 'key.pub', '-s', 'key.sec'], dir);
    assert.equal(made.status, 0, made.out);
    key = await readSecretKey(readFileSync(path.join(dir, 'key.sec'), 'utf8'));
    writeFileSync(path.join(dir, 'SHA256SUMS'), message);
    writeFileSync(path.join(dir, 'SHA256SUMS.minisig'), await signPrehashed(message, key, { trusted }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('minisign -V verifies the signature with the public key, inline and from its file', () => {
    const inline = minisign(['-Vm', 'SHA256SUMS', '-P', publicKeyBase64(key)], dir);
    assert.equal(inline.status, 0, inline.out);
    assert.match(inline.out, /Signature and comment signature verified/);
    assert.ok(inline.out.includes(`Trusted comment: ${trusted}`), inline.out);
    const fromFile = minisign(['-Vm', 'SHA256SUMS', '-p', 'key.pub'], dir);
    assert.equal(fromFile.status, 0, fromFile.out);
    // The key line byte for byte; the comment's id as a number, since minisign's releases print it
    // zero-padded to 16 digits (KEYNUM_FMT, current) or not (Debian's older build): one id either way.
    const [ourComment, ourKey, ourRest] = publicKeyFile(key).split('\n');
    const [theirComment, theirKey, theirRest] = readFileSync(path.join(dir, 'key.pub'), 'utf8').split('\n');
    assert.equal(ourKey, theirKey, 'the public key line is minisign\'s');
    assert.equal(ourRest, theirRest);
    const idOf = (comment: string | undefined) => /^untrusted comment: minisign public key ([0-9A-F]{1,16})$/.exec(comment ?? '')?.[1];
    assert.equal(BigInt(`0x${idOf(ourComment) ?? 'x'}`), BigInt(`0x${idOf(theirComment) ?? 'y'}`), `the comment names minisign's key id: ${ourComment} / ${theirComment}`);
  });

  test('it is the prehashed ED form: minisign -H (prehashed only) accepts it', () => {
    const signature = readFileSync(path.join(dir, 'SHA256SUMS.minisig'), 'utf8');
    assert.equal(Buffer.from(signature.split('\n')[1] ?? '', 'base64').subarray(0, 2).toString('latin1'), 'ED');
    const prehashedOnly = minisign(['-H', '-Vm', 'SHA256SUMS', '-P', publicKeyBase64(key)], dir);
    assert.equal(prehashedOnly.status, 0, prehashedOnly.out);
  });

  test('it is byte for byte what minisign -S writes with the same key and trusted comment', () => {
    const signed = minisign(['-S', '-W', '-s', 'key.sec', '-m', 'SHA256SUMS', '-x', 'reference.minisig', '-t', trusted], dir);
    assert.equal(signed.status, 0, signed.out);
    assert.equal(readFileSync(path.join(dir, 'SHA256SUMS.minisig'), 'utf8'), readFileSync(path.join(dir, 'reference.minisig'), 'utf8'));
  });

  test('minisign refuses the file with any one byte changed', () => {
    for (const at of [0, message.length >> 1, message.length - 1]) {
      const changed = Buffer.from(message);
      changed[at] = (changed[at] as number) ^ 0x01;
      writeFileSync(path.join(dir, 'changed'), changed);
      const checked = minisign(['-Vm', 'changed', '-x', 'SHA256SUMS.minisig', '-P', publicKeyBase64(key)], dir);
      assert.notEqual(checked.status, 0, `byte ${at} changed, yet: ${checked.out}`);
    }
  });

  test('minisign refuses a changed trusted comment, and another key', async () => {
    const signature = readFileSync(path.join(dir, 'SHA256SUMS.minisig'), 'utf8');
    writeFileSync(path.join(dir, 'retimed.minisig'), signature.replace('timestamp:1764000000', 'timestamp:1764000001'));
    const retimed = minisign(['-Vm', 'SHA256SUMS', '-x', 'retimed.minisig', '-P', publicKeyBase64(key)], dir);
    assert.notEqual(retimed.status, 0, retimed.out);
    assert.equal(minisign(['-G', '-W', '-p', 'other.pub', '-s', 'other.sec'], dir).status, 0);
    const other = await readSecretKey(readFileSync(path.join(dir, 'other.sec'), 'utf8'));
    const wrongKey = minisign(['-Vm', 'SHA256SUMS', '-P', publicKeyBase64(other)], dir);
    assert.notEqual(wrongKey.status, 0, wrongKey.out);
    assert.notEqual(keyIdHex(other.keyId), keyIdHex(key.keyId));
  });
});

describe('release key files', () => {
  test('an encrypted, damaged or foreign key file is refused with what to do, and no secret in the message', async () => {
    const valid = 'untrusted comment: minisign encrypted secret key\n';
    const struct = (kdf: string) => Buffer.concat([Buffer.from(`Ed${kdf}B2`, 'latin1'), Buffer.alloc(32 + 8 + 8 + 8 + 64 + 32, 7)]).toString('base64');
    await assert.rejects(readSecretKey(`${valid}${struct('Sc')}\n`), (error: unknown) => error instanceof MinisignKeyError && /password-protected.*minisign -C -W/.test(error.message));
    await assert.rejects(readSecretKey(`${valid}${struct('\0\0')}\n`), (error: unknown) => error instanceof MinisignKeyError && /damaged/.test(error.message) && !error.message.includes('BwcH'));
    await assert.rejects(readSecretKey(`${valid}${struct('Xx')}\n`), /unknown key derivation/);
    await assert.rejects(readSecretKey('untrusted comment: minisign public key 1\nRWSZzZw3E2GBKsQcJ3j5rmg3mJtnATn9uNxfbEMLRhLY6olymsOKF80Q\n'), /not a minisign secret key/);
    await assert.rejects(readSecretKey('-----BEGIN PRIVATE KEY-----\n'), /not a minisign secret key/);
    await assert.rejects(readSecretKey(`${valid}${struct('\0\0')}junk\n`), /not a minisign secret key/);
  });

  test('a comment that is not one printable line is refused before anything is signed', async () => {
    const key = { keyId: new Uint8Array(8), seed: new Uint8Array(32).fill(1), publicKey: new Uint8Array(32) };
    await assert.rejects(signPrehashed(Buffer.from('x'), key, { trusted: 'a\nb' }), /one line/);
    await assert.rejects(signPrehashed(Buffer.from('x'), key, { trusted: 'ok', untrusted: 'bell\x07' }), /one line/);
  });
});
