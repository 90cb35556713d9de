/**
 * Where the signer's keys come from (docs/decisions.md §34.1): the data directory's device.key,
 * device.key.next (staged by `latch setup` until config.json names it) and mandate.key, each read
 * again whenever its file changes, so a rollover or a rotation takes effect without a restart and a
 * file made unsafe while the daemon runs is refused at the next signature. The handles stay here.
 */
import { deviceKeyNextPath } from './key-rollover.js';
import { deviceKeyPath, loadDeviceKey, type DeviceKey } from './device-key.js';
import { loadMandateKey, mandateKeyPath, type LoadedMandateKey } from './mandate-key.js';

/** The keys a signer holds. */
export interface SignerKeys {
  /** The device key config.json names (the staged one once named), or undefined before enrollment. */
  device(): DeviceKey | undefined;
  /** A device key the signer holds, installed or staged, by its id. */
  deviceById(keyId: string): DeviceKey | undefined;
  /** The AP2 mandate key, or undefined before it is made. */
  mandate(): LoadedMandateKey | undefined;
}

/** What keysInDataDir reads: the data directory, the passphrase, and how a file is watched. */
export interface DataDirKeyOptions {
  home: string;
  passphrase: string | undefined;
  /**
   * watch returns a getter of what load makes of file, loaded again only when the file changed
   * (the daemon's services.watchedFile, which also re-checks the data directory).
   */
  watch<T>(file: string, load: () => T): () => T;
  /** The key id config.json names, or undefined before enrollment. */
  keyIdNamed(): string | undefined;
}

/** How often device() re-reads the files when they disagree (a concurrent setup). */
const KEY_RESOLUTION_ATTEMPTS = 3;

/** keysInDataDir holds the keys of one data directory. */
export function keysInDataDir(options: DataDirKeyOptions): SignerKeys {
  const { home, passphrase, watch } = options;
  const installed = watch(deviceKeyPath(home), () => loadDeviceKey(home, passphrase));
  const staged = watch(deviceKeyNextPath(home), () => loadDeviceKey(home, passphrase, deviceKeyNextPath(home)));
  const mandate = watch(mandateKeyPath(home), () => loadMandateKey(home, passphrase));
  return {
    device: () => {
      // The three files are read one after the other while `latch setup` may be renaming them;
      // reading again gives the pair as it stands once the renames are done.
      let key: DeviceKey | undefined;
      for (let attempt = 0; attempt < KEY_RESOLUTION_ATTEMPTS; attempt++) {
        const named = options.keyIdNamed();
        const next = staged();
        if (named !== undefined && next?.keyId === named) return next;
        key = installed();
        if (named === undefined || key?.keyId === named) return key;
      }
      return key;
    },
    deviceById: (keyId) => {
      const current = installed();
      if (current?.keyId === keyId) return current;
      const next = staged();
      return next?.keyId === keyId ? next : undefined;
    },
    mandate,
  };
}
