/**
 * The names and modes of the data directory's files (docs/decisions.md §1), apart from home.ts:
 * the audit log, state.journal's file and the key files name their files from here, so the
 * audited core (SECURITY.md) reads these names without home.ts's location of the directory and
 * its cleaner of abandoned temporaries (docs/decisions.md §43).
 */
import path from 'node:path';

/** The names of the files Latch keeps in its data directory (docs/decisions.md §1). */
export const DATA_FILES = {
  token: 'daemon_token',
  deviceKey: 'device.key',
  // A new key staged by `latch setup` until config.json names it (see key-rollover.ts).
  deviceKeyNext: 'device.key.next',
  config: 'config.json',
  auditLog: 'audit.log',
  // The audit head records the last line's seq and hash, so truncating the log is detectable.
  auditHead: 'audit.head',
  // The daemon's durable state (idempotency memory; see src/datadir/state-store.ts).
  stateJournal: 'state.journal',
  // The owner's emergency brake: while it exists nothing is signed (see pause.ts).
  paused: 'paused',
  // The owner's spending policy (docs/decisions.md §15.3); absent means allow everything.
  policy: 'policy.json',
  // Written by `latch policy remove`: the owner meant policy.json to be gone (docs/decisions.md §17.4).
  policyRemoved: 'policy.removed',
  // The scrypt hash of the owner's approval passphrase (see approval-passphrase.ts).
  approvalPassphrase: 'approval_passphrase',
  // Held by the one daemon serving this directory, for its life (see daemon-lock.ts).
  daemonLock: 'daemon.lock',
  // Where the running daemon listens, for clients without LATCH_URL (see listen-file.ts).
  listen: 'listen.json',
  // The owner's registered passkeys, public keys only (see passkeys.ts).
  passkeys: 'passkeys.json',
  // The AP2 mandate key, P-256 (see mandate-key.ts; docs/ap2.md).
  mandateKey: 'mandate.key',
  // Public keys of retired mandate keys, listed in GET /ap2/jwks until their mandates have expired.
  mandateKeysRetired: 'mandate.retired.json',
} as const;

/**
 * The files of one holder in AGENTS_DIR, by suffix: an agent's token and record (agents.ts), and
 * the identity key of an agent or of the owner (src/identity/identity-key-file.ts). The writers
 * name their files from this table and the cleaner of abandoned temporaries reads it, so a new kind
 * of agent file cannot be written without its temporaries being cleaned.
 */
export const AGENT_FILE_SUFFIXES = { token: '.token', record: '.json', identity: '.identity' } as const;

/** The name of one known data-directory file. */
export type DataFileName = (typeof DATA_FILES)[keyof typeof DATA_FILES];

/** The mode of the data directory: owner only. */
export const HOME_DIR_MODE = 0o700;

/** The mode of every file in the data directory: owner read and write only. */
export const PRIVATE_FILE_MODE = 0o600;

/** dataFilePath returns the absolute path of a known file in the data directory. */
export function dataFilePath(home: string, name: DataFileName): string {
  return path.join(home, name);
}

/** knownDataFiles lists the absolute paths of every file Latch keeps in the data directory. */
export function knownDataFiles(home: string): string[] {
  return Object.values(DATA_FILES).map((name) => path.join(home, name));
}
