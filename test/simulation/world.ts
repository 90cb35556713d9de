/**
 * One simulated daemon's durable state: the real stores of src/core (the authorization ledger, the
 * approval book, held windows, the signed-window cache, the passphrase lockout) registered on the
 * real StateStore over a simulated file system, and the approval flows of src/core/approvals.ts
 * bound to them. The audit log is a file on the same simulated disk, written line by line and
 * fsynced before an audit resolves, as the real writer promises.
 */
import { ApprovalBook } from '../../src/core/approval-book.js';
import type { ApprovalAudit, ApprovalDeps } from '../../src/core/approval-deps.js';
import { StoredAuthorizationLedger } from '../../src/core/authorization-ledger.js';
import type { CoreDeps } from '../../src/core/core-deps.js';
import { HeldWindows } from '../../src/core/held-windows.js';
import { SignedWindowCache } from '../../src/core/signed-window-cache.js';
import { StateStore } from '../../src/datadir/state-store.js';
import { PassphraseLockout } from '../../src/owner/passphrase-lockout.js';
import { OPEN_APPEND } from '../../src/store/journal-files.js';
import { constants } from 'node:fs';
import type { SimulatedFileSystem } from './simulated-fs.js';

export const SIM_DIRECTORY = '/simulated-latch-home';
export const JOURNAL_FILE = `${SIM_DIRECTORY}/state.journal`;
export const AUDIT_FILE = `${SIM_DIRECTORY}/audit.log`;
/** The simulation's clock: fixed, so nothing expires while a seed runs. */
export const SIM_NOW = 1_800_000_000;
/** Small limits, so that the workload compacts many times. */
export const SIM_LIMITS = { recordBytesMax: 64 * 1024, fileBytesMax: 64 * 1024 * 1024, compactionBytesMin: 3 * 1024 };

/** A World is one process's stores over one simulated disk. */
export interface World {
  fs: SimulatedFileSystem;
  store: StateStore;
  ledger: StoredAuthorizationLedger;
  book: ApprovalBook;
  held: HeldWindows;
  windows: SignedWindowCache;
  lockout: PassphraseLockout;
  /** CoreDeps enough for src/core/approvals.ts's flows. */
  deps: CoreDeps;
  approvals: ApprovalDeps;
  compactionsFailed: number;
}

/** openWorld registers the stores on a StateStore over fs, as core-binding does, and opens it (replay). */
export async function openWorld(fs: SimulatedFileSystem): Promise<World> {
  let compactionsFailed = 0;
  const store = new StateStore(JOURNAL_FILE, () => SIM_NOW, SIM_LIMITS, () => (compactionsFailed += 1), fs);
  const ledger = new StoredAuthorizationLedger(store, () => SIM_NOW);
  const book = new ApprovalBook(store);
  const lockout = new PassphraseLockout(store);
  const held = new HeldWindows(store);
  const windows = SignedWindowCache.durable(store);
  await store.open();
  const approvals: ApprovalDeps = {
    book,
    checkPassphrase: async () => 'not_set',
    audit: (record) => appendAuditLine(fs, record),
    pendingMaxPerCaller: () => 1_000,
  };
  const deps = { nowSeconds: () => SIM_NOW, approvals, authorizations: ledger, heldWindows: held, signedWindows: windows } as unknown as CoreDeps;
  return {
    fs,
    store,
    ledger,
    book,
    held,
    windows,
    lockout,
    deps,
    approvals,
    get compactionsFailed() {
      return compactionsFailed;
    },
  };
}

/** appendAuditLine appends one line naming the approval and the operation, durable when it resolves. */
async function appendAuditLine(fs: SimulatedFileSystem, record: ApprovalAudit): Promise<void> {
  const handle = await fs.open(AUDIT_FILE, OPEN_APPEND | constants.O_CREAT);
  const line = Buffer.from(`${JSON.stringify({ operation: record.operation, approval_id: record.approval.id, policy_id: record.approval.authorization?.policyId ?? null })}\n`);
  await handle.write(line, 0, line.length);
  await handle.datasync();
  // A new audit.log's name is durable with its directory, as the real writer's creation is.
  if (fs.fileBytes(AUDIT_FILE)?.length === line.length) await fs.syncDirectory(SIM_DIRECTORY);
}

/** auditLines reads the audit lines a crash left: whole lines only (a torn last line is no line). */
export function auditLines(fs: SimulatedFileSystem): Array<{ operation: string; approval_id: string; policy_id: string | null }> {
  const text = fs.fileBytes(AUDIT_FILE)?.toString('utf8') ?? '';
  const whole = text.slice(0, text.lastIndexOf('\n') + 1);
  return whole
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { operation: string; approval_id: string; policy_id: string | null });
}
