/**
 * The crash simulator (docs/decisions.md §33): runs a seed's workload (workload.ts) on the real
 * stores over a simulated disk (simulated-fs.ts), crashes it at a chosen write, fsync or rename,
 * replays the disk a power loss at that point leaves, and checks the model against the replay:
 * every acknowledged outcome is there, an unacknowledged one is whole or absent, budgets never
 * undercount, and audit.log and state.journal agree on every approval's decision.
 */
import { SeededRandom } from '../adversarial/seeded-random.js';
import { constants } from 'node:fs';
import { syncFiles, useSyncFileSystem } from '../../src/store/file-system.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { verifyAudit } from '../../src/verify/audit-verify.js';
import { assertAuditAppendable } from '../../src/datadir/audit-log.js';
import { SimulatedDisks } from './simulated-disks.js';
import { SimulatedFileSystem, type CrashKind } from './simulated-fs.js';
import { ABSENT, entryOutcome, Model, step } from './workload.js';
import { auditLines, auditRequestIds, auditShapes, openWorld, SIM_NOW, type World } from './world.js';

/** Operations per seed. */
export const OPERATIONS_PER_SEED = 36;

/** What one run found. */
export interface RunResult {
  /** Crash points the run passed (all of them, for a run that did not crash). */
  points: number;
  /** Operations acknowledged before the crash. */
  acknowledged: number;
  /** Acknowledged operations whose outcome the replay lost. */
  lost: number;
  /** Every problem found, as sentences. */
  problems: string[];
  /** Whether a power loss tore audit.log's last (unacknowledged) line, on which the daemon refuses to start. */
  auditFailedClosed: boolean;
}

/** runOnce runs seed's workload, crashing at crashAt (never when undefined), then replays and checks. */
export async function runOnce(seed: number, crashAt: number | undefined): Promise<RunResult> {
  const model = new Model();
  // A directory of its own for every run: a crashed process's late calls (its audit writer's
  // linger) must find their own dead disk, never a later run's.
  runs += 1;
  const directory = `/simulated-latch/run-${runs}-seed-${seed}-crash-${crashAt ?? 'none'}`;
  const fs = new SimulatedFileSystem(`${directory}-before`, crashAt, () => (model.crashed = true));
  disks.mount(fs);
  try {
    return await crashAndReplay(seed, crashAt, model, fs, `${directory}-after`);
  } finally {
    disks.unmount(fs.directory);
    disks.unmount(`${directory}-after`);
  }
}

/** The synchronous port of this process: every simulated data directory, the real file system for the rest. */
const disks = new SimulatedDisks();
let runs = 0;
useSyncFileSystem(disks);

