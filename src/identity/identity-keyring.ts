/**
 * The daemon's view of the identity keys: each holder's key is read from its file again whenever
 * the file changes (one lstat per use, as for the daemon token), so a rotation or a removal takes
 * effect at the next signature, while an unchanged key keeps the expanded form signing reuses.
 */
import { existsSync } from 'node:fs';
import type { SigningKey } from '../crypto/signing-key.js';
import { reloadOnChange } from '../daemon/reload-on-change.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import { LatchError } from '../errors/latch-error.js';
import { OWNER_IDENTITY } from '../signer/key-admin.js';
import { ensureIdentityKey, identityHolders, identityKeyPath, type IdentityHolder } from './identity-keys.js';

/** The identity keys of one data directory. */
export interface IdentityKeyring {
  /** keyOf returns the holder's key, made on first use; a holder that is no agent (any more) is refused. */
  keyOf(holder: IdentityHolder): SigningKey;
  /** all returns every current holder's key: the owner first, then the agents, sorted. */
  all(): Array<{ holder: IdentityHolder; key: SigningKey }>;
  /** existing is like all, but makes no key: only the holders whose key file exists already. */
  existing(): Array<{ holder: IdentityHolder; key: SigningKey }>;
}

/** identityKeyring builds the keyring of a data directory. */
export function identityKeyring(home: string): IdentityKeyring {
  const getters = new Map<IdentityHolder, () => SigningKey>();
  const keyOf = (holder: IdentityHolder): SigningKey => {
    let getter = getters.get(holder);
    if (getter === undefined) {
      getter = reloadOnChange(identityKeyPath(home, holder), () => ensureIdentityKey(home, holder));
      getters.set(holder, getter);
    }
    try {
      return getter();
    } catch (error) {
      // An agent removed after its token was accepted has no key any more: its token is dead.
      if (error instanceof DataDirError && error.code === 'missing' && holder !== OWNER_IDENTITY) {
        getters.delete(holder);
        throw new LatchError('invalid_bearer_token');
      }
      throw error;
    }
  };
  const collect = (onlyExisting: boolean) => {
      const keys: Array<{ holder: IdentityHolder; key: SigningKey }> = [];
      for (const holder of identityHolders(home)) {
        if (onlyExisting && !existsSync(identityKeyPath(home, holder))) continue;
        try {
          keys.push({ holder, key: keyOf(holder) });
        } catch (error) {
          // An agent removed while the list was read is simply not in it.
          if (error instanceof LatchError && error.code === 'invalid_bearer_token') continue;
          throw error;
        }
      }
      return keys;
  };
  return { keyOf, all: () => collect(false), existing: () => collect(true) };
}
