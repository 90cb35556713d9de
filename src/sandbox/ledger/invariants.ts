import { cardDayKey, type SandboxState } from './state.js';

/**
 * checkInvariants returns every broken ledger invariant as a sentence (an empty list when all
 * hold). Tests run it after every step; a violation is a bug, never an expected condition.
 *
 * - Wallet: usdt = allocated + available; allocated = the sum of the account's card balances.
 * - No balance, hold or wallet figure is negative; a card's holds never exceed its balance.
 * - A card's `held` is the sum of its active windows' holds; ended windows hold nothing.
 * - Approved charges against a window never differ from it (exact) or exceed it (ceiling).
 * - A one-time or merchant-verification window has at most one settled charge; a recurring one
 *   has exactly `charges_count` of them, never more than max_charges.
 * - An `authorized` transaction belongs to an active window.
 * - The per-day totals (settled_by_card_day, held_by_card_day) equal the transactions' settled
 *   amounts and the active windows' holds, counted afresh.
 * - The expiry index holds exactly the active windows, each once, ordered by not_after.
 */
export function checkInvariants(state: Readonly<SandboxState>): string[] {
  const broken: string[] = [];
  const allocatedByAccount = new Map<string, number>();
  const heldByCard = new Map<string, number>();
  const settledByWindow = new Map<string, number>();

  for (const card of state.cards.values()) {
    allocatedByAccount.set(card.account_id, (allocatedByAccount.get(card.account_id) ?? 0) + card.balance);
    if (card.balance < 0 || card.held < 0) broken.push(`card ${card.card_id} has a negative balance or hold`);
    if (card.held > card.balance) broken.push(`card ${card.card_id} holds more than its balance`);
    if (card.closed && (card.balance !== 0 || card.held !== 0)) broken.push(`closed card ${card.card_id} still has money`);
  }
  for (const account of state.accounts.values()) {
    const { usdt, allocated, available } = account.wallet;
    if (usdt !== allocated + available) broken.push(`account ${account.account_id}: usdt ${usdt} != allocated ${allocated} + available ${available}`);
    if (allocated !== (allocatedByAccount.get(account.account_id) ?? 0)) broken.push(`account ${account.account_id}: allocated ${allocated} != sum of card balances`);
    if (usdt < 0 || allocated < 0 || available < 0) broken.push(`account ${account.account_id} has a negative wallet figure`);
  }
  const settledByDay = new Map<string, number>();
  const heldByDay = new Map<string, number>();
  for (const transaction of state.transactions.values()) {
    if (transaction.status === 'settled' && transaction.limit_day !== null) addTo(settledByDay, cardDayKey(transaction.card_id, transaction.limit_day), transaction.amount);
    if (transaction.policy_id === null) continue;
    const window = state.authorizations.get(transaction.policy_id);
    if (window === undefined) {
      broken.push(`transaction ${transaction.id} names an unknown window`);
      continue;
    }
    if (transaction.status === 'authorized' && window.status !== 'active') broken.push(`transaction ${transaction.id} is authorized under an ended window`);
    if (transaction.status !== 'settled') continue;
    settledByWindow.set(window.policy_id, (settledByWindow.get(window.policy_id) ?? 0) + 1);
    if (window.authorization_type === 'exact' ? transaction.amount !== window.amount : transaction.amount > window.amount) {
      broken.push(`transaction ${transaction.id} settled ${transaction.amount} against a ${window.authorization_type} window of ${window.amount}`);
    }
  }
  for (const window of state.authorizations.values()) {
    const active = window.status === 'active';
    if (active !== state.active_authorizations.has(window.policy_id)) broken.push(`window ${window.policy_id} is misfiled as active or not`);
    if (!active && window.hold !== 0) broken.push(`ended window ${window.policy_id} still holds funds`);
    if (window.card_id !== null && active) heldByCard.set(window.card_id, (heldByCard.get(window.card_id) ?? 0) + window.hold);
    if (window.card_id !== null && active && window.hold > 0 && window.hold_day !== null) addTo(heldByDay, cardDayKey(window.card_id, window.hold_day), window.hold);
    const settled = settledByWindow.get(window.policy_id) ?? 0;
    if (window.recurrence === null) {
      if (settled > 1) broken.push(`one-time window ${window.policy_id} approved ${settled} charges`);
      if (window.status === 'used' && settled !== 1) broken.push(`used window ${window.policy_id} has ${settled} charges`);
    } else {
      if (settled !== window.recurrence.charges_count) broken.push(`recurring window ${window.policy_id} counts ${window.recurrence.charges_count} charges, has ${settled}`);
      if (window.recurrence.max_charges !== null && settled > window.recurrence.max_charges) broken.push(`recurring window ${window.policy_id} exceeded max_charges`);
    }
  }
  for (const card of state.cards.values()) {
    if (card.held !== (heldByCard.get(card.card_id) ?? 0)) broken.push(`card ${card.card_id}: held ${card.held} != sum of active holds`);
  }
  if (!sameTotals(settledByDay, state.settled_by_card_day)) broken.push('settled_by_card_day differs from the settled transactions');
  if (!sameTotals(heldByDay, state.held_by_card_day)) broken.push('held_by_card_day differs from the holds of active windows');
  if (!expiryIndexMatches(state)) broken.push('expiry_index differs from the active windows by not_after');
  return broken;
}

function expiryIndexMatches(state: Readonly<SandboxState>): boolean {
  const counted = [...state.active_authorizations].map((policyId) => [state.authorizations.get(policyId)?.not_after ?? NaN, policyId] as const);
  counted.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return counted.length === state.expiry_index.length && counted.every(([notAfter, policyId], at) => state.expiry_index[at]?.[0] === notAfter && state.expiry_index[at]?.[1] === policyId);
}

function addTo(totals: Map<string, number>, key: string, amount: number): void {
  totals.set(key, (totals.get(key) ?? 0) + amount);
}

function sameTotals(counted: ReadonlyMap<string, number>, kept: ReadonlyMap<string, number>): boolean {
  // A kept total of zero is dropped; a counted one is zero only when nothing was added.
  const nonZero = [...counted].filter(([, total]) => total !== 0);
  return nonZero.length === kept.size && nonZero.every(([key, total]) => kept.get(key) === total);
}
