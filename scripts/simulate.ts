/**
 * `npm run simulate -- --seeds N [--from S] [--every K]`: the crash simulator's long run
 * (test/simulation/, docs/decisions.md §33). Each seed's workload is crashed at every one of its
 * crash points when --every is given for it (the first K seeds; default 4), otherwise at 8 random
 * points. It prints the crash points explored, the seeds run and the operations lost, which must
 * be 0, and exits non-zero on any problem.
 */
import { exploreSeed } from '../test/simulation/simulate.js';
import { auditShapes } from '../test/simulation/world.js';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} takes a whole number`);
  return value;
}

const seeds = option('seeds', 50);
const from = option('from', 1);
const every = option('every', 4);
let explored = 0;
let acknowledged = 0;
let lost = 0;
let failedClosed = 0;
const problems: string[] = [];
const started = Date.now();
for (let seed = from; seed < from + seeds; seed++) {
  const report = await exploreSeed(seed, seed - from < every ? undefined : 8);
  explored += report.runs - 1;
  acknowledged += report.acknowledged;
  lost += report.lost;
  failedClosed += report.auditFailedClosed;
  problems.push(...report.problems);
}
for (const problem of problems.slice(0, 20)) console.log(problem);
console.log(`crash points explored: ${explored}`);
console.log(`seeds run: ${seeds} (from ${from}; every crash point of the first ${Math.min(every, seeds)})`);
console.log(`acknowledged outcomes checked: ${acknowledged}`);
console.log(`operations lost: ${lost}`);
console.log(`power losses after which audit.log's torn last line makes the daemon refuse to start (fails closed; the cut the refusal names is then made and every check run): ${failedClosed}`);
console.log(`problems: ${problems.length}`);
console.log(`time: ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exitCode = problems.length === 0 && lost === 0 ? 0 : 1;
const shapes = auditShapes;
console.log(`audit writer (daemon): ${shapes.bursts} bursts, ${shapes.commits} commits of ${shapes.lines} lines (deferred ones included), ${shapes.announcements} reservations announced, ${shapes.settles} settles; another appender took audit.lock ${shapes.otherInsideReservation} times inside a held reservation, ${shapes.otherAfterSettle} times after a settle; ${shapes.replaysWithAnchor} replays found an audit_anchor record (written with the next ledger record) and checked the log against it`);
