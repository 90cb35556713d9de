/**
 * How the CLI shows the daemon's objects to people. Money stays the decimal text the daemon sent
 * ("12.50"); nothing is recomputed. Values that come from the cloud are stripped of control
 * characters, so a label cannot move the cursor or forge lines.
 */
import type { Authorization, Card, CardDetail, Transaction, TransactionDetail } from '../../client/types.js';

/** table lays out rows under headers in columns separated by two spaces. */
export function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  const cells = [headers, ...rows].map((row) => row.map(printable));
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  return cells.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  ').trimEnd());
}

/** fields lays out name/value pairs, one per line, values aligned. */
export function fields(pairs: ReadonlyArray<readonly [string, string | number | boolean | null | undefined]>): string[] {
  const present = pairs.filter(([, value]) => value !== undefined);
  const width = Math.max(...present.map(([name]) => name.length));
  return present.map(([name, value]) => `${`${name}:`.padEnd(width + 1)}  ${value === null ? '-' : printable(String(value))}`);
}

/** cardRows is the card list as a table. */
export function cardRows(cards: readonly Card[]): string[] {
  if (cards.length === 0) return ['No cards.'];
  return table(
    ['CARD', 'LABEL', 'LAST4', 'STATUS', 'BALANCE', 'AVAILABLE'],
    cards.map((c) => [c.card_id, c.label, c.last4, c.status, `${c.balance} ${c.currency}`, c.available === null ? '-' : `${c.available} ${c.currency}`]),
  );
}

/** cardDetail is one card with its limits. */
export function cardDetail(card: CardDetail): string[] {
  return fields([
    ['card', card.card_id],
    ['label', card.label],
    ['last4', card.last4],
    ['status', card.status],
    ['balance', `${card.balance} ${card.currency}`],
    ['available', card.available === null ? null : `${card.available} ${card.currency}`],
    ['held', card.held === null ? null : `${card.held} ${card.currency}`],
    ['daily limit', `${card.daily_limit} ${card.currency}`],
    ['spent today', `${card.daily_spent} ${card.currency}`],
  ]);
}

/** authorizationLines describes a scoped authorization: what was allowed, where, until when. */
export function authorizationLines(authorization: Authorization, headline: string): string[] {
  const a = authorization;
  const scope = a.authorization_type === 'ceiling' ? `up to ${a.amount} ${a.currency}` : `exactly ${a.amount} ${a.currency}`;
  return [
    printable(`${headline}: ${scope} at ${a.merchant_name} on ${a.card_id ?? 'any card'}.`),
    ...fields([
      ['policy', a.policy_id],
      ['kind', a.kind],
      ['status', a.status],
      ['expires', a.expires_at],
      ['interval', a.interval === undefined ? undefined : `${a.interval_count ?? 1} ${a.interval}`],
      ['period ends', a.current_period_end],
      ['transaction', a.transaction_id],
    ]),
  ];
}

/** transactionRows is a transaction list as a table. */
export function transactionRows(transactions: readonly Transaction[], hasMore: boolean): string[] {
  if (transactions.length === 0) return ['No transactions.'];
  const rows = table(
    ['TRANSACTION', 'CREATED', 'CARD', 'MERCHANT', 'AMOUNT', 'STATUS'],
    transactions.map((t) => [t.id, t.created_at, t.card_id, t.merchant, `${t.amount} ${t.currency}`, t.decline_code === undefined ? t.status : `${t.status} (${t.decline_code})`]),
  );
  const last = transactions[transactions.length - 1];
  return hasMore && last !== undefined ? [...rows, `More: latch transactions --starting-after ${last.id}`] : rows;
}

/** transactionDetail is one transaction and the window it was made under. */
export function transactionDetail(t: TransactionDetail): string[] {
  const window = t.policy_window;
  return fields([
    ['transaction', t.id],
    ['status', t.decline_code === undefined ? t.status : `${t.status} (${t.decline_code})`],
    ['amount', `${t.amount} ${t.currency}`],
    ['merchant', t.merchant],
    ['card', t.card_id],
    ['created', t.created_at],
    ['policy', t.policy_id],
    ['window', window === null ? null : `${window.authorization_type} ${window.amount} ${window.currency} at ${window.merchant}, ${window.not_before} to ${window.not_after}`],
    ['signed by key', window === null ? undefined : window.key_id],
  ]);
}

/** printable removes control characters from text that came over the network. */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069]/g, '?');
}
