import { LatchError } from '../../errors/latch-error.js';
import { cardDayKey, type Authorization, type Card, type CardStatus, type SandboxState } from '../ledger/state.js';

/**
 * windowAppliesToCard reports whether an authorization can pay a charge on card: a card window
 * for that card, or an account-wide window of the card's account.
 */
export function windowAppliesToCard(authorization: Authorization, card: Card): boolean {
  return authorization.card_id === null ? authorization.account_id === card.account_id : authorization.card_id === card.card_id;
}

/** activeWindowsFor returns the active authorizations that apply to card, oldest first. */
export function activeWindowsFor(state: SandboxState, card: Card): Authorization[] {
  const windows: Authorization[] = [];
  for (const policyId of state.active_authorizations) {
    const authorization = state.authorizations.get(policyId) as Authorization;
    if (windowAppliesToCard(authorization, card)) windows.push(authorization);
  }
  return windows;
}

/**
 * cardStatus derives the card's status (docs/decisions.md §5): `closed` is final; otherwise `active`
 * while at least one window applies to it (account-wide windows included) and `frozen` when none does.
 */
export function cardStatus(state: SandboxState, card: Card): CardStatus {
  if (card.closed) return 'closed';
  for (const policyId of state.active_authorizations) {
    if (windowAppliesToCard(state.authorizations.get(policyId) as Authorization, card)) return 'active';
  }
  return 'frozen';
}

/** dailySpent is the settled amount counted against card's daily limit on day (`YYYY-MM-DD`). */
export function dailySpent(state: SandboxState, card: Card, day: string): number {
  return state.settled_by_card_day.get(cardDayKey(card.card_id, day)) ?? 0;
}

/**
 * dailyUsage is what card has used of day's limit: settled amounts counted on that day plus the
 * holds of active windows placed that day (a hold reserves its day's limit until it is captured,
 * released or expires).
 */
export function dailyUsage(state: SandboxState, card: Card, day: string): number {
  return dailySpent(state, card, day) + (state.held_by_card_day.get(cardDayKey(card.card_id, day)) ?? 0);
}

/** accountCard returns the account's card, or `card_not_found` (another account's card is not found either). */
export function accountCard(state: SandboxState, accountId: string, cardId: string): Card {
  const card = state.cards.get(cardId);
  if (card === undefined || card.account_id !== accountId) throw new LatchError('card_not_found');
  return card;
}

/** accountAuthorization returns the account's authorization, or `authorization_not_found`. */
export function accountAuthorization(state: SandboxState, accountId: string, policyId: string): Authorization {
  const authorization = state.authorizations.get(policyId);
  if (authorization === undefined || authorization.account_id !== accountId) throw new LatchError('authorization_not_found');
  return authorization;
}
