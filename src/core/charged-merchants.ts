/**
 * Learning that a merchant was charged when the policy needs to know (docs/decisions.md §31.2).
 * A merchant is known on this device once an authorization there was used or approved; the
 * ledger learns "used" from the cloud, which until now happened only when someone listed
 * authorizations. So before `new_merchant` would call a merchant new, the cloud is asked about this
 * device's active authorizations there — whoever asks, whenever.
 */
import type { AuthorizationEntry } from './authorization-ledger.js';
import { cloudCall, type EnrolledDevice, type OperationContext } from './core-deps.js';
import type { AuthorizationStatus } from './model.js';

/** How many of the merchant's newest active authorizations one request asks the cloud about. */
export const CHARGED_LOOKUPS_MAX = 5;

/** What this module reads and writes of the authorization ledger. */
export interface MerchantHistory {
  since(atSeconds: number): Iterable<Readonly<AuthorizationEntry>>;
  noteStatus(policyId: string, state: AuthorizationStatus): Promise<void>;
}

export interface ChargedMerchantDeps {
  device(): EnrolledDevice;
  ledger: MerchantHistory;
  /** Records the merchant as known (an authorization there was charged), durably. */
  markKnown(merchant: string): Promise<void>;
}

/**
 * learnChargedMerchant asks the cloud about the newest active authorizations at merchant and notes
 * what it answers: one that was used makes the merchant known (the ledger's `used` does it too).
 * It never fails the request: an unreachable cloud leaves the merchant new, the safe direction.
 */
export async function learnChargedMerchant(deps: ChargedMerchantDeps, merchant: string, context: OperationContext): Promise<void> {
  const active: Array<Readonly<AuthorizationEntry>> = [];
  for (const entry of deps.ledger.since(0)) if (entry.merchant === merchant && entry.state === 'active' && entry.kind !== 'x402') active.push(entry);
  const newest = active.slice(-CHARGED_LOOKUPS_MAX);
  if (newest.length === 0) return;
  try {
    const device = deps.device();
    await Promise.all(
      newest.map(async (entry) => {
        const authorization = await device.cloud.getAuthorization(entry.policyId, cloudCall(device, context));
        if (authorization.status !== entry.state) await deps.ledger.noteStatus(entry.policyId, authorization.status);
        if (authorization.status === 'used') await deps.markKnown(merchant);
      }),
    );
  } catch {
    // Not learned now: new_merchant decides as before, and a later request asks again.
  }
}