async function crashAndReplay(seed: number, crashAt: number | undefined, model: Model, fs: SimulatedFileSystem, replayDirectory: string): Promise<RunResult> {
  const random = new SeededRandom(seed);
  let world: World | undefined;
  try {
    world = await openWorld(fs);
  } catch {
    // Crashed while opening: nothing was acknowledged.
  }
  for (let n = 0; world !== undefined && n < OPERATIONS_PER_SEED && !fs.crashed; ) {
    const running: Array<Promise<void>> = [];
    for (let concurrent = 1 + random.int(4); concurrent > 0 && n < OPERATIONS_PER_SEED; concurrent--) running.push(step(world, model, random, n++));
    await Promise.all(running);
  }
  if (world !== undefined && !fs.crashed) {
    // The daemon's close: the deferred lines written, audit.head settled (docs/decisions.md §41).
    try {
      await world.otherAppender.idle();
      await world.audit.idle();
      await Promise.all(model.background);
      await world.anchor.flush();
      await world.store.close();
    } catch {
      // Crashed while closing: what was acknowledged is checked below.
    }
  }
  model.crashed = true;
  const points = fs.counts.all;
  // A crash point is a kill (kill -9: the page cache survives) or a power loss, by the seed.
  const kind: CrashKind = crashAt !== undefined && (seed + crashAt) % 2 === 0 ? 'kill' : 'power';
  const disk = fs.afterCrash(new SeededRandom(seed * 7919 + (crashAt ?? 0)), replayDirectory, kind);
  disks.mount(disk);
  const problems: string[] = [];
  let replayed: World;
  try {
    replayed = await openWorld(disk);
  } catch (error) {
    return { points, acknowledged: 0, lost: 1, problems: [`the replay refused to start: ${(error as Error).message}`], auditFailedClosed: false };
  }
  let lost = 0;
  let acknowledged = 0;
  for (const [entity, expected] of model.expectations) {
    if (expected.acked !== ABSENT) acknowledged += 1;
    const seen = await observe(replayed, entity);
    if (seen === expected.acked || seen === expected.inFlight) continue;
    if (expected.acked !== ABSENT) lost += 1;
    problems.push(`${entity}: acknowledged ${expected.acked}, in flight ${expected.inFlight ?? 'nothing'}, replayed ${seen}`);
  }
  // After a kill the chain always verifies. After a power loss, a torn last line (never
  // acknowledged: its fdatasync had not returned) makes the daemon refuse to start until the owner
  // acts (fails closed, docs/cli.md): here the owner does what the refusal says, and the log must
  // then pass every check below with nothing acknowledged missing. Anything else is a problem.
  let verified = verifyAudit(disk.directory);
  const auditFailedClosed = !verified.ok && kind === 'power' && verified.problem?.reason.includes('incomplete (no final newline)') === true;
  if (auditFailedClosed) {
    const refused = cutTornLine(disk, problems);
    if (refused !== undefined) problems.push(`the torn last line's refusal: ${refused}`);
    verified = verifyAudit(disk.directory);
  }
  if (!verified.ok) problems.push(`audit.log does not verify after the ${kind}${auditFailedClosed ? ' and the named cut' : ''}: ${verified.problem?.reason ?? 'unknown'}`);
  // What the daemon checks before it signs again, with audit.head as the crash left it (a held
  // reservation included), and the anchor state.journal replayed: the log must reach it.
  {
    try {
      assertAuditAppendable(disk.directory);
      if (disk.fileBytes(`${disk.directory}/state.journal`)?.includes('"audit_anchor"') === true) auditShapes.replaysWithAnchor += 1;
      await replayed.anchor.confirm();
    } catch (error) {
      problems.push(`audit.log is refused at start after the ${kind}: ${(error as Error).message}`);
    }
  }
  problems.push(...budgetProblems(replayed, model), ...auditProblems(replayed, model));
  return { points, acknowledged, lost, problems, auditFailedClosed };
}

/**
 * cutTornLine does what the start's refusal of a torn last line tells the owner to do
 * (datadir/audit-log.ts, tornLog): cut audit.log back to the byte count it names. Returns why
 * that was not possible, or undefined once done.
 */
function cutTornLine(disk: SimulatedFileSystem, problems: string[]): string | undefined {
  const file = `${disk.directory}/audit.log`;
  let fix: string;
  try {
    assertAuditAppendable(disk.directory);
    return 'the daemon did not refuse the torn log';
  } catch (error) {
    if (!(error instanceof DataDirError)) throw error;
    fix = error.fix;
  }
  const whole = /truncate -s (\d+) /.exec(fix)?.[1];
  const bytes = disk.fileBytes(file);
  if (whole === undefined || bytes === undefined) return `it names no cut: ${fix}`;
  if (bytes.subarray(Number(whole)).includes(0x0a)) problems.push('the named cut removes a whole line, not only the torn one');
  const files = syncFiles();
  const cut = files.openSync(`${file}.cut`, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o600);
  files.writeSync(cut, bytes.subarray(0, Number(whole)));
  files.fsyncSync(cut);
  files.closeSync(cut);
  files.renameSync(`${file}.cut`, file);
  return undefined;
}

/** observe is how an entity shows after the replay, in the model's terms. */
async function observe(world: World, entity: string): Promise<string> {
  const [kind, id] = entity.split(/:(.*)/s) as [string, string];
  if (kind === 'entry') {
    const entry = world.ledger.get(id);
    return entry === undefined ? ABSENT : entryOutcome(entry.state, entry.usedMinor, entry.jws, entry.evidence?.mandates?.mandateId);
  }
  if (kind === 'held') return world.held.isHeld(id) ? 'held' : ABSENT;
  if (kind === 'audit') return auditRequestIds(world.fs).has(id) ? 'written' : ABSENT;
  if (kind === 'approval') return world.book.findByCallerKey({ kind: 'agent', name: 'shopper' }, id)?.status ?? ABSENT;
  if (kind === 'window') {
    try {
      const window = await world.windows.signOnce('scope', id, `fp-${id}`, SIM_NOW, () => Promise.reject(new Error('not remembered')));
      return window.payload.policy_id;
    } catch {
      return ABSENT;
    }
  }
  const failures = 5 - world.lockout.attemptsLeft(SIM_NOW, 'p1');
  return failures === 0 ? ABSENT : String(failures);
}

