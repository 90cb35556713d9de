/**
 * The accounts a daemon's pin is for (docs/decisions.md §36): the accounts `--for` names (each must
 * exist), else the account that ran sudo, added to those the daemon's pin already named. Root's pin
 * redirects only the accounts it names, so a second person's setup on the same machine never
 * reaches the first person's commands.
 */
import { lookUpUser, ServiceUserError, validUserName } from './system-account.js';
import type { PinAccounts } from './daemon-pin.js';

export type { PinAccounts } from './daemon-pin.js';

/** parseForFlag splits `--for alice,bob` (repeatable) into names, or undefined when not given. */
export function parseForFlag(values: string | string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  const names = (Array.isArray(values) ? values : [values]).flatMap((value) => value.split(',')).map((name) => name.trim()).filter((name) => name !== '');
  return names;
}

/**
 * pinAccounts checks the accounts `--for` names (each an existing account other than root and the
 * service user), or falls back to $SUDO_USER, keeping what the pin already named.
 */
export function pinAccounts(env: NodeJS.ProcessEnv, serviceUser: string, named: string[] | undefined): PinAccounts {
  if (named !== undefined) {
    for (const name of named) {
      if (!validUserName(name)) throw new ServiceUserError(`--for "${name}" is not a user name Latch accepts`);
      const account = lookUpUser(name);
      if (account === undefined) throw new ServiceUserError(`--for ${name}: there is no such account`);
      if (account.uid === 0 || name === serviceUser) throw new ServiceUserError(`--for ${name}: the pin is for the accounts that use the daemon, not root or the service user itself`);
    }
    return { accounts: named, keep: false };
  }
  const sudoUser = env['SUDO_USER'];
  const owner = sudoUser !== undefined && validUserName(sudoUser) ? lookUpUser(sudoUser) : undefined;
  return { accounts: owner !== undefined && owner.uid !== 0 && owner.name !== serviceUser ? [owner.name] : [], keep: true };
}
