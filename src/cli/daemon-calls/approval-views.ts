/**
 * How the CLI shows approvals: the exact request the owner is asked about, with every field the
 * daemon sent (known ones first, in words; any others after, so nothing is hidden), the rule that
 * asked and why. Everything that came over the network goes through printable().
 */
import type { Approval, ApprovalRequest, PendingApproval } from '../../client/types.js';
import { fields, printable, table } from './views.js';

/** The request fields shown in words; every other field is listed after them as it came. */
const DESCRIBED_FIELDS: ReadonlySet<string> = new Set([
  'kind', 'card_id', 'card_label', 'merchant_name', 'amount', 'currency', 'authorization_type',
  'ttl_seconds', 'interval', 'interval_count', 'starts_at', 'ends_at', 'max_charges',
]);

/** pendingApprovalLines is what `latch authorize` prints when the policy asked the owner first. */
export function pendingApprovalLines(pending: PendingApproval): string[] {
  return [
    printable(`Waiting for the owner's approval: ${pending.approval_id} (rule ${pending.rule ?? '-'})`),
    ...fields([
      ['why', reasonsText(pending.reasons)],
      ['request', `${amountText(pending.request)} at ${text(pending.request.merchant_name)}`],
      ['expires', pending.expires_at],
    ]),
    'Nothing is authorized yet. Do not retry with other terms: the owner decides this exact request',
    `(latch approve ${printable(pending.approval_id)}, latch deny ${printable(pending.approval_id)}, or latch approvals watch).`,
  ];
}

/** amountText is "exactly 12.50 USD" or "up to 12.50 USD", the way the owner must read it. */
export function amountText(request: ApprovalRequest): string {
  const amount = `${text(request.amount)} ${text(request.currency)}`;
  if (request.authorization_type === 'ceiling') return `up to ${amount}`;
  if (request.authorization_type === 'exact') return `exactly ${amount}`;
  return request.authorization_type === undefined ? amount : `${amount} (${text(request.authorization_type)})`;
}

/** cardText names the card by label and id, e.g. "Groceries (card_…)". */
export function cardText(request: ApprovalRequest, label: string | undefined): string {
  const id = request.card_id ?? null;
  if (id === null) return 'any card';
  const name = label ?? (typeof request.card_label === 'string' ? request.card_label : undefined);
  return name === undefined ? text(id) : `${name} (${id})`;
}

/**
 * approvalLines shows one approval in full: who asks, for what exactly, under which rule and why,
 * and where it stands. cardLabel is the card's label when the CLI could look it up.
 */
export function approvalLines(approval: Approval, cardLabel?: string): string[] {
  const r = approval.request;
  const recurring = r.interval === undefined ? undefined : `every ${r.interval_count ?? 1} ${text(r.interval)}${r.max_charges == null ? '' : `, at most ${r.max_charges} charges`}`;
  const others = Object.entries(r).filter(([name]) => !DESCRIBED_FIELDS.has(name)).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)] as const);
  return [
    printable(`Approval ${approval.approval_id}: ${text(approval.agent)} asks for ${amountText(r)} at ${text(r.merchant_name)}`),
    ...fields([
      ['status', approval.status],
      ['agent', approval.agent],
      ['card', cardText(r, cardLabel)],
      ['merchant', text(r.merchant_name)],
      ['amount', amountText(r)],
      ['kind', r.kind],
      ['valid for', r.ttl_seconds === undefined ? undefined : `${durationText(r.ttl_seconds)} from approval`],
      ['recurring', recurring],
      ['starts', r.starts_at ?? undefined],
      ['ends', r.ends_at ?? undefined],
      ...others,
      ['rule', approval.rule],
      ['why', reasonsText(approval.reasons)],
      ['request sha256', approval.request_sha256],
      ['asked at', approval.created_at],
      ['expires', approval.expires_at],
      ['reason', approval.reason ?? undefined],
      ['authorization', approval.authorization?.policy_id],
      ['error', approval.error == null ? undefined : `${approval.error.code}${approval.error.message === undefined ? '' : `: ${approval.error.message}`}`],
    ]),
  ];
}

/** approvalRows is the list of approvals as a table. */
export function approvalRows(approvals: readonly Approval[], labels: ReadonlyMap<string, string> = new Map()): string[] {
  if (approvals.length === 0) return ['No approvals are waiting.'];
  return table(
    ['APPROVAL', 'AGENT', 'CARD', 'MERCHANT', 'AMOUNT', 'RULE', 'EXPIRES'],
    approvals.map((a) => [a.approval_id, a.agent, cardText(a.request, labels.get(a.request.card_id ?? '')), text(a.request.merchant_name), amountText(a.request), a.rule ?? '-', a.expires_at]),
  );
}

/** durationText says a number of seconds in the largest whole unit: "30 minutes", "90 seconds". */
function durationText(seconds: number): string {
  if (!Number.isInteger(seconds) || seconds < 0) return `${text(seconds)} seconds`;
  if (seconds % 3600 === 0 && seconds > 0) return `${seconds / 3600} hour${seconds === 3600 ? '' : 's'}`;
  if (seconds % 60 === 0 && seconds > 0) return `${seconds / 60} minute${seconds === 60 ? '' : 's'}`;
  return `${seconds} seconds`;
}

function reasonsText(reasons: readonly string[] | undefined): string {
  return Array.isArray(reasons) && reasons.length > 0 ? reasons.join('; ') : '-';
}

function text(value: unknown): string {
  return value === undefined || value === null ? '-' : printable(String(value));
}
