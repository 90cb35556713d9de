/**
 * How `latch daemon|start --user NAME` pins the daemon for the owners (docs/decisions.md §30). As
 * root, before the drop, it opens root's pin file (src/datadir/system-pin.ts: checked, created when
 * missing, never through a symbolic link); once the daemon listens, it writes the enrolled key id
 * and the address it really bound into that descriptor, and closes it. The dropped process keeps
 * the right to write that one file only, and only until then.
 */
import { closeSync } from 'node:fs';
import { loadConfig } from '../datadir/config.js';
import { openSystemPinForWriting, SystemPinError, writeSystemPinTo } from '../datadir/system-pin.js';

/** The accounts to pin, and whether those already pinned for the daemon stay (pin-accounts.ts chooses them). */
export interface PinAccounts {
  accounts: string[];
  keep: boolean;
}

/** An open pin file, waiting for the daemon's key and address. */
export interface DaemonPin {
  fd: number;
  file: string;
  user: string;
  /** The accounts the pin is for (docs/decisions.md §36). */
  accounts: PinAccounts;
}

/** openDaemonPin (root) opens the pin file for the service user NAME, or says why it cannot. */
export function openDaemonPin(env: NodeJS.ProcessEnv, user: string, accounts: PinAccounts): DaemonPin | { error: string } {
  try {
    const { fd, file } = openSystemPinForWriting(env);
    return { fd, file, user, accounts };
  } catch (error) {
    if (error instanceof SystemPinError) return { error: error.message };
    return { error: `the daemon pin cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}

/**
 * completeDaemonPin writes the daemon's key id and Variant A's address into the pin and closes it.
 * Before enrollment there is no key: the pin is left as it was, and the answer says so.
 */
export function completeDaemonPin(pin: DaemonPin, home: string, portA: number | undefined): { file: string; key_id: string; accounts: string[] } | { error: string } {
  let keyId: string | undefined;
  try {
    keyId = loadConfig(home).key_id;
  } catch {
    keyId = undefined;
  }
  if (keyId === undefined) {
    closeSync(pin.fd);
    return { error: `the daemon is not enrolled yet, so ${pin.file} does not pin it; enroll it (latch setup as ${pin.user}), then start it again with --user` };
  }
  const written = writeSystemPinTo(pin.fd, { key_id: keyId, ...(portA !== undefined && { url: `http://127.0.0.1:${portA}` }), data_dir: home, user: pin.user, accounts: pin.accounts.accounts }, pin.accounts.keep);
  const accounts = written.daemons.find((entry) => entry.user === pin.user)?.accounts ?? [];
  return { file: pin.file, key_id: keyId, accounts };
}
