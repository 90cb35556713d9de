/**
 * The activity page's lines: the newest audit lines, each put into words. Only the log's tail is
 * read (at most ACTIVITY_TAIL_BYTES), so a log of a million lines costs what a short one does.
 * Each line has a kind, so the page shows spending and refusals first (issue 44 item 3); signed
 * upstream reads (sign_request GET/HEAD), which would bury them, only when asked for.
 */
import { closeSync, constants, fstatSync, readSync } from 'node:fs';
import { auditLogPath } from '../datadir/audit-log.js';
import { openPrivateFile } from '../datadir/read-private-file.js';

export const ACTIVITY_LINES_MAX = 100;
const ACTIVITY_TAIL_BYTES = 256 * 1024;

/** What a line is about: money signed for, a refusal, a signed read, or anything else. */
export type ActivityKind = 'spending' | 'refusal' | 'read' | 'other';

export interface ActivityLine {
  seq: number;
  ts: string;
  agent: string;
  operation: string;
  kind: ActivityKind;
  words: string;
}

/** The operations that sign for money: the page's first table, with the refusals. */
const SPENDING_OPERATIONS: ReadonlySet<string> = new Set(['authorize', 'merchant_bind', 'recurring', 'sign_card_policy_window', 'sign_policy_window', 'ap2_mandate_signed', 'allocate']);

/** activityKind sorts an audit line into the page's tables. */
function activityKind(operation: string, method: string | undefined): ActivityKind {
  if (operation === 'refused' || operation === 'refusals_counted') return 'refusal';
  if (operation === 'sign_request') return method === 'GET' || method === 'HEAD' ? 'read' : 'other';
  return SPENDING_OPERATIONS.has(operation) ? 'spending' : 'other';
}

const OPERATION_WORDS: Readonly<Record<string, string>> = {
  sign_card_policy_window: 'authorized',
  sign_policy_window: 'authorized (account window)',
  sign_revocation: 'revoked',
  sign_request: 'sent a signed request:',
  approval_requested: 'asked the owner to approve',
  approval_approved: 'approval approved:',
  approval_denied: 'approval denied:',
  approval_expired: 'approval expired:',
  approval_not_applied: 'approval not applied:',
  authorization_outcome: 'authorization outcome:',
  policy_changed: 'changed the spending policy',
  web_bot_auth_signed: 'signed a web request as itself:',
  refused: 'was refused',
  refusals_counted: 'was refused more times, counted:',
};

/** readActivity returns up to `limit` of the newest audit lines, newest first; signed reads only with `reads`. */
export function readActivity(home: string, limit: number = ACTIVITY_LINES_MAX, options: { reads?: boolean } = {}): ActivityLine[] {
  const opened = openPrivateFile(auditLogPath(home), constants.O_RDONLY);
  if (opened === undefined) return [];
  let text: string;
  try {
    const size = fstatSync(opened.fd).size;
    const start = Math.max(0, size - ACTIVITY_TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    let read = 0;
    while (read < buffer.length) {
      const count = readSync(opened.fd, buffer, read, buffer.length - read, start + read);
      if (count === 0) break;
      read += count;
    }
    text = buffer.subarray(0, read).toString('utf8');
    // The first line of a tail that starts mid-file is partial.
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
  } finally {
    closeSync(opened.fd);
  }
  const lines = text.split('\n').filter((line) => line !== '');
  const out: ActivityLine[] = [];
  for (let index = lines.length - 1; index >= 0 && out.length < limit; index -= 1) {
    const line = activityLine(lines[index] as string);
    if (line !== undefined && (line.kind !== 'read' || options.reads === true)) out.push(line);
  }
  return out;
}

/** activityLine puts one audit line into words; a line that is not a record is skipped. */
export function activityLine(text: string): ActivityLine | undefined {
  let record: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    record = parsed as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const field = (name: string): string | undefined => (typeof record[name] === 'string' ? (record[name] as string) : undefined);
  const operation = field('operation') ?? 'unknown';
  const parts = [OPERATION_WORDS[operation] ?? operation.replaceAll('_', ' ')];
  const amount = field('amount');
  if (amount !== undefined) parts.push(`${amount} ${field('currency') ?? ''}`.trim());
  const merchant = field('merchant');
  if (merchant !== undefined) parts.push(`at ${merchant}`);
  // A refusal says why (the cloud's code), and a signed request says where it went: method, host, path.
  const outcome = field('outcome');
  const code = field('code');
  if (outcome !== undefined) parts.push(code === undefined ? outcome : `${outcome} (${code})`);
  const method = field('method');
  if (method !== undefined) parts.push(`${method} ${field('host') ?? ''}${field('path') ?? ''}`.trim());
  // A refusal by the policy, the pause or the lockout: its code, rule and the reasons' numbers.
  if (operation === 'refused' || operation === 'refusals_counted') parts.push(refusalWords(record, field));
  for (const name of ['approval_id', 'policy_id', 'reason']) {
    const value = field(name);
    if (value !== undefined) parts.push(name === 'reason' ? value : `(${value})`);
  }
  return {
    seq: typeof record['seq'] === 'number' ? record['seq'] : 0,
    ts: field('time') ?? '',
    agent: field('agent') ?? 'owner',
    operation,
    kind: activityKind(operation, method),
    words: parts.join(' '),
  };
}

function refusalWords(record: Record<string, unknown>, field: (name: string) => string | undefined): string {
  const rule = field('rule');
  const why = `${field('code') ?? ''}${rule === undefined ? '' : ` (rule ${rule})`}`;
  if (record['operation'] === 'refusals_counted') return `${typeof record['count'] === 'number' ? record['count'] : 0} × ${why} from ${field('since') ?? '?'} to ${field('until') ?? '?'}`;
  const reasons = field('reasons');
  return reasons === undefined ? why : `${why}: ${reasons}`;
}
