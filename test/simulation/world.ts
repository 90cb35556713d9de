/**
 * One simulated daemon's durable state: the real stores of src/core (the authorization ledger, the
 * approval book, held windows, the signed-window cache, the passphrase lockout) registered on the
 * real StateStore over a simulated file system, and the approval flows of src/core/approvals.ts
 * bound to them. The audit log is the real writer's (src/datadir/audit-writer.ts), whose file
 * operations go through the synchronous port, served by the same simulated disk.
 */
import { ApprovalBook } from '../../src/core/approval-book.js';
import type { ApprovalDeps } from '../../src/core/approval-deps.js';
import { StoredAuthorizationLedger } from '../../src/core/authorization-ledger.js';
import type { CoreDeps } from '../../src/core/core-deps.js';
import { HeldWindows } from '../../src/core/held-windows.js';
import { SignedWindowCache } from '../../src/core/signed-window-cache.js';
import { StateStore } from '../../src/datadir/state-store.js';
import { PassphraseLockout } from '../../src/owner/passphrase-lockout.js';
import { createAuditWriter, type AuditWriter } from '../../src/datadir/audit-writer.js';
import { parseHeadFile } from '../../src/datadir/audit-head.js';
import { auditAnchorKeeper, type AuditAnchorKeeper } from '../../src/daemon/audit-anchor-keeper.js';
import { approvalAuditEntry } from '../../src/daemon/approval-binding.js';
import type { SimulatedFileSystem } from './simulated-fs.js';
/** The simulation's clock: fixed, so nothing expires while a seed runs. */
export const SIM_NOW = 1_800_000_000;
/** Small limits, so that the workload compacts many times. */
export const SIM_LIMITS = { recordBytesMax: 64 * 1024, fileBytesMax: 64 * 1024 * 1024, compactionBytesMin: 3 * 1024 };

/** The simulated daemon's bound on a deferred audit line, and its hold of audit.head's reservation. */
export const SIM_DEFER_MS = 2;
export const SIM_RESERVATION_HOLD_MS = 4;

/** What the audit writers did over every run of this process, so the report shows what was exercised. */
export const auditShapes = { bursts: 0, commits: 0, lines: 0, announcements: 0, settles: 0, otherInsideReservation: 0, otherAfterSettle: 0, replaysWithAnchor: 0 };

/** readHeadPending says whether audit.head currently announces a reservation. */
function readHeadPending(fs: SimulatedFileSystem): boolean {
  const text = fs.fileBytes(`${fs.directory}/audit.head`)?.toString('utf8');
  return text === undefined ? false : parseHeadFile(text)?.head.pending !== undefined;
}

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
  /** The daemon's audit writer: deferred lines, and audit.head's reservation held between bursts. */
  audit: AuditWriter;
  /** Another process's appender (a CLI command): takes audit.lock between the daemon's bursts, settles at its end. */
  otherAppender: AuditWriter;
  /** The audit anchor in state.journal, as the daemon keeps it: its record joins the next ledger record's write. */
  anchor: AuditAnchorKeeper;
  compactionsFailed: number;
}

/** openWorld registers the stores on a StateStore over fs, as core-binding does, and opens it (replay). */
export async function openWorld(fs: SimulatedFileSystem): Promise<World> {
  let compactionsFailed = 0;
  const store = new StateStore(`${fs.directory}/state.journal`, () => SIM_NOW, SIM_LIMITS, () => (compactionsFailed += 1), fs);
  const ledger = new StoredAuthorizationLedger(store, () => SIM_NOW);
  const book = new ApprovalBook(store);
  const lockout = new PassphraseLockout(store);
  const held = new HeldWindows(store);
  const windows = SignedWindowCache.durable(store);
  const anchor = auditAnchorKeeper(fs.directory, store, () => undefined);
  await store.open();
  // Short bounds, so that a seed sees deferred lines both joining a commit and written by their
  // timer, and held reservations both reused and settled (docs/decisions.md §41).
  const audit = createAuditWriter(fs.directory, {
    deferMs: SIM_DEFER_MS,
    onBurst: () => (auditShapes.bursts += 1),
    onAnnounce: () => (auditShapes.announcements += 1),
    onSettle: () => (auditShapes.settles += 1),
    onCommit: (entries) => (auditShapes.commits += 1, auditShapes.lines += entries),
  });
  audit.holdReservation(SIM_RESERVATION_HOLD_MS);
  const otherAppender = createAuditWriter(fs.directory, {
    // Inside the daemon's held reservation when audit.head still announces one as it takes the lock.
    onBurst: () => (readHeadPending(fs) ? (auditShapes.otherInsideReservation += 1) : (auditShapes.otherAfterSettle += 1)),
  });
  const approvals: ApprovalDeps = {
    book,
    checkPassphrase: async () => 'not_set',
    audit: async (record) => {
      await audit.append(approvalAuditEntry(record));
    },
    pendingMaxPerCaller: () => 1_000,
    notify: () => undefined,
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
    audit,
    otherAppender,
    anchor,
    get compactionsFailed() {
      return compactionsFailed;
    },
  };
}

/** auditRequestIds reads the request_id of every whole line of audit.log (the workload's own lines are named by it). */
export function auditRequestIds(fs: SimulatedFileSystem): Set<string> {
  const text = fs.fileBytes(`${fs.directory}/audit.log`)?.toString('utf8') ?? '';
  const ids = new Set<string>();
  for (const line of text.slice(0, text.lastIndexOf('\n') + 1).split('\n')) {
    if (line === '') continue;
    const id = (JSON.parse(line) as { request_id?: unknown }).request_id;
    if (typeof id === 'string') ids.add(id);
  }
  return ids;
}

/**
 * auditLines reads the approval lines of audit.log's whole lines (a torn last line, which a power
 * loss can leave and the daemon refuses to start on, is no line).
 */
export function auditLines(fs: SimulatedFileSystem): Array<{ operation: string; approval_id: string }> {
  const text = fs.fileBytes(`${fs.directory}/audit.log`)?.toString('utf8') ?? '';
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { operation: string; approval_id: string })
    .filter((line) => line.operation.startsWith('approval_'));
}
