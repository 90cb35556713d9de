/**
 * The authorizations this device signed, as callers see them (docs/decisions.md §15.2): who asked for
 * each comes from the daemon's durable record (the authorization ledger), and its status from the
 * cloud, which alone knows whether it was used, expired or revoked. What the cloud reports is fed
 * back into the ledger, so budgets release what is no longer exposed.
 *
 * An agent sees and cancels only its own: another's is `authorization_not_found`, exactly as an
 * id that does not exist, so ids do not leak between agents.
 */
import { LatchError } from '../errors/latch-error.js';
import type { AuthorizationEntry } from './authorization-ledger.js';
import { cloudCall, idempotencyKeyOf, type CoreDeps, type OperationContext } from './core-deps.js';
import type { Authorization, AuthorizationStatus } from './model.js';
import { principalName, type Principal } from './principal.js';
import { signRevocation } from './revocation.js';

/**
 * What this module reads of a ledger entry (a subset of the ledger's AuthorizationEntry); the
 * window's terms are there for a window the owner signed and the daemon still holds, unregistered,
 * which the cloud does not know yet.
 */
export type LedgerEntryView = Pick<
  AuthorizationEntry,
  'policyId' | 'agent' | 'cardId' | 'merchant' | 'currency' | 'amountMinor' | 'kind' | 'authorizationType' | 'signedAtSeconds' | 'notAfterSeconds' | 'state' | 'evidence'
>;

/** The ledger operations this module uses (a subset of AuthorizationLedger). */
export interface LedgerView {
  get(policyId: string): LedgerEntryView | undefined;
  page(query: { agent?: string; cardId?: string; limit: number; startingAfter?: string }): { entries: LedgerEntryView[]; hasMore: boolean };
  noteStatus(policyId: string, state: AuthorizationStatus): Promise<void>;
  markUnregistered(policyId: string): Promise<boolean>;
}

/**
 * One authorization with the caller that asked for it. `registered` is false for a window this
 * device signed that the cloud does not hold (docs/decisions.md §17.1): `active` while it may still
 * be on its way, `revoked` once rolled back (it is never sent afterwards).
 */
export interface OwnedAuthorization {
  authorization: Authorization;
  agent: string;
  registered?: boolean;
  /** For the card window of AP2 open mandates (docs/ap2.md): the mandates' id. */
  mandateId?: string;
}

export interface AuthorizationListQuery {
  limit: number;
  startingAfter: string | undefined;
  status: AuthorizationStatus | undefined;
  cardId: string | undefined;
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
export async function listAuthorizations(deps: CoreDeps, ledger: LedgerView, query: AuthorizationListQuery, context: OperationContext): Promise<OwnedAuthorizationPage> {
  const agent = visibleAgent(context.principal, query.agent);
  if (agent === null) return { authorizations: [], hasMore: false };
  if (query.startingAfter !== undefined) visibleEntry(ledger, query.startingAfter, context.principal);
  const scope = { ...(agent !== undefined && { agent }), ...(query.cardId !== undefined && { cardId: query.cardId }) };
  const found: OwnedAuthorization[] = [];
  let cursor = query.startingAfter;
  for (;;) {
    // Without a status filter one ledger page of `limit` is enough but for entries whose
    // registration failed (never shown); with it, whole batches are walked.
    const batchSize = query.status === undefined ? query.limit : WALK_BATCH;
    const page = ledger.page({ ...scope, limit: batchSize, ...(cursor !== undefined && { startingAfter: cursor }) });
    const entries = page.entries.filter((entry) => entry.state !== 'failed');
    const looked = await lookUp(deps, ledger, entries, context);
    for (const owned of looked) if (query.status === undefined || owned.authorization.status === query.status) found.push(owned);
    const last = page.entries[page.entries.length - 1];
    if (found.length > query.limit) return { authorizations: found.slice(0, query.limit), hasMore: true };
    if (found.length === query.limit || !page.hasMore || last === undefined) return { authorizations: found, hasMore: page.hasMore };
    cursor = last.policyId;
  }
}

/** getOwnedAuthorization returns one authorization the caller may see, with its cloud status. */
export async function getOwnedAuthorization(deps: CoreDeps, ledger: LedgerView, policyId: string, context: OperationContext): Promise<OwnedAuthorization> {
  const entry = visibleEntry(ledger, policyId, context.principal);
  const [owned] = await lookUp(deps, ledger, [entry], context);
  return owned as OwnedAuthorization;
}

/**
 * cancelAuthorization signs a revocation of one of the caller's authorizations and submits it to
 * the cloud; the cloud's answer is the result, and the ledger notes it at once, so the budget the
 * authorization held is released now rather than at the next listing. It is the one way anything
 * revokes (docs/decisions.md §18.2): `latch revoke`, the client's revoke() and MCP's latch_revoke
 * all come here, for the owner and for agents alike. Cancelling one that is already revoked is the
 * outcome asked for and returns it as it is; a used or expired one stays a refusal.
 */
export async function cancelAuthorization(deps: CoreDeps, ledger: LedgerView, policyId: string, reason: string | undefined, context: OperationContext): Promise<OwnedAuthorization> {
  const entry = visibleEntry(ledger, policyId, context.principal);
  // A held window never sent: taken out of the hold, so the proxy can never forward it, and
  // revoked in the ledger at once, so its budget is free (docs/decisions.md §21).
  if (deps.heldWindows.isHeld(policyId) === true) {
    await deps.heldWindows.drop(policyId);
    await ledger.noteStatus(policyId, 'revoked');
    return { authorization: ledgerAuthorization(entry, 'revoked'), ...ownerOf(entry), registered: false };
  }
  if (entry.state === 'unregistered') return unregisteredView(entry);
  const device = deps.device();
  const signed = await signRevocation(deps, device, policyId, reason, context);
  let authorization: Authorization;
  try {
    authorization = await device.cloud.revokeAuthorization(policyId, signed.jws, cloudCall(device, context, idempotencyKeyOf(context)));
  } catch (error) {
    // The cloud never held it: cancelling rolls it back, so it is never sent (docs/decisions.md §17.1).
    if (notAtCloud(error) && (await ledger.markUnregistered(policyId))) return unregisteredView(entry);
    if (!(error instanceof LatchError) || error.code !== 'authorization_not_active') throw error;
    // The refusal does not say what the authorization became; the cloud's record does.
    authorization = await device.cloud.getAuthorization(policyId, cloudCall(device, context));
    if (authorization.status !== 'revoked') {
      await ledger.noteStatus(policyId, authorization.status);
      throw error;
    }
  }
  await ledger.noteStatus(policyId, authorization.status);
  return { authorization, ...ownerOf(entry), registered: true };
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

/** visibleEntry returns the ledger entry when the caller may see it, else authorization_not_found. */
function visibleEntry(ledger: LedgerView, policyId: string, principal: Principal): LedgerEntryView {
  const entry = ledger.get(policyId);
  if (entry === undefined || entry.state === 'failed') throw new LatchError('authorization_not_found');
  if (principal.kind === 'agent' && entry.agent !== principalName(principal)) throw new LatchError('authorization_not_found');
  return entry;
}

/**
 * lookUp asks the cloud for each entry's current state, a few at a time, and notes changes. A
 * cloud 404 does not fail the list (docs/decisions.md §17.1): an entry not on its way to the cloud
 * was never registered, so it is rolled back (its reservation released, its window never sent)
 * and shown as such; one still on its way is shown from the ledger.
 */
async function lookUp(deps: CoreDeps, ledger: LedgerView, entries: readonly LedgerEntryView[], context: OperationContext): Promise<OwnedAuthorization[]> {
  if (entries.length === 0) return [];
  const device = deps.device();
  const results: OwnedAuthorization[] = new Array(entries.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < entries.length) {
      const index = next++;
      const entry = entries[index] as LedgerEntryView;
      if (deps.heldWindows.isHeld(entry.policyId) === true) {
        // Signed by the owner's primitive and held, not registered: the cloud does not know it yet.
        results[index] = { authorization: ledgerAuthorization(entry, 'active'), ...ownerOf(entry), registered: false };
        continue;
      }
      if (entry.state === 'unregistered') {
        results[index] = unregisteredView(entry);
        continue;
      }
      let authorization: Authorization;
      try {
        authorization = await device.cloud.getAuthorization(entry.policyId, cloudCall(device, context));
      } catch (error) {
        if (!notAtCloud(error)) throw error;
        results[index] = (await ledger.markUnregistered(entry.policyId)) ? unregisteredView(entry) : { authorization: ledgerAuthorization(entry, 'active'), ...ownerOf(entry), registered: false };
        continue;
      }
      if (authorization.status !== entry.state) await ledger.noteStatus(entry.policyId, authorization.status);
      results[index] = { authorization, ...ownerOf(entry), registered: true };
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUPS_PARALLEL, entries.length) }, worker));
  return results;
}

