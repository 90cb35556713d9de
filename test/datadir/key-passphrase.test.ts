/**
 * The device key's passphrase without a secret in the service's environment (issue 44 item 6):
 * LATCH_KEY_PASSPHRASE, else a 0400 file LATCH_KEY_PASSPHRASE_FILE names, else the systemd
 * credential latch-key-passphrase in $CREDENTIALS_DIRECTORY (LoadCredential= in the unit).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { keyPassphrase, PASSPHRASE_CREDENTIAL, PASSPHRASE_FILE_ENV } from '../../src/datadir/key-passphrase.js';
import { generateDeviceKey, loadDeviceKey, storeDeviceKey } from '../../src/signer/device-key.js';
import { tempHome } from './temp-home.js';

const isDataDirError = (code: string) => (error: unknown) => error instanceof DataDirError && error.code === code;

test('an encrypted device key opens with the passphrase from a systemd credential or a 0400 file, with nothing in the environment but where it is', () => {
  const home = tempHome();
  const passphrase = 'from a credential, not Environment=';
  storeDeviceKey(home, generateDeviceKey(passphrase), passphrase, 'create');
  assert.throws(() => loadDeviceKey(home, keyPassphrase({})), isDataDirError('passphrase_required'), 'nothing given: still required');

  const credentials = path.join(home, 'credentials');
  mkdirSync(credentials, { mode: 0o700 });
  writeFileSync(path.join(credentials, PASSPHRASE_CREDENTIAL), `${passphrase}\n`, { mode: 0o400 });
  const fromCredential = keyPassphrase({ CREDENTIALS_DIRECTORY: credentials });
  assert.equal(fromCredential, passphrase, 'one trailing newline is not part of it');
  assert.ok(loadDeviceKey(home, fromCredential) !== undefined);

  const file = path.join(home, 'key-passphrase');
  writeFileSync(file, passphrase, { mode: 0o400 });
  assert.equal(keyPassphrase({ [PASSPHRASE_FILE_ENV]: file, CREDENTIALS_DIRECTORY: credentials }), passphrase);
  // The environment variable still wins, as before.
  assert.equal(keyPassphrase({ LATCH_KEY_PASSPHRASE: 'env', [PASSPHRASE_FILE_ENV]: file }), 'env');
});

test('a passphrase file others can read, a link, a missing or relative name, or an empty file is refused with the file and the fix', () => {
  const home = tempHome();
  const file = path.join(home, 'key-passphrase');
  writeFileSync(file, 'secret words', { mode: 0o644 });
  assert.throws(() => keyPassphrase({ [PASSPHRASE_FILE_ENV]: file }), (error: unknown) => error instanceof DataDirError && error.code === 'insecure_permissions' && error.file === file && !error.message.includes('secret words'));
  chmodSync(file, 0o400);
  const link = path.join(home, 'linked');
  symlinkSync(file, link);
  assert.throws(() => keyPassphrase({ [PASSPHRASE_FILE_ENV]: link }), isDataDirError('symlink'));
  assert.throws(() => keyPassphrase({ [PASSPHRASE_FILE_ENV]: path.join(home, 'missing') }), (error: unknown) => error instanceof DataDirError && error.code === 'missing' && /install -m 0400/.test(error.fix));
  assert.throws(() => keyPassphrase({ [PASSPHRASE_FILE_ENV]: 'relative' }), isDataDirError('invalid_value'));
  const empty = path.join(home, 'empty');
  writeFileSync(empty, '\n', { mode: 0o400 });
  assert.throws(() => keyPassphrase({ [PASSPHRASE_FILE_ENV]: empty }), isDataDirError('invalid_passphrase'));
  // A credential others could change is refused; a missing one is no passphrase.
  const credentials = path.join(home, 'credentials');
  mkdirSync(credentials, { mode: 0o700 });
  assert.equal(keyPassphrase({ CREDENTIALS_DIRECTORY: credentials }), undefined);
  writeFileSync(path.join(credentials, PASSPHRASE_CREDENTIAL), 'x', { mode: 0o666 });
  chmodSync(path.join(credentials, PASSPHRASE_CREDENTIAL), 0o666);
  assert.throws(() => keyPassphrase({ CREDENTIALS_DIRECTORY: credentials }), isDataDirError('wrong_type'));
});
