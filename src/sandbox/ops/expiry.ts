import type { Txn } from '../ledger/ledger.js';
import { expiredBefore } from '../ledger/expiry-index.js';

/**
 * expireDue ends every active authorization whose not_after has passed on the ledger clock:
 * status `expired`, hold released, its `authorized` transaction `expired`. The ledger runs it
 * before every operation, so a read never shows a window the clock has passed, whether or not
 * the periodic sweeper has run yet.
 */
export function expireDue(txn: Txn): void {
  // The window [not_before, not_after] includes not_after itself. Read from the expiry index's
  // front, so the cost is what is due, not every active window (docs/decisions.md §39.4).
  for (const policyId of expiredBefore(txn.state.expiry_index, txn.now)) txn.emit({ type: 'authorization_ended', policy_id: policyId, status: 'expired' });
}
