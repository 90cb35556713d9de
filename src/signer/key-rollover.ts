/**
 * Replacing the device key and its enrollment as one step. `latch setup` stages the new key in
 * device.key.next, then writes config.json naming it (key_id, device_id), then renames the staged
 * key over device.key. Every reader takes the key config.json names: the staged one while it is
 * there, device.key otherwise. So the pair (key, enrollment) switches at the single rename of
 * config.json, and a crash at any point leaves a consistent pair: the old one before that
 * rename, the new one after it.
 */
import { renameSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { fsyncDirectory } from '../datadir/atomic-file.js';
import { loadDeviceKey, storeDeviceKey, type DeviceKey, type DeviceKeyPair } from './device-key.js';
import { DATA_FILES, dataFilePath } from '../datadir/data-files.js';

/** deviceKeyNextPath returns the path of the staged key, device.key.next. */
export function deviceKeyNextPath(home: string): string {
  return dataFilePath(home, DATA_FILES.deviceKeyNext);
}

/** stageDeviceKey writes key to device.key.next (atomically, 0600, encrypted with a passphrase). */
export function stageDeviceKey(home: string, key: DeviceKeyPair, passphrase: string | undefined): void {
  storeDeviceKey(home, key, passphrase, 'replace', deviceKeyNextPath(home));
}

/**
 * keyNamedByConfig returns the key whose id config.json names: the staged key when it is that
 * one, else device.key (which may be undefined, or another key when the files disagree).
 */
export function keyNamedByConfig(home: string, passphrase: string | undefined, configKeyId: string | undefined): DeviceKey | undefined {
  if (configKeyId !== undefined) {
    const staged = loadDeviceKey(home, passphrase, deviceKeyNextPath(home));
    if (staged?.keyId === configKeyId) return staged;
  }
  return loadDeviceKey(home, passphrase);
}

/**
 * finishKeyRollover moves a staged key that config.json names over device.key. A staged key that
 * config.json does not name is the leftover of a setup that stopped before enrolling it locally:
 * only setup itself discards it (`discardUnnamed`), since a running setup may be about to name it.
 */
export function finishKeyRollover(home: string, passphrase: string | undefined, configKeyId: string | undefined, options: { discardUnnamed: boolean }): void {
  const stagedPath = deviceKeyNextPath(home);
  const staged = loadDeviceKey(home, passphrase, stagedPath);
  if (staged === undefined) return;
  try {
    if (staged.keyId === configKeyId) renameSync(stagedPath, dataFilePath(home, DATA_FILES.deviceKey));
    else if (options.discardUnnamed) unlinkSync(stagedPath);
    else return;
  } catch (error) {
    // Another process finished the same step first.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  fsyncDirectory(path.dirname(stagedPath));
}
