/**
 * Refusals in audit.log, bounded (issue 44 item 3): each refusal by the policy, the pause or the
 * lockout is a `refused` line, up to REFUSAL_LINES_PER_PERIOD for one agent, code and rule in a
 * period of REFUSAL_PERIOD_MS; past that they are counted, and one `refusals_counted` line says
 * how many, when the period ends (at the next refusal of that kind after it, at the next sweep, or
 * at the daemon's stop). A flood of refused requests thus writes a bounded number of lines, and the
 * owner still sees that it happened and how big it was.
 */
import type { RefusalRecord } from '../core/core-deps.js';
import { principalName } from '../core/principal.js';
import type { AuditEntry } from '../datadir/audit-entry.js';
import { refusalEntry, refusalsCountedEntry } from './audit-records.js';

/** At most this many refusal lines for one agent, code and rule in one period. */
export const REFUSAL_LINES_PER_PERIOD = 20;
/** The period the bound counts over. */
export const REFUSAL_PERIOD_MS = 60_000;
/** At most this many kinds (agent, code, rule) are tracked at once; a new kind past it is counted under the oldest's line. */
const KINDS_MAX = 256;

interface Period {
  startMs: number;
  written: number;
  counted: number;
  agent: string;
  code: string;
  rule: string | null;
}

/** RefusalAuditor notes refusals into audit.log without letting a flood fill it. */
export class RefusalAuditor {
  private readonly periods = new Map<string, Period>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly append: (entry: AuditEntry) => Promise<unknown>,
    private readonly warn: (event: string, fields: Record<string, unknown>) => void,
    private readonly nowMs: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.sweep(), REFUSAL_PERIOD_MS);
    this.sweeper.unref();
  }

  /** note writes the refusal's line, or counts it when its kind has written its lines this period. */
  note(record: RefusalRecord): void {
    const now = this.nowMs();
    const agent = principalName(record.principal);
    const key = JSON.stringify([agent, record.code, record.rule]);
    let period = this.periods.get(key);
    if (period !== undefined && now - period.startMs >= REFUSAL_PERIOD_MS) {
      this.close(key, period, now);
      period = undefined;
    }
    if (period === undefined) {
      if (this.periods.size >= KINDS_MAX) this.sweep(true);
      period = { startMs: now, written: 0, counted: 0, agent, code: record.code, rule: record.rule };
      this.periods.set(key, period);
    }
    if (period.written < REFUSAL_LINES_PER_PERIOD) {
      period.written += 1;
      this.write(refusalEntry(record));
    } else {
      period.counted += 1;
    }
  }

  /** sweep closes every period that has ended (all of them with force), writing their counts. */
  sweep(force = false): void {
    const now = this.nowMs();
    for (const [key, period] of this.periods) if (force || now - period.startMs >= REFUSAL_PERIOD_MS) this.close(key, period, now);
  }

  /** stop writes what is counted and stops the sweeper. */
  stop(): void {
    clearInterval(this.sweeper);
    this.sweep(true);
  }

  private close(key: string, period: Period, now: number): void {
    this.periods.delete(key);
    if (period.counted === 0) return;
    this.write(refusalsCountedEntry({ agent: period.agent, code: period.code, rule: period.rule, count: period.counted, since: new Date(period.startMs).toISOString(), until: new Date(now).toISOString() }));
  }

  private write(entry: AuditEntry): void {
    this.append(entry).catch(() => this.warn('audit_refusal_not_recorded', { code: entry['code'] ?? null }));
  }
}
