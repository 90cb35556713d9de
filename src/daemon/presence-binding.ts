/**
 * The daemon's side of owner presence (docs/decisions.md §21, §25): which factors the owner has set
 * up (the approval passphrase, registered passkeys), the passphrase lockout and the owner sessions.
 */
import { approvalPassphraseId, approvalPassphrasePath, readApprovalPassphrase, verifyApprovalPassphraseAsync, type StoredApprovalPassphrase } from '../datadir/approval-passphrase.js';
import { OwnerPresence, type OwnerPassphrase } from '../owner/owner-presence.js';
import { OwnerSessions, OWNER_SESSION_SECONDS_MAX } from '../owner/owner-sessions.js';
import { PassphraseLockout } from '../owner/passphrase-lockout.js';
import { passkeysPath, readPasskeys, type StoredPasskey } from '../datadir/passkeys.js';
import type { DaemonServices } from './services.js';

/** bindPresence makes the owner's presence of one daemon from its approval passphrase and passkeys. */
export function bindPresence(services: DaemonServices, nowSeconds: () => number): OwnerPresence {
  const passphrase = ownerPassphrase(services);
  // Asked on every owner request: read again only when the file changes.
  const passkeys = services.watchedFile(passkeysPath(services.home), () => readPasskeys(services.home));
  return new OwnerPresence({
    // The passphrase file is looked at on each question (read again when it changed), so `latch approvals passphrase set|clear`
    // applies at once; an unsafe or damaged file throws (503), never "no factor".
    factors: [
      { name: 'passphrase', configured: () => passphrase() !== undefined, generation: () => passphrase()?.id },
      // A registered passkey (the owner console) is a factor like the passphrase (docs/decisions.md §25);
      // its generation is the set of credential ids, so removing or adding one ends owner sessions.
      { name: 'passkey', configured: () => passkeys().length > 0, generation: () => passkeyGeneration(passkeys()) },
    ],
    lockout: new PassphraseLockout(services.stateStore),
    passphrase,
    sessions: new OwnerSessions(() => services.config().owner_session_seconds ?? OWNER_SESSION_SECONDS_MAX),
    nowSeconds,
  });
}

/**
 * ownerPassphrase returns the getter of the owner's passphrase. The file is looked at on every
 * call (services re-read it when it changed), so `latch approvals passphrase set|clear` needs no
 * restart; an unsafe or damaged file throws (503), so approvals fail closed rather than needing no
 * passphrase. The answer is kept for as long as the stored hash is the same one, so that the
 * question every owner request asks (is presence configured?) costs no read and no hash.
 */
function ownerPassphrase(services: DaemonServices): () => OwnerPassphrase | undefined {
  const storedPassphrase = services.watchedFile(approvalPassphrasePath(services.home), () => readApprovalPassphrase(services.home));
  let known: { stored: StoredApprovalPassphrase; answer: OwnerPassphrase } | undefined;
  return () => {
    const stored = storedPassphrase();
    if (stored === undefined) return undefined;
    if (known?.stored !== stored) known = { stored, answer: { id: approvalPassphraseId(stored), verify: (candidate) => verifyApprovalPassphraseAsync(stored, candidate) } };
    return known.answer;
  };
}

/** passkeyGeneration names the registered passkeys without revealing anything secret (they are public keys). */
function passkeyGeneration(passkeys: readonly StoredPasskey[]): string | undefined {
  const ids = passkeys.map((key) => key.id);
  return ids.length === 0 ? undefined : ids.sort().join(',');
}
