/**
 * The separate-user setup (docs/decisions.md §21): started as root with `--user NAME`, the daemon
 * creates or checks its data directory for NAME, then drops supplementary groups, gid and uid to
 * NAME before it reads any data file or opens a listener. After the drop nothing runs as root, and
 * nothing that runs as the owner can read the key, the tokens, the policy or the journals.
 */
import { closeSync, constants, fchownSync, fstatSync, lstatSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { openDaemonPin, type DaemonPin } from './daemon-pin.js';
import { pinAccounts } from './pin-accounts.js';
import { lookUpUser, ServiceUserError, SYSTEM_DATA_DIR, type ServiceUser } from './system-account.js';

export { DEFAULT_SERVICE_USER, SYSTEM_DATA_DIR, ServiceUserError, lookUpUser, validUserName, type ServiceUser } from './system-account.js';

/** requireRoot refuses to go on unless this process runs as root. */
export function requireRoot(flag: string): void {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) throw new ServiceUserError(`${flag} needs root: run it with sudo (it drops to the service user before reading any data)`);
}

/**
 * prepareDataDirFor creates home (0700, owned by the user) when it is missing, and refuses one
 * that is a symbolic link or owned by anyone else. Its parent must exist.
 */
export function prepareDataDirFor(home: string, user: ServiceUser): void {
  if (!path.isAbsolute(home)) throw new ServiceUserError(`the data directory must be an absolute path (${home})`);
  let stats;
  try {
    stats = lstatSync(home);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(home, { mode: 0o700 });
    // The new directory is given away through a descriptor opened without following links: had
    // someone who controls the parent swapped it for a link meanwhile, nothing else is chowned.
    const fd = openSync(home, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    try {
      const made = fstatSync(fd);
      if (!made.isDirectory() || made.uid !== 0) throw new ServiceUserError(`${home} changed while it was being created; nothing was given to ${user.name}`);
      fchownSync(fd, user.uid, user.gid);
    } finally {
      closeSync(fd);
    }
    return;
  }
  if (stats.isSymbolicLink() || !stats.isDirectory()) throw new ServiceUserError(`${home} is not a directory (a symbolic link is refused)`);
  if (stats.uid !== user.uid) throw new ServiceUserError(`${home} is owned by uid ${stats.uid}, not by ${user.name} (uid ${user.uid}); choose another LATCH_HOME or chown it yourself`);
}

/**
 * dropTo drops supplementary groups, then the gid, then the uid to user's, and checks that root
 * cannot be taken back. The order matters: once the uid is dropped the groups can no longer be.
 */
export function dropTo(user: ServiceUser): void {
  if (typeof process.setgroups !== 'function' || typeof process.setgid !== 'function' || typeof process.setuid !== 'function') {
    throw new ServiceUserError('this platform cannot change the process user');
  }
  process.setgroups([]);
  process.setgid(user.gid);
  process.setuid(user.uid);
  const ids = [process.getuid?.(), process.geteuid?.(), process.getgid?.(), process.getegid?.()];
  if (ids[0] !== user.uid || ids[1] !== user.uid || ids[2] !== user.gid || ids[3] !== user.gid) throw new ServiceUserError('the drop to the service user did not take effect');
  let regained = false;
  try {
    process.setuid(0);
    regained = true;
  } catch {
    // Expected: an unprivileged process cannot become root again.
  }
  if (regained) throw new Error('dropTo: the process could become root again');
}

/**
 * becomeServiceUser is the whole `--user NAME` step: root, the account, the data directory, the
 * owners' pin opened (for the accounts `--for` names, else $SUDO_USER's), the drop. It returns the data directory the daemon then uses (LATCH_HOME,
 * else the user's home when that is the system data directory, else ~NAME/.latch) and the pin to
 * complete once the daemon listens, and sets HOME and USER to the account's.
 */
export function becomeServiceUser(name: string, env: NodeJS.ProcessEnv, forAccounts?: string[]): { home: string; pin: DaemonPin | { error: string } } {
  requireRoot('--user');
  const user = lookUpUser(name);
  if (user === undefined) throw new ServiceUserError(`there is no user "${name}" (latch service install --system creates one)`);
  if (user.uid === 0) throw new ServiceUserError('--user must name an account other than root');
  const latchHome = env['LATCH_HOME'];
  const home = latchHome !== undefined && latchHome !== '' ? latchHome : user.home === SYSTEM_DATA_DIR ? SYSTEM_DATA_DIR : path.join(user.home, '.latch');
  const accounts = pinAccounts(env, user.name, forAccounts);
  prepareDataDirFor(home, user);
  // Opened as root, written once the daemon listens: the owners' pin (docs/decisions.md §30, §36).
  const pin = openDaemonPin(env, user.name, accounts);
  dropTo(user);
  env['HOME'] = user.home;
  env['USER'] = user.name;
  env['LATCH_HOME'] = home;
  return { home, pin };
}
