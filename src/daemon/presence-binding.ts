/**
 * The daemon's side of owner presence (docs/decisions.md §21, §25): which factors the owner has set
 * up (the approval passphrase, registered passkeys), the passphrase lockout and the owner sessions.
 */
import type { ApprovalDeps } from '../core/approval-deps.js';
import { OwnerPresence } from '../core/owner-presence.js';
import { OwnerSessions, OWNER_SESSION_SECONDS_MAX } from '../core/owner-sessions.js';
import { passkeysPath, readPasskeys, type StoredPasskey } from '../datadir/passkeys.js';
import type { DaemonServices } from './services.js';

/** bindPresence makes the owner's presence of one daemon from its approval passphrase and passkeys. */
export function bindPresence(services: DaemonServices, approvals: ApprovalDeps, nowSeconds: () => number): OwnerPresence {
  // Asked on every owner request: read again only when the file changes.
  const passkeys = services.watchedFile(passkeysPath(services.home), () => readPasskeys(services.home));
  return new OwnerPresence({
    // The passphrase file is looked at on each question (read again when it changed), so `latch approvals passphrase set|clear`
    // applies at once; an unsafe or damaged file throws (503), never "no factor".
    factors: [
      { name: 'passphrase', configured: () => approvals.passphrase() !== undefined, generation: () => approvals.passphrase()?.id },
      // A registered passkey (the owner console) is a factor like the passphrase (docs/decisions.md §25);
      // its generation is the set of credential ids, so removing or adding one ends owner sessions.
      { name: 'passkey', configured: () => passkeys().length > 0, generation: () => passkeyGeneration(passkeys()) },
    ],
    lockout: approvals.lockout,
    passphrase: approvals.passphrase,
    sessions: new OwnerSessions(() => services.config().owner_session_seconds ?? OWNER_SESSION_SECONDS_MAX),
    nowSeconds,
  });
}

/** passkeyGeneration names the registered passkeys without revealing anything secret (they are public keys). */
function passkeyGeneration(passkeys: readonly StoredPasskey[]): string | undefined {
  const ids = passkeys.map((key) => key.id);
  return ids.length === 0 ? undefined : ids.sort().join(',');
}
