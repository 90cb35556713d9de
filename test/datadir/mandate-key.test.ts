/** mandate.key: device.key's file rules for the AP2 mandate key, its rotation and the retired list. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, statSync, symlinkSync, writeFileSync, renameSync } from 'node:fs';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { assertDataDirSecure } from '../../src/datadir/permissions.js';
import { ensureMandateKey, loadMandateKey, mandateKeyPath, rotateMandateKey } from '../../src/signer/mandate-key.js';
import { readRetiredMandateKeys, RETIRED_KEY_LISTED_SECONDS } from '../../src/datadir/mandate-retired.js';
import { loadDeviceKey } from '../../src/signer/device-key.js';
import { createDeviceKey } from '../support/device-key.js';
import { mandateJwks } from '../../src/ap2/mandate-jwks.js';
import { tempHome } from './temp-home.js';

const PASSPHRASE = 'correct horse battery staple';

function dataDirError(code: string) {
  return (error: unknown) => {
    assert.ok(error instanceof DataDirError, String(error));
    assert.equal(error.code, code);
    return true;
  };
}

for (const passphrase of [undefined, PASSPHRASE]) {
  const label = passphrase === undefined ? 'raw' : 'encrypted';
  test(`${label}: ensureMandateKey makes mandate.key once, at 0600, and loads the same P-256 key again`, () => {
    const home = tempHome();
    const made = ensureMandateKey(home, passphrase);
    assert.equal(statSync(mandateKeyPath(home)).mode & 0o777, 0o600);
    assert.equal(made.storage, passphrase === undefined ? 'raw' : 'scrypt-aes-256-gcm');
    assert.equal(ensureMandateKey(home, passphrase).key.kid, made.key.kid);
    assert.equal(loadMandateKey(home, passphrase)?.key.kid, made.key.kid);
    const text = readFileSync(mandateKeyPath(home), 'utf8');
    assert.equal(JSON.parse(text).format, passphrase === undefined ? 'raw' : 'scrypt-aes-256-gcm');
    if (passphrase !== undefined) assert.ok(!text.includes('secret_key'), 'an encrypted file holds no plain scalar');
  });
}

test('the mandate key is never the device key', () => {
  const home = tempHome();
  const device = createDeviceKey(home);
  const mandate = ensureMandateKey(home, undefined);
  assert.notEqual(mandate.key.kid, device.keyId);
  assert.notEqual(readFileSync(mandateKeyPath(home), 'utf8'), readFileSync(`${home}/device.key`, 'utf8'));
  assert.equal(loadDeviceKey(home)?.keyId, device.keyId);
});

test('an encrypted mandate.key needs the passphrase, and a wrong one is refused by name', () => {
  const home = tempHome();
  ensureMandateKey(home, PASSPHRASE);
  assert.throws(() => loadMandateKey(home, undefined), dataDirError('passphrase_required'));
  assert.throws(() => loadMandateKey(home, 'wrong'), dataDirError('wrong_passphrase'));
});

test('mandate.key exposed, a symlink or corrupt is refused, as device.key would be', () => {
  const exposed = tempHome();
  ensureMandateKey(exposed, undefined);
  chmodSync(mandateKeyPath(exposed), 0o644);
  assert.throws(() => loadMandateKey(exposed, undefined), DataDirError);
  assert.throws(() => assertDataDirSecure(exposed), DataDirError);

  const linked = tempHome();
  ensureMandateKey(linked, undefined);
  renameSync(mandateKeyPath(linked), `${linked}/elsewhere`);
  symlinkSync(`${linked}/elsewhere`, mandateKeyPath(linked));
  assert.throws(() => loadMandateKey(linked, undefined), dataDirError('symlink'));

  const corrupt = tempHome();
  writeFileSync(mandateKeyPath(corrupt), '{"v":1,"format":"raw","secret_key":"AAAA"}', { mode: 0o600 });
  assert.throws(() => loadMandateKey(corrupt, undefined), (error: unknown) => error instanceof DataDirError && error.code === 'corrupt' && /mandate\.key/.test(error.message) && /rotate-mandate-key/.test(error.fix ?? ''));
});

test('rotation makes a new key and keeps the old public key listed until every mandate it signed has expired', () => {
  const home = tempHome();
  const old = ensureMandateKey(home, undefined);
  const now = 1_790_000_000;
  const rotated = rotateMandateKey(home, undefined, now);
  assert.equal(rotated.oldKid, old.key.kid);
  assert.notEqual(rotated.newKid, old.key.kid);
  assert.equal(rotated.oldListedUntil, now + RETIRED_KEY_LISTED_SECONDS);
  assert.equal(RETIRED_KEY_LISTED_SECONDS, 1440 * 60 + 300, 'the longest ttl plus AP2\'s skew');
  const current = loadMandateKey(home, undefined)?.key;
  const retired = readRetiredMandateKeys(home);
  assert.deepEqual(mandateJwks(current, retired, now).keys.map((key) => key.kid), [rotated.newKid, rotated.oldKid]);
  assert.deepEqual(mandateJwks(current, retired, rotated.oldListedUntil).keys.map((key) => key.kid), [rotated.newKid], 'gone once its mandates have expired');
  assert.equal(statSync(`${home}/mandate.retired.json`).mode & 0o777, 0o600);
  // A second rotation keeps the first retired key while it is listed, and drops it after.
  const again = rotateMandateKey(home, undefined, now + 10);
  assert.deepEqual(readRetiredMandateKeys(home).map((key) => key.kid), [rotated.oldKid, again.oldKid]);
  rotateMandateKey(home, undefined, rotated.oldListedUntil + 1);
  assert.ok(!readRetiredMandateKeys(home).some((key) => key.kid === rotated.oldKid));
});

test('ensureMandateKey answers the public half only: the mandate key signs through the daemon\'s signer alone', async () => {
  const home = tempHome();
  const { ensureMandateKey: ensurePublic } = await import('../../src/signer/key-admin.js');
  const made = ensurePublic(home, undefined);
  assert.deepEqual(Object.keys(made).sort(), ['kid', 'publicJwk', 'storage']);
  assert.equal(made.kid, loadMandateKey(home, undefined)?.key.kid);
  assert.ok(!JSON.stringify(made).includes('"d"'));
});
