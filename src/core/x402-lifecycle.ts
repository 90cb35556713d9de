/**
 * What happens to an x402 authorization after it is answered (shared/spec/x402.md §3): the payload
 * bound before the payment leaves, the settlement the agent reports, a release, and the expiry of
 * an entry never bound. Each is one transition of the entry's state machine (core/x402-states.ts),
 * durable in state.journal and audited before it is answered. An agent sees and changes only its
 * own entries; another's is authorization_not_found, as an id that does not exist.
 */
import { LatchError } from '../errors/latch-error.js';
import { AUTHORIZATION_AMOUNT_MAX_MINOR, currencyDecimals } from '../money/amount.js';
import { compareAtomic, countedMinor, ATOMIC_AMOUNT } from '../x402/counting.js';
import { sameRequirements } from './x402-terms.js';
import { canonicalJson } from './approval.js';
import type { AuthorizationEntry } from './authorization-ledger.js';
import type { CoreDeps, OperationContext } from './core-deps.js';
import { principalName } from './principal.js';
import type { X402AuditLine } from './x402-deps.js';
import type { X402Report, X402Transition } from './x402-states.js';

/** The most a counted settlement above its maximum is taken at (a budget's largest limit): a bound, not a price. */
const SETTLED_COUNT_MAX_MINOR = 10_000_000_000;

/** x402Entry returns the caller's x402 entry, expired first if its time is up, else authorization_not_found. */
export async function x402Entry(deps: CoreDeps, id: string, context: OperationContext): Promise<AuthorizationEntry> {
  const entry = deps.authorizations.get(id);
  if (entry?.x402 === undefined || entry.state === 'failed') throw new LatchError('authorization_not_found');
  if (context.principal.kind !== 'owner' && entry.agent !== principalName(context.principal)) throw new LatchError('authorization_not_found');
  await expireIfDue(deps, entry);
  return current(deps, id);
}

/**
 * bindPayload records the payment payload made for an authorized entry, before it leaves: the
 * payload's `accepted` must be the authorized requirements (else the entry is released and the
 * answer is x402_terms_changed), and the entry must not have expired. Once only; the same payload
 * again is answered as it was.
 */
export async function bindPayload(deps: CoreDeps, id: string, accepted: unknown, payloadSha256: string, context: OperationContext): Promise<AuthorizationEntry> {
  const entry = await x402Entry(deps, id, context);
  const detail = entry.x402 as NonNullable<AuthorizationEntry['x402']>;
  if (detail.state === 'expired') throw new LatchError('x402_authorization_expired');
  if (detail.state === 'bound' && detail.payloadSha256 === payloadSha256) return entry;
  if (detail.state !== 'authorized') throw new LatchError('x402_authorization_not_bindable');
  if (!sameRequirements(detail.requirements, accepted)) {
    await change(deps, entry, { to: 'released', atSeconds: deps.nowSeconds() }, { operation: 'x402_released', reason: 'terms_changed' }, context);
    throw new LatchError('x402_terms_changed');
  }
  if (await change(deps, entry, { to: 'bound', atSeconds: deps.nowSeconds(), payloadSha256 }, { operation: 'x402_bound' }, context)) return current(deps, id);
  // Another request changed it first: the same payload bound is this answer; anything else is not.
  const now = current(deps, id);
  if (now.x402?.state === 'bound' && now.x402.payloadSha256 === payloadSha256) return now;
  throw new LatchError('x402_authorization_not_bindable');
}

/**
 * reportSettlement records what became of a bound payment: the first report wins (the same report
 * again is answered as it was, a different one is x402_settlement_conflict). `success: true`
 * counts what settled — `exact` its amount, `upto` the reported amount rounded up (absent: the
 * maximum; above it: as reported, audited x402_settlement_anomaly) — `success: false` and
 * `verify_failed` release it, and `transport_error` leaves it counted in full.
 */
export async function reportSettlement(deps: CoreDeps, id: string, report: X402Report, context: OperationContext): Promise<AuthorizationEntry> {
  const entry = await x402Entry(deps, id, context);
  const detail = entry.x402 as NonNullable<AuthorizationEntry['x402']>;
  if (detail.report !== null) {
    if (canonicalJson(detail.report) === canonicalJson(report)) return entry;
    throw new LatchError('x402_settlement_conflict');
  }
  if (detail.state !== 'bound') throw new LatchError('x402_not_bound');
  const atSeconds = deps.nowSeconds();
  let applied: boolean;
  let anomaly = false;
  if (report.kind === 'outcome') {
    applied =
      report.outcome === 'transport_error'
        ? await change(deps, entry, { to: 'reported', atSeconds, report }, undefined, context)
        : await change(deps, entry, { to: 'failed', atSeconds, report }, { operation: 'x402_failed', reason: report.outcome }, context);
  } else if (report.settleResponse['success'] !== true) {
    applied = await change(deps, entry, { to: 'failed', atSeconds, report }, { operation: 'x402_failed', reason: 'settle_failed' }, context);
  } else {
    const counted = settledCount(entry, report.settleResponse);
    anomaly = counted.anomaly;
    applied = await change(deps, entry, { to: 'settled', atSeconds, report, settledMinor: counted.settledMinor }, { operation: 'x402_settled' }, context);
  }
  const now = current(deps, id);
  if (!applied) {
    // Another report was first: the same one is this answer; a different one stands.
    if (now.x402?.report !== null && canonicalJson(now.x402?.report) === canonicalJson(report)) return now;
    throw new LatchError('x402_settlement_conflict');
  }
  if (anomaly) await deps.x402.audit({ operation: 'x402_settlement_anomaly', entry: now, context, reason: 'settled_above_maximum' });
  return now;
}

