/**
 * System accounts as the separate-user setup names them (docs/decisions.md §21, §36): what a user
 * name may be, how an account is looked up, and the refusal both the service user's and the pinned
 * accounts' checks give.
 */
import { execFileSync } from 'node:child_process';

/** A system account as /etc/passwd (or NSS) describes it. */
export interface ServiceUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** What may be a user name here: the portable POSIX set, so it can never be read as an option. */
const USER_NAME = /^[a-z_][a-z0-9_-]{0,31}$/;

/** The default system user of `latch service install --system`. */
export const DEFAULT_SERVICE_USER = 'latch';
/** The data directory of the system service on Linux (the system user's home). */
export const SYSTEM_DATA_DIR = '/var/lib/latch';

/** ServiceUserError is a refusal of the separate-user setup, with what to do. */
export class ServiceUserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServiceUserError';
  }
}

/** validUserName reports whether name is a user name Latch accepts. */
export function validUserName(name: string): boolean {
  return USER_NAME.test(name);
}

/**
 * lookUpUser returns the account NAME (getent passwd, so NSS users count), or undefined when
 * there is none.
 */
export function lookUpUser(name: string): ServiceUser | undefined {
  if (!validUserName(name)) throw new ServiceUserError(`"${name}" is not a user name Latch accepts (a-z, 0-9, _ and -, at most 32)`);
  let line: string;
  try {
    line = execFileSync('getent', ['passwd', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
  const fields = line.split(':');
  const uid = Number(fields[2]);
  const gid = Number(fields[3]);
  const home = fields[5] ?? '';
  if (fields[0] !== name || !Number.isSafeInteger(uid) || !Number.isSafeInteger(gid)) return undefined;
  return { name, uid, gid, home };
}
