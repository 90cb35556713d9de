/**
 * How `latch audit` shows one audit.log line in its table: the merchant (or, for a signed web
 * request, the host it went to) in a column of its own, and the details — the request line of a
 * signed request with its host and path, or the policy, card, outcome and refusal code.
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
    method !== undefined
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