/**
 * releaseEntry gives an authorization's reservation back: an agent only before its payload is
 * bound, the owner any time before it settles. An entry already released (or expired, or failed)
 * is answered as it is; a settled one is authorization_not_active.
 */
export async function releaseEntry(deps: CoreDeps, id: string, context: OperationContext, reason = 'released'): Promise<AuthorizationEntry> {
  const entry = await x402Entry(deps, id, context);
  const detail = entry.x402 as NonNullable<AuthorizationEntry['x402']>;
  if (detail.state === 'released' || detail.state === 'expired' || detail.state === 'failed') return entry;
  if (detail.state === 'settled') throw new LatchError('authorization_not_active', { message: 'This x402 payment settled; what settled stays counted.' });
  if (detail.state === 'bound' && context.principal.kind !== 'owner') {
    throw new LatchError('agent_not_permitted', { message: 'Its payment was bound and may have been sent: only the owner can release it now; report the settlement instead.' });
  }
  await change(deps, entry, { to: 'released', atSeconds: deps.nowSeconds() }, { operation: 'x402_released', reason }, context);
  return current(deps, id);
}

/** expireDue expires every authorized entry whose time is up (the daemon calls it now and then, and before each x402 operation). */
export async function expireDue(deps: CoreDeps): Promise<void> {
  const guard = deps.x402;
  const now = deps.nowSeconds();
  const due = [...guard.index.unbound()].filter((entry) => entry.notAfterSeconds <= now);
  for (const entry of due) await expireIfDue(deps, entry);
}

async function expireIfDue(deps: CoreDeps, entry: Readonly<AuthorizationEntry>): Promise<void> {
  if (entry.x402?.state !== 'authorized' || entry.state !== 'active' || entry.notAfterSeconds > deps.nowSeconds()) return;
  await change(deps, entry, { to: 'expired', atSeconds: deps.nowSeconds() }, { operation: 'x402_expired' }, undefined);
}

/** settledCount is what a successful settlement counts, rounded up, and whether it was above the maximum. */
function settledCount(entry: Readonly<AuthorizationEntry>, settleResponse: Record<string, unknown>): { settledMinor: number; anomaly: boolean } {
  const detail = entry.x402 as NonNullable<AuthorizationEntry['x402']>;
  const amount = settleResponse['amount'];
  if (detail.requirements.scheme === 'exact' || typeof amount !== 'string' || !ATOMIC_AMOUNT.test(amount)) return { settledMinor: entry.amountMinor, anomaly: false };
  const counted = countedMinor(amount, detail.decimals, currencyDecimals(entry.currency) ?? 2, SETTLED_COUNT_MAX_MINOR) ?? SETTLED_COUNT_MAX_MINOR;
  const anomaly = compareAtomic(amount, detail.requirements.amount) > 0;
  // Below the maximum it counts what settled; above it, as reported (never less than the maximum counted).
  return { settledMinor: anomaly ? Math.max(counted, entry.amountMinor) : Math.min(counted, AUTHORIZATION_AMOUNT_MAX_MINOR), anomaly };
}

/**
 * change applies one transition durably, then writes its audit line; it answers false, writing
 * nothing, when the transition is no longer allowed (another request changed the entry first).
 */
async function change(deps: CoreDeps, entry: Readonly<AuthorizationEntry>, transition: X402Transition, audit: Omit<X402AuditLine, 'entry' | 'context'> | undefined, context: OperationContext | undefined): Promise<boolean> {
  const applied = await deps.authorizations.noteX402(entry.policyId, transition);
  if (applied && audit !== undefined) await deps.x402.audit({ ...audit, entry: current(deps, entry.policyId), context });
  return applied;
}

function current(deps: CoreDeps, id: string): AuthorizationEntry {
  const entry = deps.authorizations.get(id);
  if (entry === undefined) throw new LatchError('authorization_not_found');
  return entry;
}