/** counted is what an entry in this outcome counts against budgets. */
function counted(outcome: string, amountMinor: number): number {
  const [state, used] = outcome.split('|');
  if (state === 'active') return amountMinor;
  if (state === 'used') return Number(used);
  return 0;
}

/** budgetProblems: the replayed ledger counts at least what the acknowledged outcomes count (entries settled at the crash). */
function budgetProblems(world: World, model: Model): string[] {
  let expected = 0;
  let replayed = 0;
  const settled = new Set<string>();
  for (const entry of model.entries) {
    const expectation = model.expect(`entry:${entry.policyId}`);
    if (expectation.inFlight !== undefined) continue;
    settled.add(entry.policyId);
    expected += counted(expectation.acked, entry.amountMinor);
  }
  for (const entry of world.ledger.since(0)) {
    if (!settled.has(entry.policyId)) continue;
    replayed += entry.state === 'active' ? entry.amountMinor : entry.state === 'used' ? (entry.usedMinor ?? entry.amountMinor) : 0;
  }
  return replayed < expected ? [`budgets undercount: the replayed ledger counts ${replayed}, the acknowledged outcomes ${expected}`] : [];
}

const DECISIONS: Record<string, string> = { approval_denied: 'denied', approval_approved: 'approved', approval_failed: 'failed' };

/** auditProblems: every acknowledged approval has its audit line, and every decision audited is the journal's. */
function auditProblems(world: World, model: Model): string[] {
  const problems: string[] = [];
  const lines = auditLines(world.fs);
  const audited = new Map<string, string>();
  for (const line of lines) audited.set(line.approval_id, DECISIONS[line.operation] ?? audited.get(line.approval_id) ?? 'pending_approval');
  // The journal is written before the audit line: whatever audit.log says happened, the journal has.
  // (A journal decision without its line is a crash between the two, never acknowledged: checked below.)
  for (const [approvalId, decision] of audited) {
    const status = world.book.get(approvalId)?.status;
    if (status === undefined || (decision !== 'pending_approval' && status !== decision)) problems.push(`audit.log says ${approvalId} is ${decision}, state.journal says ${status ?? 'nothing'}`);
  }
  for (const key of model.asks) {
    const acked = model.expect(`approval:${key}`).acked;
    if (acked === ABSENT) continue;
    const id = world.book.findByCallerKey({ kind: 'agent', name: 'shopper' }, key)?.id;
    if (id === undefined || !audited.has(id)) problems.push(`approval ${key} was acknowledged ${acked} without its audit line`);
    else if (acked !== 'pending_approval' && audited.get(id) !== acked && model.expect(`approval:${key}`).inFlight === undefined) problems.push(`approval ${key} was acknowledged ${acked}, audit.log says ${audited.get(id)}`);
  }
  return problems;
}

/** SeedReport sums the runs of one seed. */
export interface SeedReport {
  seed: number;
  crashPoints: number;
  runs: number;
  acknowledged: number;
  lost: number;
  problems: string[];
  /** Runs after which a power loss left audit.log with a torn last line (the daemon fails closed). */
  auditFailedClosed: number;
}

/** exploreSeed crashes seed's workload at every crash point in turn (or at `sample` random ones). */
export async function exploreSeed(seed: number, sample?: number): Promise<SeedReport> {
  const clean = await runOnce(seed, undefined);
  const report: SeedReport = { seed, crashPoints: clean.points, runs: 1, acknowledged: clean.acknowledged, lost: clean.lost, problems: clean.problems.map((problem) => `seed ${seed}, no crash: ${problem}`), auditFailedClosed: clean.auditFailedClosed ? 1 : 0 };
  const random = new SeededRandom(seed ^ 0x5eed);
  const points = sample === undefined ? Array.from({ length: clean.points }, (_, i) => i + 1) : Array.from({ length: sample }, () => 1 + random.int(clean.points));
  for (const point of points) {
    const result = await runOnce(seed, point);
    report.runs += 1;
    report.acknowledged += result.acknowledged;
    report.lost += result.lost;
    if (result.auditFailedClosed) report.auditFailedClosed += 1;
    report.problems.push(...result.problems.map((problem) => `seed ${seed}, crash at point ${point}: ${problem}`));
  }
  return report;
}
