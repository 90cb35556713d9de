/**
 * What the benchmark reports: one Figure per table row. Each has the value measured for Latch,
 * the same quantity for a baseline measured in the same run, their ratio, and the goal when
 * the issue sets one. The JSON output is exactly these objects.
 */

/** A goal on the ratio (`ratio_at_least`, `ratio_at_most`) or on the value itself. */
export interface Goal {
  kind: 'ratio_at_least' | 'ratio_at_most' | 'value_at_most' | 'added_at_most';
  limit: number;
}

export interface Figure {
  /** The section number of the issue (1..5), 6 for the audit-append rows, 7 for the spending policy, 8 for history, 9 for evidence packs, 10 for agent identity signing, 11 for owner presence, 12 for the owner console. */
  section: number;
  /** What is measured, e.g. `POST /sign-card-policy-window req/s (8 clients)`. */
  name: string;
  unit: 'req/s' | 'ms' | 'MiB' | 'ops/s' | 'MB/s';
  value: number;
  /** The baseline's value, and what the baseline is. */
  baseline: number;
  baselineName: string;
  /** value / baseline. */
  ratio: number;
  goal?: Goal;
  /** Whether the goal is met; absent without a goal. */
  met?: boolean;
  /** Anything the reader needs to interpret the row (requests counted, errors, ...). */
  note?: string;
}

/** figure builds a row, computing the ratio and whether its goal is met. */
export function figure(row: Omit<Figure, 'ratio' | 'met'>): Figure {
  const ratio = row.value / row.baseline;
  const result: Figure = { ...row, ratio };
  if (row.goal !== undefined) result.met = goalMet(row.goal, row.value, row.baseline, ratio);
  return result;
}

function goalMet(goal: Goal, value: number, baseline: number, ratio: number): boolean {
  switch (goal.kind) {
    case 'ratio_at_least':
      return ratio >= goal.limit;
    case 'ratio_at_most':
      return ratio <= goal.limit;
    case 'value_at_most':
      return value <= goal.limit;
    case 'added_at_most':
      return value - baseline <= goal.limit;
  }
}

/** goalText writes a goal the way the table shows it. */
export function goalText(goal: Goal | undefined, unit: string): string {
  if (goal === undefined) return '';
  switch (goal.kind) {
    case 'ratio_at_least':
      return `>= ${goal.limit}x`;
    case 'ratio_at_most':
      return `<= ${goal.limit}x`;
    case 'value_at_most':
      return `<= ${goal.limit} ${unit}`;
    case 'added_at_most':
      return `+<= ${goal.limit} ${unit}`;
  }
}

/**
 * A daemon under load: its label (see LatchUnderTest), the port of its A listener, and the
 * bearer token it wrote at this start (every start replaces the token).
 */
export interface DaemonTarget {
  label: string;
  port: number;
  token: string;
  /** The daemon's process, whose CPU time per request the rounds measure. */
  pid?: number;
}

/**
 * cpuRows reports each daemon's CPU time per request (its process, all threads, /proc) against
 * the first daemon's, measured in the same alternating rounds: with --compare, a ratio above 1
 * is the compared tree costing more CPU per request than this one.
 */
export function cpuRows(section: number, label: string, daemons: readonly DaemonTarget[], cpuOf: (daemon: DaemonTarget) => number | undefined): Figure[] {
  const first = daemons[0];
  const baseline = first === undefined ? undefined : cpuOf(first);
  if (first === undefined || baseline === undefined) return [];
  return daemons.flatMap((daemon) => {
    const value = cpuOf(daemon);
    if (value === undefined) return [];
    return [figure({ section, name: labelled(`${label}: daemon CPU per request`, daemon.label), unit: 'ms', value, baseline, baselineName: labelled('daemon CPU per request', first.label) })];
  });
}

/** labelled adds a Latch's label to a row name when a run compares two. */
export function labelled(name: string, label: string): string {
  return label === '' ? name : `${name} [${label}]`;
}
