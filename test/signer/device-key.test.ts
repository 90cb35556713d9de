import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { toBase64Url } from '../../src/crypto/base64url.js';
import { verifyEd25519 } from '../../src/signer/ed25519-verify.js';
import { publicKeyOf, signEd25519 } from '../support/raw-signing.js';
import { keyIdOf, jwkThumbprint } from '../../src/crypto/jwk.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { deviceKeyPath, generateDeviceKey, loadDeviceKey, passphraseFromEnv, storeDeviceKey } from '../../src/signer/device-key.js';
import { createDeviceKey, replaceDeviceKey } from '../support/device-key.js';
import { tempHome } from '../datadir/temp-home.js';
import { secretOf } from '../support/raw-signing.js';

const PASSPHRASE = 'correct horse battery staple';

/** leaksSecret reports whether text shows the secret key in any encoding a serializer might use. */
function leaksSecret(text: string, secret: Uint8Array): boolean {
  const bytes = Array.from(secret);
  const compact = text.replace(/\s+/g, '');
  const forms = [
    toBase64Url(secret),
    Buffer.from(secret).toString('base64'),
    Buffer.from(secret).toString('hex'),
    bytes.join(','),
    bytes.map((byte, index) => `"${index}":${byte}`).join(','),
  ];
  return forms.some((form) => compact.includes(form));
}

function isDataDirError(code: string): (error: unknown) => boolean {
  return (error: unknown) => {
    assert.ok(error instanceof DataDirError, String(error));
    assert.equal(error.code, code);
    return true;
  };
}

test('loadDeviceKey returns undefined when there is no key yet', () => {
  assert.equal(loadDeviceKey(tempHome()), undefined);
  assert.equal(loadDeviceKey(tempHome(), PASSPHRASE), undefined);
});

for (const passphrase of [undefined, PASSPHRASE]) {
  const label = passphrase === undefined ? 'raw' : 'encrypted';

  test(`${label}: create then load round-trips the key pair, at 0600, with an RFC 7638 key id`, () => {
    const home = tempHome();
    const created = createDeviceKey(home, passphrase);
    assert.equal(statSync(deviceKeyPath(home)).mode & 0o777, 0o600);
    assert.ok(Buffer.from(created.publicKey).equals(publicKeyOf(secretOf(created))));
    assert.equal(created.keyId, keyIdOf(created.publicKey));
    assert.equal(created.keyId, jwkThumbprint(created.publicJwk));
    assert.deepEqual(created.publicJwk, { kty: 'OKP', crv: 'Ed25519', x: toBase64Url(created.publicKey) });
    const loaded = loadDeviceKey(home, passphrase);
    assert.ok(loaded);
    // Compared as a boolean so that a failure never prints key bytes into the test output.
    assert.ok(Buffer.from(secretOf(loaded)).equals(secretOf(created)));
    assert.equal(Object.getPrototypeOf(secretOf(loaded)), Uint8Array.prototype);
    assert.equal(loaded.keyId, created.keyId);
    assert.equal(loaded.storage, passphrase === undefined ? 'raw' : 'scrypt-aes-256-gcm');
    const message = new TextEncoder().encode('policy window');
    assert.equal(verifyEd25519(signEd25519(message, secretOf(loaded)), message, created.publicKey), true);
  });

  test(`${label}: storeDeviceKey 'create' refuses to overwrite; 'replace' swaps atomically`, () => {
    const home = tempHome();
    const first = createDeviceKey(home, passphrase);
    const before = readFileSync(deviceKeyPath(home), 'utf8');
    assert.throws(() => createDeviceKey(home, passphrase), isDataDirError('exists'));
    assert.equal(readFileSync(deviceKeyPath(home), 'utf8'), before);
    const second = replaceDeviceKey(home, passphrase);
    assert.notEqual(second.keyId, first.keyId);
    assert.equal(loadDeviceKey(home, passphrase)?.keyId, second.keyId);
    assert.equal(statSync(deviceKeyPath(home)).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(home), ['device.key']);
  });

  test(`${label}: the key object never reveals the secret through JSON, inspect, spread or keys`, () => {
    const home = tempHome();
    const key = createDeviceKey(home, passphrase);
    const views = [
      JSON.stringify(key),
      JSON.stringify({ nested: { key } }),
      inspect(key, { depth: 10, showHidden: true }),
      inspect({ key }, { depth: 10, showHidden: true }),
      JSON.stringify({ ...key }),
      Object.keys(key).join(','),
      String(key),
      JSON.stringify(Object.entries(key)),
    ];
    for (const view of views) assert.equal(leaksSecret(view, secretOf(key)), false, `secret leaked in: ${view.slice(0, 60)}`);
    // The detector itself must see a secret that is shown plainly, or the loop above proves nothing.
    const exposed = { secretKey: secretOf(key) };
    assert.equal(leaksSecret(inspect(exposed), secretOf(key)), true);
    assert.equal(leaksSecret(JSON.stringify(exposed), secretOf(key)), true);
    assert.ok(JSON.stringify(key).includes(key.keyId), 'public material is still shown');
  });
}

