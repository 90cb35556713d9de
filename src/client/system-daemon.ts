/**
 * Whether a client's data directory belongs to a daemon root pinned, or to an owner of it
 * (docs/decisions.md §30, §36). In the separate-user setup the owner's own LATCH_HOME holds nothing
 * of the daemon's, and every program running as the owner can write there: the owner's client then
 * takes the daemon's key and address from root's pin only, and calls as the owner only with a
 * session opened with the passphrase, never with a daemon_token file found in that directory.
 *
 * Root's pin names the accounts each daemon is for; an account it does not name keeps its own
 * setup (its own same-user daemon, LATCH_HOME, LATCH_URL) as if there were no pin. For an account
 * it names, the pin wins over everything in the environment: LATCH_HOME and LATCH_URL can be set
 * by any program running as that account (a line in ~/.bashrc), so they may move the address but
 * never the key the daemon must prove.
 */
import os from 'node:os';
import path from 'node:path';
import { readSystemPins, SystemPinError, systemPinPath, type SystemPin } from '../datadir/system-pin.js';

/** Which of root's pins applies to this account, and why (what `latch doctor` reports). */
export interface PinChoice {
  /** The pin file. */
  file: string;
  /** The daemon this account's commands go to, or undefined when the pin is not for it. */
  pin: SystemPin | undefined;
  /** Why, in a sentence. */
  why: string;
}

/** currentAccountName is the name of the account this process runs as, or undefined when it has none. */
export function currentAccountName(): string | undefined {
  try {
    return os.userInfo().username;
  } catch {
    return undefined;
  }
}

/**
 * systemPinChoice says which daemon of root's pin applies to this account with this data
 * directory, or undefined when there is no pin file. It throws SystemPinError when the file
 * cannot be trusted. The daemon's own account or data directory is never redirected; an entry
 * naming the account wins over an entry that names none (an older Latch's pin, for every account).
 */
export function systemPinChoice(home: string, env: NodeJS.ProcessEnv, account: string | undefined = currentAccountName()): PinChoice | undefined {
  const pins = readSystemPins(env);
  if (pins === undefined) return undefined;
  const file = systemPinPath(env);
  const who = account ?? 'this account (no name)';
  const own = pins.daemons.find((pin) => path.resolve(home) === path.resolve(pin.data_dir) || (account !== undefined && account === pin.user));
  if (own !== undefined) return { file, pin: undefined, why: `${who} is the pinned daemon's own (user ${own.user}, data in ${own.data_dir}): it uses that data directory directly` };
  const named = account === undefined ? undefined : pins.daemons.find((pin) => pin.accounts?.includes(account) === true);
  if (named !== undefined) return { file, pin: named, why: `${file} names ${who} for the daemon of ${named.user}` };
  const everyone = pins.daemons.find((pin) => pin.accounts === undefined);
  if (everyone !== undefined) {
    return { file, pin: everyone, why: `${file} was written by an older Latch and names no accounts, so it applies to every account; pin again to name them: sudo latch service install --system --force --for NAME` };
  }
  const listed = pins.daemons.map((pin) => `${pin.user}: ${pin.accounts !== undefined && pin.accounts.length > 0 ? pin.accounts.join(', ') : 'no account'}`).join('; ');
  return { file, pin: undefined, why: `${file} does not name ${who} (it pins ${listed}), so this account uses its own LATCH_HOME and LATCH_URL` };
}

/**
 * systemDaemonOf returns the pinned daemon this account's commands go to (the caller is an owner
 * or agent of a system daemon), and undefined when there is no pin, the pin is not for this
 * account, or home is the daemon's (root or the service user). An untrusted pin counts as none
 * here; every check of the daemon's key reads it again and fails closed.
 */
export function systemDaemonOf(home: string, env: NodeJS.ProcessEnv): SystemPin | undefined {
  try {
    return systemPinChoice(home, env)?.pin;
  } catch (error) {
    if (error instanceof SystemPinError) return undefined;
    throw error;
  }
}
