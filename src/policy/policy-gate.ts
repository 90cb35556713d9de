/**
 * The spending policy as the authorization pipeline's decision step (docs/decisions.md §15.3). The gate
 * holds the usage ledger behind budgets, velocity and new_merchant, rebuilt from the
 * authorization ledger (every window signed for registration, durable in state.journal before it
 * is signed) and kept current by its status changes: used settles, expired and revoked release,
 * failed cancels. Deciding and reserving are one synchronous step (evaluateAndReserve), so
 * concurrent requests cannot overspend a budget together.
 */
import type { AuthorizationEntry } from '../core/authorization-ledger.js';
import type { AuthorizationDecision, DecideAuthorization, DecisionRequest } from '../core/decision.js';
import type { RecordStore, StateRecord } from '../core/record-store.js';
import { LatchError } from '../errors/latch-error.js';
import { evaluatePolicy, type PolicyEvaluation, type PolicyRequest, type PolicyUsage } from './evaluate.js';
import { evaluateAndReserve } from './evaluate-and-reserve.js';
import { PolicyInvalidError } from './policy-invalid-error.js';
import { OWNER_AGENT } from './policy-scope-fields.js';
import { POLICY_WINDOW_SECONDS_MAX, type Policy } from './policy-types.js';
import { UsageLedger } from './usage-ledger.js';
import { merchantKeyOf } from './scope-match.js';
import { addressKey } from '../x402/assets.js';
import { chargeSchedule, type ChargeSchedule } from './recurring-exposure.js';
import { cardWindowKind, windowTerms } from '../core/authorization-request.js';

/** What the gate reads of the authorization ledger. */
export interface AuthorizationHistory {
  onStatus(listener: (entry: Readonly<AuthorizationEntry>) => void): void;
  since(atSeconds: number): Iterable<Readonly<AuthorizationEntry>>;
}

/** The state journal's record type of a merchant this device has had an authorization used or approved at. */
export const KNOWN_MERCHANT_RECORD_TYPE = 'known_merchant';
/** At most this many known merchants are kept; past it the oldest is forgotten (new_merchant asks again). */
export const KNOWN_MERCHANTS_MAX = 10_000;

export interface PolicyGateOptions {
  /** The effective policy now; throws PolicyInvalidError while policy.json is invalid. */
  policy: () => Policy;
  authorizations: AuthorizationHistory;
  store?: RecordStore;
  nowSeconds: () => number;
  /** A structured log line (a denial is logged, not audited: nothing was signed). */
  log?: (event: string, fields: Record<string, unknown>) => void;
}

/** PolicyGate decides authorizations and checks requests against the effective policy. */
export class PolicyGate {
  private usage: UsageLedger | undefined;
  private readonly knownMerchants = new Set<string>();

  constructor(private readonly options: PolicyGateOptions) {
    options.authorizations.onStatus((entry) => this.follow(entry));
    options.store?.register({
      recordTypes: [KNOWN_MERCHANT_RECORD_TYPE],
      apply: (record) => {
        if (typeof record['merchant'] !== 'string') throw new Error('malformed known_merchant record');
        this.rememberMerchant(record['merchant']);
        // Knowing a merchant only makes new_merchant ask less; a failed write keeps it known until restart.
        return () => undefined;
      },
      live: () => [...this.knownMerchants].map((merchant): StateRecord => ({ type: KNOWN_MERCHANT_RECORD_TYPE, merchant })),
    });
  }

  /** decide is the pipeline's decision step; an allowed request is reserved under facts.policyId. */
  readonly decide: DecideAuthorization = (request, context, facts) => {
    const policy = this.effective();
    const usage = this.usageFor(policy);
    const agent = context.principal.kind === 'owner' ? OWNER_AGENT : context.principal.name;
    const policyRequest = toPolicyRequest(request, agent, facts.nowSeconds);
    if (facts.replay === true) return this.decideReplay(policy, policyRequest, usage, facts, request, agent);
    const schedule = requestSchedule(request);
    const entry = {
      id: facts.policyId,
      agent,
      cardId: request.cardId,
      merchant: request.merchant,
      currency: request.currency,
      amountMinor: request.amountMinor,
      atSeconds: facts.nowSeconds,
      ...(schedule !== undefined && { schedule }),
      ...x402Facts(request),
    };
    if (facts.approvalId !== undefined || facts.ownerPresent === true) return this.decideApproved(policy, policyRequest, usage, entry, request, agent);
    const evaluation = evaluateAndReserve(policy, policyRequest, usage, entry);
    // An ask counts for velocity (docs/decisions.md §17.6): asking is itself something an agent
    // does to the owner, and a flood of asks must meet the same limit as a flood of requests.
    if (evaluation.decision === 'ask') usage.reserve({ ...entry, id: `ask:${facts.policyId}`, amountMinor: 0 });
    return { ...this.answer(evaluation, request, agent, policy), ...(evaluation.decision === 'ask' && { approvalTtlSeconds: policy.approvalTtlSeconds }) };
  };

