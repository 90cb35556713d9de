/**
 * One authorization this device signed, as its caller sees it (docs/decisions.md §15.2): who asked
 * for it comes from the daemon's durable record (the authorization ledger), and its status from the
 * cloud, which alone knows whether it was used, expired or revoked. What the cloud reports is fed
 * back into the ledger here, so budgets release what is no longer exposed; cancelling signs the
 * revocation. The listing that walks many (src/operations/authorization-list.ts) is outside the
 * audited core and calls these.
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
import { x402AuthorizationView } from './x402-authorize.js';
import { releaseEntry, x402Entry } from './x402-lifecycle.js';

/**
 * What an owned authorization reads of a ledger entry (a subset of the ledger's AuthorizationEntry); the
 * window's terms are there for a window the owner signed and the daemon still holds, unregistered,
 * which the cloud does not know yet.
 */
export type LedgerEntryView = Pick<
  AuthorizationEntry,
  'policyId' | 'agent' | 'cardId' | 'merchant' | 'currency' | 'amountMinor' | 'kind' | 'authorizationType' | 'signedAtSeconds' | 'notAfterSeconds' | 'state' | 'evidence' | 'x402' | 'jws'
>;

/** The ledger operations an owned authorization uses (a subset of StoredAuthorizationLedger): reads, and the cloud's word noted. */
export interface LedgerView {
  get(policyId: string): LedgerEntryView | undefined;
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
  /** For an x402 payment (docs/x402.md): its ledger entry, shown by its own wire; the cloud never holds it. */
  x402?: LedgerEntryView;
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
  // An x402 payment has no window to revoke: cancelling it is its release (docs/x402.md).
  if (entry.x402 !== undefined) return x402Owned(await releaseEntry(deps, policyId, context, reason ?? 'cancelled'));
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

/** visibleEntry returns the ledger entry when the caller may see it, else authorization_not_found. */
export function visibleEntry(ledger: Pick<LedgerView, 'get'>, policyId: string, principal: Principal): LedgerEntryView {
  const entry = ledger.get(policyId);
  if (entry === undefined || entry.state === 'failed' || !ownedBy(entry, principal)) throw new LatchError('authorization_not_found');
  return entry;
}

/** ownedBy reports whether principal may see entry: the owner all, an agent only its own. */
function ownedBy(entry: LedgerEntryView, principal: Principal): boolean {
  return principal.kind === 'owner' || entry.agent === principalName(principal);
}

/**
 * currentAuthorization asks the cloud for one entry's state and notes a change in the ledger. A
 * cloud 404 is not a failure (docs/decisions.md §17.1): an entry not on its way to the cloud was
 * never registered, so it is rolled back (its reservation released, its window never sent) and
 * shown as such; one still on its way is shown from the ledger. Every write a listing makes to the
 * ledger is here, in the core; the listing itself (src/operations/) only walks and filters.
 */
export async function currentAuthorization(deps: CoreDeps, ledger: LedgerView, entry: LedgerEntryView, context: OperationContext): Promise<OwnedAuthorization> {
  // The listing outside the core pages only the caller's own; this holds it here too.
  if (!ownedBy(entry, context.principal)) throw new LatchError('authorization_not_found');
  // An x402 payment is the ledger's alone: its state is its own (an unbound one past its time expires now).
  if (entry.x402 !== undefined) return x402Owned(await x402Entry(deps, entry.policyId, context));
  if (deps.heldWindows.isHeld(entry.policyId) === true) {
    // Signed by the owner's primitive and held, not registered: the cloud does not know it yet.
    return { authorization: ledgerAuthorization(entry, 'active'), ...ownerOf(entry), registered: false };
  }
  if (entry.state === 'unregistered') return unregisteredView(entry);
  const device = deps.device();
  let authorization: Authorization;
  try {
    authorization = await device.cloud.getAuthorization(entry.policyId, cloudCall(device, context));
  } catch (error) {
    if (!notAtCloud(error)) throw error;
    return (await ledger.markUnregistered(entry.policyId)) ? unregisteredView(entry) : { authorization: ledgerAuthorization(entry, 'active'), ...ownerOf(entry), registered: false };
  }
  if (authorization.status !== entry.state) await ledger.noteStatus(entry.policyId, authorization.status);
  return { authorization, ...ownerOf(entry), registered: true };
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
  if (entry.kind === 'x402') throw new Error('ledgerAuthorization: an x402 entry has no window');
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

/** x402Owned is an x402 entry as a listing carries it. */
function x402Owned(entry: AuthorizationEntry): OwnedAuthorization {
  const ledgerState = entry.state === 'used' || entry.state === 'expired' || entry.state === 'revoked' ? entry.state : 'active';
  return { authorization: { ...x402AuthorizationView(entry), status: ledgerState }, agent: entry.agent, x402: entry };
}

/** ownerOf is who asked for an entry, and the id of the AP2 mandates its window backs, if any. */
function ownerOf(entry: LedgerEntryView): { agent: string; mandateId?: string } {
  const mandateId = entry.evidence?.mandates?.mandateId;
  return { agent: entry.agent, ...(mandateId !== undefined && { mandateId }) };
}
