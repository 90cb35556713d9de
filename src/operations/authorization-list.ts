/**
 * The authorizations this device signed, listed for their callers (docs/decisions.md §15.2): pages of
 * the ledger, newest first, each with its cloud status. Outside the audited core: what the cloud
 * says is noted in the ledger, and a cancel signed, only through core/owned-authorization.ts.
 */
import { cancelAuthorization, currentAuthorization, visibleEntry, type LedgerEntryView, type LedgerView, type OwnedAuthorization } from '../core/owned-authorization.js';
import type { CoreDeps, OperationContext } from '../core/core-deps.js';
import type { AuthorizationStatus, RequestKind, X402State } from '../core/model.js';
import type { Principal } from '../core/principal.js';
import type { LedgerPages } from './ledger-pages.js';

export type { OwnedAuthorization } from '../core/owned-authorization.js';

export interface AuthorizationListQuery {
  limit: number;
  startingAfter: string | undefined;
  /** A window's status at the cloud, or an x402 authorization's state. */
  status: AuthorizationStatus | X402State | undefined;
  cardId: string | undefined;
  /** Only entries of this kind (an AP2 mandate's card window is `ap2_mandate`, an x402 payment `x402`). */
  kind?: RequestKind | undefined;
  /** The owner's filter; an agent's own name always applies to an agent. */
  agent: string | undefined;
}

export interface OwnedAuthorizationPage {
  authorizations: OwnedAuthorization[];
  hasMore: boolean;
}

/** How many ledger entries one step of a status-filtered walk reads (the ledger's page maximum). */
const WALK_BATCH = 100;
/** How many cloud lookups run at once for one page. */
const LOOKUPS_PARALLEL = 8;

/**
 * listAuthorizations lists newest first. Without a status filter one ledger page is one answer;
 * with it the ledger is walked newest-first in batches until the page is full or history ends, so
 * that filter costs a walk (and a cloud lookup per entry walked).
 */
export async function listAuthorizations(deps: CoreDeps, ledger: LedgerView, pages: Pick<LedgerPages, 'page'>, query: AuthorizationListQuery, context: OperationContext): Promise<OwnedAuthorizationPage> {
  const agent = visibleAgent(context.principal, query.agent);
  if (agent === null) return { authorizations: [], hasMore: false };
  if (query.startingAfter !== undefined) visibleEntry(ledger, query.startingAfter, context.principal);
  const scope = { ...(agent !== undefined && { agent }), ...(query.cardId !== undefined && { cardId: query.cardId }) };
  const found: OwnedAuthorization[] = [];
  let cursor = query.startingAfter;
  for (;;) {
    // Without a status filter one ledger page of `limit` is enough but for entries whose
    // registration failed (never shown); with it, whole batches are walked.
    const batchSize = query.status === undefined && query.kind === undefined ? query.limit : WALK_BATCH;
    const page = pages.page({ ...scope, limit: batchSize, ...(cursor !== undefined && { startingAfter: cursor }) });
    // The kind is the ledger's own: filtered before anyone is asked.
    const entries = page.entries.filter((entry) => entry.state !== 'failed' && (query.kind === undefined || kindOf(entry) === query.kind));
    const looked = await lookUp(deps, ledger, entries, context);
    for (const owned of looked) if (query.status === undefined || statusOf(owned) === query.status) found.push(owned);
    const last = page.entries[page.entries.length - 1];
    if (found.length > query.limit) return { authorizations: found.slice(0, query.limit), hasMore: true };
    if (found.length === query.limit || !page.hasMore || last === undefined) return { authorizations: found, hasMore: page.hasMore };
    cursor = last.policyId;
  }
}

/** kindOf is the kind a listing shows: an AP2 mandate's card window is `ap2_mandate`. */
function kindOf(entry: LedgerEntryView): RequestKind {
  if (entry.evidence?.mandates !== undefined) return 'ap2_mandate';
  return entry.kind;
}

/** statusOf is what a status filter compares: an x402 payment's own state, a window's cloud status. */
function statusOf(owned: OwnedAuthorization): string {
  return owned.x402?.x402?.state ?? owned.authorization.status;
}

/** getOwnedAuthorization returns one authorization the caller may see, with its cloud status. */
export async function getOwnedAuthorization(deps: CoreDeps, ledger: LedgerView, policyId: string, context: OperationContext): Promise<OwnedAuthorization> {
  return currentAuthorization(deps, ledger, visibleEntry(ledger, policyId, context.principal), context);
}

/**
 * visibleAgent is the agent filter that applies: an agent always sees only its own (asking for
 * another's gives nothing, `null`); the owner sees all, or the named agent's.
 */
function visibleAgent(principal: Principal, requested: string | undefined): string | undefined | null {
  if (principal.kind === 'owner') return requested;
  if (requested !== undefined && requested !== principal.name) return null;
  return principal.name;
}

/** lookUp asks the cloud for each entry's current state, a few at a time (core/owned-authorization.ts notes changes). */
async function lookUp(deps: CoreDeps, ledger: LedgerView, entries: readonly LedgerEntryView[], context: OperationContext): Promise<OwnedAuthorization[]> {
  const results: OwnedAuthorization[] = new Array(entries.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < entries.length) {
      const index = next++;
      results[index] = await currentAuthorization(deps, ledger, entries[index] as LedgerEntryView, context);
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUPS_PARALLEL, entries.length) }, worker));
  return results;
}

/** The listing operations bound to one daemon's dependencies and ledger. */
export interface AuthorizationListOperations {
  listAuthorizations(query: AuthorizationListQuery, context: OperationContext): Promise<OwnedAuthorizationPage>;
  getAuthorization(policyId: string, context: OperationContext): Promise<OwnedAuthorization>;
  cancelAuthorization(policyId: string, reason: string | undefined, context: OperationContext): Promise<OwnedAuthorization>;
}

/** authorizationListOperations binds the listing to deps and the ledger. */
export function authorizationListOperations(deps: CoreDeps, ledger: LedgerView, pages: Pick<LedgerPages, 'page'>): AuthorizationListOperations {
  return {
    listAuthorizations: (query, context) => listAuthorizations(deps, ledger, pages, query, context),
    getAuthorization: (policyId, context) => getOwnedAuthorization(deps, ledger, policyId, context),
    cancelAuthorization: (policyId, reason, context) => cancelAuthorization(deps, ledger, policyId, reason, context),
  };
}
