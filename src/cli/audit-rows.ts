/**
 * How `latch audit` shows one audit.log line in its table: the merchant (or, for a signed web
 * request, the host it went to) in a column of its own, and the details — the request line of a
 * signed request with its host and path, or the policy, card, outcome and refusal code; for a
 * refused request, the code, the rule and the reasons with their numbers.
 */
import type { AuditRecord } from '../datadir/audit-entry.js';
import { auditAgentOf } from './audit-filter.js';
import { printable } from './daemon-calls/views.js';

/** The table's columns, in order; auditRow gives one cell for each. */
export const AUDIT_COLUMNS = ['SEQ', 'TIME', 'OPERATION', 'AGENT', 'MERCHANT', 'AMOUNT', 'DETAIL', 'USER-AGENT'] as const;

/** auditRow is one line of audit.log as the table's cells (text from the log is made printable). */
export function auditRow(record: AuditRecord): string[] {
  const text = (name: string): string | undefined => (typeof record[name] === 'string' ? (record[name] as string) : undefined);
  const host = text('host');
  const method = text('method');
  const outcome = text('outcome');
  const code = text('code');
  const detail =
    record.operation === 'refused' || record.operation === 'refusals_counted'
      ? refusalDetail(record, text)
      : method !== undefined
      ? `${method} ${host ?? ''}${text('path') ?? ''}`
      : [record.policy_id, record.card_id, text('approval_id'), outcome === undefined ? undefined : `${outcome}${code === undefined ? '' : ` (${code})`}`]
          .filter((part): part is string => typeof part === 'string')
          .join(' ');
  const amount = record.amount === null ? '' : `${record.amount} ${record.currency ?? ''}`.trim();
  return [
    String(record.seq),
    record.time,
    record.operation,
    printable(auditAgentOf(record)),
    printable(record.merchant ?? host ?? ''),
    amount,
    printable(detail.trim()),
    printable(record.user_agent ?? ''),
  ];
}

/**
 * refusalDetail says why a request was refused, with the reasons' numbers, or how many refusals
 * of a flood were counted rather than written (issue 44 item 3).
 */
function refusalDetail(record: AuditRecord, text: (name: string) => string | undefined): string {
  const code = text('code') ?? '';
  const rule = text('rule');
  if (record.operation === 'refusals_counted') {
    const count = typeof record['count'] === 'number' ? record['count'] : 0;
    return `${count} more ${code}${rule === undefined ? '' : ` (rule ${rule})`} refused from ${text('since') ?? '?'} to ${text('until') ?? '?'}, counted, not written one by one`;
  }
  const asked = text('requested');
  const reasons = text('reasons');
  return [`${code}${rule === undefined ? '' : ` rule ${rule}`}${asked === undefined || asked === 'authorize' ? '' : ` (${asked}${text('approval_id') === undefined ? '' : ` ${text('approval_id')}`})`}`, reasons].filter((part): part is string => typeof part === 'string' && part !== '').join(': ');
}
