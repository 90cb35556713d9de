import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { loadConfig, saveConfig } from '../../src/datadir/config.js';
import { generateDeviceKey, loadDeviceKey, storeDeviceKey } from '../../src/signer/device-key.js';
import { deviceKeyNextPath, finishKeyRollover, keyNamedByConfig, stageDeviceKey } from '../../src/signer/key-rollover.js';
import { tempHome } from './temp-home.js';

/** A data directory enrolled with an "old" key, and a "new" key in memory. */
function enrolledHome() {
  const home = tempHome();
  const old = generateDeviceKey();
  storeDeviceKey(home, old, undefined, 'create');
  saveConfig(home, { cloud_url: 'http://127.0.0.1:9', device_id: 'dev_old', key_id: old.keyId });
  return { home, old, fresh: generateDeviceKey() };
}

test('a setup stopped after staging but before config.json: the old pair stays in force', () => {
  const { home, old, fresh } = enrolledHome();
  stageDeviceKey(home, fresh, undefined);
  assert.equal(statSync(deviceKeyNextPath(home)).mode & 0o777, 0o600);
  assert.equal(keyNamedByConfig(home, undefined, loadConfig(home).key_id)?.keyId, old.keyId);
  // A daemon never discards a staged key (a setup may be about to name it) ...
  finishKeyRollover(home, undefined, loadConfig(home).key_id, { discardUnnamed: false });
  assert.ok(existsSync(deviceKeyNextPath(home)));
  // ... the next setup does.
  finishKeyRollover(home, undefined, loadConfig(home).key_id, { discardUnnamed: true });
  assert.ok(!existsSync(deviceKeyNextPath(home)));
  assert.equal(loadDeviceKey(home)?.keyId, old.keyId);
});

test('a setup stopped after config.json named the staged key: the new pair is in force, then put in place', () => {
  const { home, fresh } = enrolledHome();
  stageDeviceKey(home, fresh, undefined);
  saveConfig(home, { cloud_url: 'http://127.0.0.1:9', device_id: 'dev_new', key_id: fresh.keyId });
  assert.equal(keyNamedByConfig(home, undefined, fresh.keyId)?.keyId, fresh.keyId, 'readers take the named key at once');
  finishKeyRollover(home, undefined, fresh.keyId, { discardUnnamed: false });
  assert.ok(!existsSync(deviceKeyNextPath(home)));
  assert.equal(loadDeviceKey(home)?.keyId, fresh.keyId);
  assert.equal(statSync(`${home}/device.key`).mode & 0o777, 0o600);
  // Finishing again (another process got there first) is harmless.
  finishKeyRollover(home, undefined, fresh.keyId, { discardUnnamed: true });
  assert.equal(loadDeviceKey(home)?.keyId, fresh.keyId);
});

test('a first setup stages, names and installs the key; an encrypted staged key needs its passphrase', () => {
  const home = tempHome();
  const key = generateDeviceKey('pass phrase');
  stageDeviceKey(home, key, 'pass phrase');
  assert.equal(keyNamedByConfig(home, 'pass phrase', key.keyId)?.keyId, key.keyId);
  assert.throws(() => keyNamedByConfig(home, undefined, key.keyId), /passphrase/i);
  saveConfig(home, { cloud_url: 'http://127.0.0.1:9', device_id: 'dev_first', key_id: key.keyId });
  finishKeyRollover(home, 'pass phrase', key.keyId, { discardUnnamed: false });
  assert.equal(loadDeviceKey(home, 'pass phrase')?.keyId, key.keyId);
});
