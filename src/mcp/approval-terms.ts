/**
 * The one line an elicitation shows the person: the exact terms of an approval, as the console and
 * `latch approvals watch` show them (agent, amount and currency, merchant, card, kind, rule). The
 * client shows it to the person, not to the model; it holds nothing the agent did not send.
 */
import type { Approval } from '../client/types.js';

/** The longest message sent; the terms are short, and a client shows one line. */
const MESSAGE_CHARS_MAX = 600;

const KIND_WORDS: Readonly<Record<string, string>> = {
  one_time: 'one-time',
  merchant_verification: 'merchant verification',
  recurring: 'recurring',
  ap2_mandate: 'AP2 mandate',
};

/** The card as the owner knows it, looked up when the terms are written; absent when it could not be. */
export interface CardName {
  label: string;
  last4: string;
}

/** approvalTermsLine is "shopper asks for exactly 12.50 USD at shop.example.com on Groceries •••• 4242 (card_…), one-time, rule ask-here". */
export function approvalTermsLine(approval: Approval, cardName?: CardName): string {
  const r = approval.request;
  if (cardName !== undefined) return approvalTermsLine({ ...approval, request: { ...r, card_label: cardName.label, card_last4: cardName.last4 } });
  const amount = `${r.amount ?? '?'} ${r.currency ?? ''}`.trim();
  const howMuch = r.authorization_type === 'ceiling' ? `up to ${amount}` : r.authorization_type === 'exact' ? `exactly ${amount}` : amount;
  const last4 = typeof r['card_last4'] === 'string' ? ` •••• ${r['card_last4']}` : '';
  const card = r.card_id == null ? 'any card' : `${typeof r.card_label === 'string' ? `${r.card_label}${last4} ` : last4 === '' ? '' : `${last4.trim()} `}(${r.card_id})`;
  const kind = KIND_WORDS[r.kind ?? ''] ?? r.kind ?? 'payment';
  const every = r.interval === undefined ? '' : ` every ${r.interval_count ?? 1} ${r.interval}`;
  const rule = approval.rule === null ? 'no rule' : `rule ${approval.rule}`;
  return printable(`${approval.agent} asks for ${howMuch} at ${r.merchant_name ?? '?'} on ${card}, ${kind}${every}, ${rule}`);
}

/** approvalMessage is the elicitation's message: the terms, then what opening the page does. */
export function approvalMessage(approval: Approval, cardName?: CardName): string {
  const text = `Latch: ${approvalTermsLine(approval, cardName)}. Approve or deny it in your Latch console (sign in there; the link holds no secret).`;
  return text.length > MESSAGE_CHARS_MAX ? `${text.slice(0, MESSAGE_CHARS_MAX - 1)}…` : text;
}

/** printable keeps a line on one line: control characters become '?'. */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?');
}