test('the encrypted file holds no plaintext secret; the raw file does, and both are 0600', () => {
  const home = tempHome();
  const key = createDeviceKey(home, PASSPHRASE);
  const text = readFileSync(deviceKeyPath(home), 'utf8');
  assert.ok(!text.includes(toBase64Url(secretOf(key))));
  const file = JSON.parse(text) as Record<string, unknown>;
  assert.equal(file['format'], 'scrypt-aes-256-gcm');
  assert.deepEqual(Object.keys(file).sort(), ['ciphertext', 'format', 'iv', 'kdf', 'tag', 'v']);
  assert.deepEqual(Object.keys(file['kdf'] as object).sort(), ['N', 'p', 'r', 'salt']);
  assert.equal((file['kdf'] as { N: number }).N, 2 ** 15);
});

test('a wrong passphrase is a clear wrong_passphrase error that names the file and the variable', () => {
  const home = tempHome();
  createDeviceKey(home, PASSPHRASE);
  for (const wrong of ['correct horse battery stapl', 'Correct horse battery staple', `${PASSPHRASE} `]) {
    assert.throws(() => loadDeviceKey(home, wrong), (error: unknown) => {
      assert.ok(error instanceof DataDirError);
      assert.equal(error.code, 'wrong_passphrase');
      assert.equal(error.file, deviceKeyPath(home));
      assert.match(error.message, /wrong passphrase for device\.key \(LATCH_KEY_PASSPHRASE\)/);
      assert.ok(!error.message.includes(wrong), 'the passphrase is never echoed');
      return true;
    });
  }
});

test('the passphrase is compared after Unicode NFC normalization', () => {
  const home = tempHome();
  const composed = 'caf\u00e9 au lait';
  createDeviceKey(home, composed);
  assert.ok(loadDeviceKey(home, 'cafe\u0301 au lait'));
});

test('an encrypted key without a passphrase is a passphrase_required error; an empty passphrase is refused', () => {
  const home = tempHome();
  createDeviceKey(home, PASSPHRASE);
  assert.throws(() => loadDeviceKey(home), isDataDirError('passphrase_required'));
  assert.throws(() => loadDeviceKey(home, ''), isDataDirError('invalid_passphrase'));
  assert.throws(() => createDeviceKey(tempHome(), ''), isDataDirError('invalid_passphrase'));
});

test('a raw key loads even when a passphrase is set, and says it is raw', () => {
  const home = tempHome();
  const key = createDeviceKey(home);
  const loaded = loadDeviceKey(home, PASSPHRASE);
  assert.equal(loaded?.keyId, key.keyId);
  assert.equal(loaded?.storage, 'raw');
});

test('passphraseFromEnv treats an empty variable as unset', () => {
  assert.equal(passphraseFromEnv({}), undefined);
  assert.equal(passphraseFromEnv({ LATCH_KEY_PASSPHRASE: '' }), undefined);
  assert.equal(passphraseFromEnv({ LATCH_KEY_PASSPHRASE: 'x y' }), 'x y');
});

