import type { Txn } from '../ledger/ledger.js';
import type { Authorization } from '../ledger/state.js';

/**
 * expireDue ends every active authorization whose not_after has passed on the ledger clock:
 * status `expired`, hold released, its `authorized` transaction `expired`. The ledger runs it
 * before every operation, so a read never shows a window the clock has passed, whether or not
 * the periodic sweeper has run yet.
 */
export function expireDue(txn: Txn): void {
  const due: string[] = [];
  for (const policyId of txn.state.active_authorizations) {
    const authorization = txn.state.authorizations.get(policyId) as Authorization;
    // The window [not_before, not_after] includes not_after itself.
    if (authorization.not_after < txn.now) due.push(policyId);
  }
  for (const policyId of due) txn.emit({ type: 'authorization_ended', policy_id: policyId, status: 'expired' });
}
