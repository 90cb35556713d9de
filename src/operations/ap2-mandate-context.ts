/**
 * GET /ap2/mandates/:mandate_id/context (shared/spec/ap2-mandates.md §6, docs/ap2.md): the spend
 * so far under a mandate, the state AP2's `MandateContext` takes (`total_amount`, `total_uses`,
 * `last_used_date`) and leaves to the caller. It is read from what the cloud reports: the charges
 * against the mandate's card window. The agent that asked for the mandate sees it, and the owner;
 * anyone else gets `authorization_not_found`, as for an id that does not exist.
 */
import { LatchError } from '../errors/latch-error.js';
import { cloudCall, type OperationContext } from '../core/core-deps.js';
import { visibleEntry, type LedgerEntryView } from '../core/owned-authorization.js';
import type { Principal } from '../core/principal.js';
import type { ReadingDevice } from './cloud-reads.js';
import type { Transaction } from './read-model.js';

/** What the context reads: the ledger's entries (to find the mandate's) and the cloud's transactions. */
export interface MandateContextDeps {
  device(): ReadingDevice;
  ledger: {
    get(policyId: string): LedgerEntryView | undefined;
    since(atSeconds: number): Iterable<Readonly<LedgerEntryView>>;
  };
}

/** A mandate's spend so far; amounts in minor units, times in Unix seconds. */
export interface MandateContext {
  mandateId: string;
  policyId: string;
  totalMinor: number;
  currency: string;
  occurrences: number;
  lastAtSeconds: number | null;
}

/** Charges that count: held or settled. A declined, expired or revoked one moved no money. */
const SPENT: ReadonlySet<Transaction['status']> = new Set(['authorized', 'settled']);
/** The card's transactions are walked newest first, at most this many pages of CLOUD_PAGE_LIMIT. */
const PAGES_MAX = 20;
const CLOUD_PAGE_LIMIT = 100;

/** mandateContext answers the spend under the mandate mandateId, for the principal who may see it. */
export async function mandateContext(deps: MandateContextDeps, mandateId: string, context: OperationContext): Promise<MandateContext> {
  const entry = entryOfMandate(deps, mandateId, context.principal);
  const device = deps.device();
  const charges: Transaction[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < PAGES_MAX; page++) {
    const answer = await device.cloud.listTransactions({ limit: CLOUD_PAGE_LIMIT, startingAfter: cursor, cardId: entry.cardId ?? undefined, status: undefined }, cloudCall(device, context));
    charges.push(...answer.transactions.filter((transaction) => transaction.policyId === entry.policyId && SPENT.has(transaction.status)));
    const last = answer.transactions[answer.transactions.length - 1];
    // Newest first: once past the window's signing, nothing older can be charged against it.
    if (!answer.hasMore || last === undefined || last.createdAt < entry.signedAtSeconds) return contextOf(mandateId, entry, charges);
    cursor = last.id;
  }
  throw new LatchError('upstream_unavailable', { status: 502, message: `The card has more than ${PAGES_MAX * CLOUD_PAGE_LIMIT} transactions since this mandate was signed; its context cannot be read whole.` });
}

/** entryOfMandate is the ledger entry whose kept mandates are mandateId, as the principal may see it. */
function entryOfMandate(deps: MandateContextDeps, mandateId: string, principal: Principal): LedgerEntryView {
  for (const entry of deps.ledger.since(0)) {
    if (entry.evidence?.mandates?.mandateId === mandateId) return visibleEntry(deps.ledger, entry.policyId, principal);
  }
  throw new LatchError('authorization_not_found', { message: 'No AP2 mandate with this id is kept on this device.' });
}

function contextOf(mandateId: string, entry: LedgerEntryView, charges: readonly Transaction[]): MandateContext {
  let totalMinor = 0;
  let lastAtSeconds: number | null = null;
  for (const charge of charges) {
    totalMinor += charge.amountMinor;
    if (!Number.isSafeInteger(totalMinor)) throw new LatchError('upstream_unavailable', { status: 502, message: 'The cloud reported charges whose total is not a safe integer.' });
    lastAtSeconds = lastAtSeconds === null ? charge.createdAt : Math.max(lastAtSeconds, charge.createdAt);
  }
  return { mandateId, policyId: entry.policyId, totalMinor, currency: entry.currency, occurrences: charges.length, lastAtSeconds };
}