test('any change to the encrypted header, ciphertext or tag is detected', () => {
  const home = tempHome();
  createDeviceKey(home, PASSPHRASE);
  const original = JSON.parse(readFileSync(deviceKeyPath(home), 'utf8')) as Record<string, unknown>;
  const flip = (text: string): string => `${text[0] === 'A' ? 'B' : 'A'}${text.slice(1)}`;
  const kdf = original['kdf'] as Record<string, unknown>;
  const tampered: Array<{ name: string; file: Record<string, unknown>; code: string }> = [
    { name: 'salt', file: { ...original, kdf: { ...kdf, salt: flip(kdf['salt'] as string) } }, code: 'wrong_passphrase' },
    { name: 'iv', file: { ...original, iv: flip(original['iv'] as string) }, code: 'wrong_passphrase' },
    { name: 'ciphertext', file: { ...original, ciphertext: flip(original['ciphertext'] as string) }, code: 'wrong_passphrase' },
    { name: 'tag', file: { ...original, tag: flip(original['tag'] as string) }, code: 'wrong_passphrase' },
    { name: 'N raised', file: { ...original, kdf: { ...kdf, N: 2 ** 16 } }, code: 'wrong_passphrase' },
    { name: 'N lowered', file: { ...original, kdf: { ...kdf, N: 2 ** 14 } }, code: 'corrupt' },
    { name: 'N not a power of two', file: { ...original, kdf: { ...kdf, N: 2 ** 15 + 1 } }, code: 'corrupt' },
    { name: 'N huge', file: { ...original, kdf: { ...kdf, N: 2 ** 30 } }, code: 'corrupt' },
    { name: 'r zero', file: { ...original, kdf: { ...kdf, r: 0 } }, code: 'corrupt' },
    { name: 'p as string', file: { ...original, kdf: { ...kdf, p: '1' } }, code: 'corrupt' },
    { name: 'short iv', file: { ...original, iv: 'AAAA' }, code: 'corrupt' },
    { name: 'extra field', file: { ...original, note: 'x' }, code: 'corrupt' },
    { name: 'version 2', file: { ...original, v: 2 }, code: 'corrupt' },
  ];
  for (const { name, file, code } of tampered) {
    writeFileSync(deviceKeyPath(home), JSON.stringify(file), { mode: 0o600 });
    assert.throws(() => loadDeviceKey(home, PASSPHRASE), isDataDirError(code), name);
  }
});

test('malformed key files are corrupt errors that never echo the file', () => {
  const home = tempHome();
  const secret = toBase64Url(new Uint8Array(32).fill(7));
  const bad = [
    'not json',
    '[]',
    'null',
    JSON.stringify({ v: 1, format: 'raw' }),
    JSON.stringify({ v: 1, format: 'raw', secret_key: secret.slice(1) }),
    JSON.stringify({ v: 1, format: 'raw', secret_key: secret, public_key: 'x' }),
    JSON.stringify({ v: 1, format: 'pkcs8', secret_key: secret }),
    JSON.stringify({ format: 'raw', secret_key: secret }),
  ];
  for (const text of bad) {
    writeFileSync(deviceKeyPath(home), text, { mode: 0o600 });
    assert.throws(() => loadDeviceKey(home), (error: unknown) => {
      assert.ok(error instanceof DataDirError);
      assert.equal(error.code, 'corrupt', text);
      assert.ok(!error.message.includes(secret.slice(1, 20)));
      return true;
    });
  }
});

test('storeDeviceKey lets setup enroll a generated key first and store it afterwards', () => {
  const home = tempHome();
  const key = generateDeviceKey();
  assert.equal(loadDeviceKey(home), undefined);
  storeDeviceKey(home, key, undefined, 'create');
  assert.equal(loadDeviceKey(home)?.keyId, key.keyId);
  assert.throws(() => storeDeviceKey(home, key, undefined, 'create'), isDataDirError('exists'));
});

test('a device.key with loose permissions is refused before it is read', () => {
  const home = tempHome();
  createDeviceKey(home);
  chmodSync(deviceKeyPath(home), 0o640);
  assert.throws(() => loadDeviceKey(home), isDataDirError('insecure_permissions'));
});
