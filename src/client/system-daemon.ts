/**
 * Whether a client's data directory belongs to the daemon root pinned, or to an owner of it
 * (docs/decisions.md §30). In the separate-user setup the owner's own LATCH_HOME holds nothing of
 * the daemon's, and every program running as the owner can write there: the owner's client then
 * takes the daemon's key and address from root's pin only, and calls as the owner only with a
 * session opened with the passphrase, never with a daemon_token file found in that directory.
 */
import path from 'node:path';
import { readSystemPin, SystemPinError, type SystemPin } from '../datadir/system-pin.js';

/**
 * systemDaemonOf returns root's pin when home is not the pinned daemon's own data directory (the
 * caller is an owner or agent of the system daemon), and undefined when there is no pin or home is
 * the daemon's (root or the service user). An untrusted pin counts as none here; every check of
 * the daemon's key reads it again and fails closed.
 */
export function systemDaemonOf(home: string, env: NodeJS.ProcessEnv): SystemPin | undefined {
  let pin: SystemPin | undefined;
  try {
    pin = readSystemPin(env);
  } catch (error) {
    if (error instanceof SystemPinError) return undefined;
    throw error;
  }
  if (pin === undefined || path.resolve(home) === path.resolve(pin.data_dir)) return undefined;
  return pin;
}
