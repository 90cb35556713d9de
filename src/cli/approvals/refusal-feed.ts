/**
 * What `latch approvals watch` says about refusals (issue 44 item 3): each refusal by the policy,
 * the pause or the lockout that reaches audit.log while the watch runs is shown as one line, with
 * the agent, the amount, the merchant, the rule and the reasons' numbers, and a flood's count. It
 * reads the daemon's audit (GET /audit) every few polls; a failed read is tried again later.
 */
import type { LatchClient } from '../../client/latch-client.js';
import { printable } from '../daemon-calls/views.js';

/** How many of the latest audit lines each look reads. */
const FEED_LINES = 200;

/** refusalText puts one refusal line of audit.log into words, or undefined when it is no refusal. */
export function refusalText(record: Record<string, unknown>): string | undefined {
  const text = (name: string): string | undefined => (typeof record[name] === 'string' ? (record[name] as string) : undefined);
  const operation = text('operation');
  const agent = text('agent') ?? 'owner';
  const rule = text('rule');
  const why = `${text('code') ?? '?'}${rule === undefined ? '' : ` (rule ${rule})`}`;
  if (operation === 'refusals_counted') {
    const count = typeof record['count'] === 'number' ? record['count'] : 0;
    return printable(`Refused ${count} more times: ${agent}, ${why}, from ${text('since') ?? '?'} to ${text('until') ?? '?'} (counted, not listed one by one).`);
  }
  if (operation !== 'refused') return undefined;
  const amount = text('amount');
  const merchant = text('merchant');
  const what = [amount === undefined ? undefined : `${amount} ${text('currency') ?? ''}`.trim(), merchant === undefined ? undefined : `at ${merchant}`].filter((part) => part !== undefined).join(' ');
  const asked = text('requested') === 'approve' ? `approving ${text('approval_id') ?? 'a request'}` : `${agent} asked${what === '' ? '' : ` for ${what}`}`;
  const reasons = text('reasons');
  return printable(`Refused: ${asked}: ${why}${reasons === undefined ? '' : `: ${reasons}`}.`);
}

/** RefusalFeed remembers the last audit line it saw and reports the refusals after it. */
export class RefusalFeed {
  private lastSeq: number | undefined;

  constructor(private readonly client: LatchClient) {}

  /** start notes where the log ends now: only later refusals are reported. */
  async start(): Promise<void> {
    this.lastSeq = await this.latestSeq();
  }

  /** news returns the refusals written since the last look, oldest first ([] when the log cannot be read now). */
  async news(): Promise<string[]> {
    let records: Array<Record<string, unknown>>;
    try {
      records = (await this.client.auditRecords(FEED_LINES)).records;
    } catch {
      return [];
    }
    const after = this.lastSeq ?? -1;
    const fresh = records.filter((record) => typeof record['seq'] === 'number' && record['seq'] > after).sort((a, b) => (a['seq'] as number) - (b['seq'] as number));
    const last = fresh.at(-1);
    if (last !== undefined) this.lastSeq = last['seq'] as number;
    return fresh.map(refusalText).filter((line): line is string => line !== undefined);
  }

  private async latestSeq(): Promise<number | undefined> {
    try {
      const { records } = await this.client.auditRecords(1);
      const seq = records[0]?.['seq'];
      return typeof seq === 'number' ? seq : -1;
    } catch {
      return undefined;
    }
  }
}