/** notAtCloud reports whether the cloud answered that it holds no such authorization. */
function notAtCloud(error: unknown): boolean {
  return error instanceof LatchError && error.code === 'authorization_not_found';
}

/** unregisteredView shows a rolled-back window: revoked, never registered. */
function unregisteredView(entry: LedgerEntryView): OwnedAuthorization {
  return { authorization: ledgerAuthorization(entry, 'revoked'), ...ownerOf(entry), registered: false };
}

/**
 * ledgerAuthorization is what the ledger knows of a window the cloud does not hold: its terms as
 * signed (the start is taken as the signing time; recurring terms are not kept).
 */
function ledgerAuthorization(entry: LedgerEntryView, status: AuthorizationStatus): Authorization {
  return {
    policyId: entry.policyId,
    cardId: entry.cardId,
    merchant: entry.merchant,
    amountMinor: entry.amountMinor,
    currency: entry.currency,
    authorizationType: entry.authorizationType,
    kind: entry.kind,
    notBefore: entry.signedAtSeconds,
    expiresAt: entry.notAfterSeconds,
    status,
    createdAt: entry.signedAtSeconds,
    transactionId: null,
    recurring: null,
  };
}

/** The listing operations bound to one daemon's dependencies and ledger. */
export interface AuthorizationListOperations {
  listAuthorizations(query: AuthorizationListQuery, context: OperationContext): Promise<OwnedAuthorizationPage>;
  getAuthorization(policyId: string, context: OperationContext): Promise<OwnedAuthorization>;
  cancelAuthorization(policyId: string, reason: string | undefined, context: OperationContext): Promise<OwnedAuthorization>;
}

/** authorizationListOperations binds the listing to deps and the ledger. */
export function authorizationListOperations(deps: CoreDeps, ledger: LedgerView): AuthorizationListOperations {
  return {
    listAuthorizations: (query, context) => listAuthorizations(deps, ledger, query, context),
    getAuthorization: (policyId, context) => getOwnedAuthorization(deps, ledger, policyId, context),
    cancelAuthorization: (policyId, reason, context) => cancelAuthorization(deps, ledger, policyId, reason, context),
  };
}

/** ownerOf is who asked for an entry, and the id of the AP2 mandates its window backs, if any. */
function ownerOf(entry: LedgerEntryView): { agent: string; mandateId?: string } {
  const mandateId = entry.evidence?.mandates?.mandateId;
  return { agent: entry.agent, ...(mandateId !== undefined && { mandateId }) };
}