  /**
   * decideReplay decides again a window signed earlier and about to be sent again from the
   * signed-window cache (docs/decisions.md §17.1): against the policy now, and against the usage
   * of everything but the window itself (already reserved under its policy id), reserving
   * nothing. An approved request still passes unless the policy now denies it outright.
   */
  private decideReplay(policy: Policy, policyRequest: PolicyRequest, usage: UsageLedger, facts: { policyId: string; approvalId?: string }, request: DecisionRequest, agent: string): AuthorizationDecision {
    const evaluation = evaluatePolicy(policy, policyRequest, usage.excluding(facts.policyId));
    if (facts.approvalId !== undefined && evaluation.decision !== 'deny') return { decision: 'allow' };
    return this.answer(evaluation, request, agent, policy);
  }

  /**
   * decideApproved decides a request the owner approved: the approval satisfies `ask`, so the
   * amount is reserved and it is allowed — unless the policy now denies it outright (a budget
   * with `over: deny` filled up meanwhile, or the file changed): an approval overrides an ask,
   * never a deny. Its merchant becomes known (new_merchant: "used or approved before").
   */
  private async decideApproved(policy: Policy, policyRequest: PolicyRequest, usage: UsageLedger, entry: Parameters<UsageLedger['reserve']>[0], request: DecisionRequest, agent: string): Promise<AuthorizationDecision> {
    const evaluation = evaluatePolicy(policy, policyRequest, usage);
    if (evaluation.decision === 'deny') return this.answer(evaluation, request, agent, policy);
    usage.reserve(entry);
    // Losing this write only makes new_merchant ask again: the safe direction.
    await this.markMerchantKnown(merchantKeyOf(policyRequest)).catch((error: unknown) => this.options.log?.('known_merchant_not_recorded', { reason: (error as Error).name }));
    return { decision: 'allow', basis: { decision: evaluation.decision, rule: evaluation.rule, reasons: [...evaluation.reasons], policySha256: policy.sha256 } };
  }

  /**
   * usage is what the next decision would read of past authorizations, read without deciding or
   * reserving, with the policy in force it was read under (one read of the file, so the two agree).
   * The policy's checks, dry runs and standings read it (policy-text/policy-reads.ts).
   */
  usageNow(): { policy: Policy; usage: PolicyUsage } {
    const policy = this.effective();
    return { policy, usage: this.usageFor(policy) };
  }

  /** usageUnder is the same history counted under a candidate policy not in force, built afresh. */
  usageUnder(candidate: Policy): PolicyUsage {
    return this.buildUsage(candidate);
  }

  /** effective returns the policy in force, or throws 503 policy_invalid naming the field. */
  effective(): Policy {
    try {
      return this.options.policy();
    } catch (error) {
      if (error instanceof PolicyInvalidError) throw new LatchError('policy_invalid', { param: error.field, message: `${error.message.replace(/\.$/, '')}. Nothing the policy governs is signed until policy.json is fixed.` });
      throw error;
    }
  }

  /**
   * merchantIsNew reports whether the policy in force would call merchant new (`new_merchant` is
   * not `allow` and no authorization there is known to be used or approved); false while the
   * policy is invalid, which decides nothing anyway.
   */
  merchantIsNew(merchant: string): boolean {
    let policy: Policy;
    try {
      policy = this.effective();
    } catch {
      return false;
    }
    return policy.newMerchant !== 'allow' && !this.usageFor(policy).merchantKnown(merchant);
  }

  /** markMerchantKnown records durably that an authorization at merchant was approved (for new_merchant). */
  async markMerchantKnown(merchant: string): Promise<void> {
    if (this.knownMerchants.has(merchant)) return;
    this.usage?.markMerchantKnown(merchant);
    if (this.options.store === undefined) this.rememberMerchant(merchant);
    else await this.options.store.commit({ type: KNOWN_MERCHANT_RECORD_TYPE, merchant });
  }

  private answer(evaluation: PolicyEvaluation, request: DecisionRequest, agent: string, policy: Policy): AuthorizationDecision {
    // The basis is kept with the authorization for its evidence pack (docs/decisions.md §22).
    if (evaluation.decision === 'allow') return { decision: 'allow', basis: { decision: 'allow', rule: evaluation.rule, reasons: [...evaluation.reasons], policySha256: policy.sha256 } };
    if (evaluation.decision === 'deny') {
      this.options.log?.('policy_denied', { rule: evaluation.rule, agent, kind: request.kind, merchant: request.merchant, card_id: request.cardId });
    }
    return { decision: evaluation.decision, rule: evaluation.rule, reasons: evaluation.reasons };
  }

  /**
   * usageFor returns the usage ledger for policy, built on first use from the authorization
   * ledger (the store is open by then), so a restart or a kill -9 loses no spending: every entry
   * not known to have failed counts its amount until the cloud said otherwise.
   */
  private usageFor(policy: Policy): UsageLedger {
    if (this.usage === undefined) this.usage = this.buildUsage(policy);
    if (this.usage.policy !== policy) this.usage.usePolicy(policy);
    return this.usage;
  }

  /** buildUsage makes a usage ledger for policy from the authorization ledger's history. */
  private buildUsage(policy: Policy): UsageLedger {
    const usage = new UsageLedger(policy);
    const cutoff = this.options.nowSeconds() - POLICY_WINDOW_SECONDS_MAX;
    for (const merchant of this.knownMerchants) usage.markMerchantKnown(merchant);
    for (const entry of this.options.authorizations.since(0)) {
      if (entry.state === 'used') usage.markMerchantKnown(merchantKeyOf(entryFacts(entry)));
      if (entry.state === 'failed' || entry.state === 'unregistered' || entry.signedAtSeconds <= cutoff) continue;
      usage.reserve(ledgerEntry(entry));
      applyState(usage, entry);
    }
    return usage;
  }

  /** follow applies a state change the authorization ledger learned to the usage ledger. */
  private follow(entry: Readonly<AuthorizationEntry>): void {
    const merchant = merchantKeyOf(entryFacts(entry));
    if (entry.state === 'used' && !this.knownMerchants.has(merchant)) {
      // Losing this write only makes new_merchant ask again: the safe direction.
      this.markMerchantKnown(merchant).catch((error: unknown) => this.options.log?.('known_merchant_not_recorded', { reason: (error as Error).name }));
    }
    if (this.usage !== undefined) applyState(this.usage, entry);
  }

  private rememberMerchant(merchant: string): void {
    this.knownMerchants.delete(merchant);
    if (this.knownMerchants.size >= KNOWN_MERCHANTS_MAX) {
      const oldest = this.knownMerchants.values().next();
      if (oldest.done !== true) this.knownMerchants.delete(oldest.value);
    }
    this.knownMerchants.add(merchant);
  }
}

function applyState(usage: UsageLedger, entry: Readonly<AuthorizationEntry>): void {
  switch (entry.state) {
    case 'active':
      return;
    case 'used':
      // Never less than was charged; an unknown charged amount keeps the full amount counted.
      usage.settle(entry.policyId, { usedMinor: entry.usedMinor ?? entry.amountMinor });
      return;
    case 'expired':
    case 'revoked':
      usage.release(entry.policyId);
      return;
    case 'failed':
    case 'unregistered':
      // Never reached the cloud: nothing can be charged, and it is no authorization for velocity.
      usage.cancelReservation(entry.policyId);
      return;
  }
}

function ledgerEntry(entry: Readonly<AuthorizationEntry>) {
  const schedule = entry.schedule === undefined ? undefined : chargeSchedule(entry.schedule.interval, entry.schedule.intervalCount, entry.schedule.maxCharges);
  return {
    id: entry.policyId,
    agent: entry.agent,
    cardId: entry.cardId,
    merchant: entry.merchant,
    currency: entry.currency,
    amountMinor: entry.amountMinor,
    atSeconds: entry.signedAtSeconds,
    ...(schedule !== undefined && { schedule }),
    ...x402EntryFacts(entry),
  };
}

/** x402EntryFacts is entryFacts without the merchant (for a usage entry, which has it already). */
function x402EntryFacts(entry: Readonly<AuthorizationEntry>): { cardless?: true; payTo?: string } {
  const { merchant: _merchant, ...rest } = entryFacts(entry);
  return rest;
}

/** entryFacts is what an x402 entry adds to the policy's facts: no card at all, and its payee. */
function entryFacts(entry: Readonly<AuthorizationEntry>): { merchant: string; cardless?: true; payTo?: string } {
  if (entry.x402 === undefined) return { merchant: entry.merchant };
  return { merchant: entry.merchant, cardless: true, payTo: addressKey(entry.x402.requirements.payTo) };
}

/** x402Facts is what an x402 request adds to the policy's facts: no card at all, its payee and network. */
function x402Facts(request: DecisionRequest): { cardless?: true; payTo?: string } {
  if (request.kind !== 'x402') return {};
  return { cardless: true, payTo: addressKey(request.x402.requirements.payTo) };
}

/** requestSchedule is the charging schedule of a request's recurring window (recurring, or a recurring AP2 mandate). */
function requestSchedule(request: DecisionRequest): ChargeSchedule | undefined {
  const recurring = request.kind === 'recurring' ? request : request.kind === 'ap2_mandate' ? windowTerms(request, 0).recurring : undefined;
  return recurring === undefined ? undefined : chargeSchedule(recurring.interval, recurring.intervalCount, recurring.maxCharges);
}

/** toPolicyRequest is what evaluation sees of a request by agent at nowSeconds. */
export function toPolicyRequest(request: DecisionRequest, agent: string, nowSeconds: number): PolicyRequest {
  const schedule = requestSchedule(request);
  return {
    ...(schedule !== undefined && { schedule }),
    agent,
    isOwner: agent === OWNER_AGENT,
    kind: request.kind,
    ...(request.kind === 'ap2_mandate' && { registers: cardWindowKind(request) }),
    cardId: request.cardId,
    merchant: request.merchant,
    currency: request.currency,
    amountMinor: request.amountMinor,
    nowSeconds,
    ...x402Facts(request),
    ...(request.kind === 'x402' && { network: request.x402.requirements.network }),
  };
}
