/**
 * The crash simulator's workload and its model. A seed picks a mixed sequence of operations on the
 * real stores (world.ts) — authorize, authorize and hold, capture or revoke, cancel a held window,
 * forward one, keep AP2 mandates, ask / approve / deny, signed-window idempotency, wrong
 * passphrases — a few at a time, concurrently, over a journal that compacts every few kilobytes.
 *
 * The model records, per entity (a ledger entry, a held window, an approval, an idempotency key,
 * the lockout), the outcome of the last operation acknowledged (its promise resolved before the
 * crash) and the outcome of the one in flight at the crash, if any. After the crash and a replay,
 * each entity must show one of those two: an acknowledged outcome never goes missing, and an
 * unacknowledged one is all there or not at all.
 */
import { approveApproval, createApproval, denyApproval } from '../../src/core/approvals.js';
import type { AuthorizationEntry } from '../../src/core/authorization-ledger.js';
import type { AuthorizationRequest, WindowRequest } from '../../src/core/authorization-request.js';
import type { OperationContext } from '../../src/core/operation-context.js';
import type { SignedWindow } from '../../src/core/window-payload.js';
import type { AuditEntry } from '../../src/datadir/audit-entry.js';
import type { SeededRandom } from '../adversarial/seeded-random.js';
import { SIM_NOW, type World } from './world.js';

/** What an entity shows; ABSENT when it is not there at all. */
export const ABSENT = 'absent';

interface Expectation {
  acked: string;
  inFlight: string | undefined;
}

const AGENT: OperationContext = { principal: { kind: 'agent', name: 'shopper' }, caller: { requestId: 'req_sim', userAgent: 'simulator' }, idempotencyKey: undefined };
const OWNER: OperationContext = { principal: { kind: 'owner' }, caller: { requestId: 'req_sim', userAgent: 'simulator' }, idempotencyKey: undefined };
const ASK = { decision: 'ask' as const, rule: 'large', reasons: ['amount at least 50.00'], approvalTtlSeconds: 3600 };
const HEX64 = 'ab'.repeat(32);

/** Model is what the workload was told, and what it expects of a replay. */
export class Model {
  readonly expectations = new Map<string, Expectation>();
  /** Ledger entries: policy id → amount, and whether it was held / has evidence. */
  readonly entries: Array<{ policyId: string; amountMinor: number; held: boolean; evidence: boolean }> = [];
  readonly asks: string[] = [];
  readonly keys: string[] = [];
  /** Entities with an operation under way: never two at once on one entity. */
  readonly busy = new Set<string>();
  /** Set at the crash: no later resolution counts as acknowledged. */
  crashed = false;
  /** Operations nobody waits for (deferred audit lines): awaited at the workload's end. */
  readonly background: Array<Promise<void>> = [];

  expect(entity: string): Expectation {
    let found = this.expectations.get(entity);
    if (found === undefined) {
      found = { acked: ABSENT, inFlight: undefined };
      this.expectations.set(entity, found);
    }
    return found;
  }

  /** run performs one operation that will show outcome on each entity once acknowledged. */
  async run(outcomes: Record<string, string>, operation: () => Promise<unknown>): Promise<void> {
    const entities = Object.keys(outcomes);
    for (const entity of entities) {
      this.busy.add(entity);
      this.expect(entity).inFlight = outcomes[entity];
    }
    try {
      await operation();
      if (this.crashed) return;
      for (const entity of entities) this.expect(entity).acked = outcomes[entity] as string;
      for (const entity of entities) this.expect(entity).inFlight = undefined;
    } catch {
      // Refused or cut by the crash: not acknowledged. Its outcome may still be whole on disk.
    } finally {
      if (!this.crashed) for (const entity of entities) this.busy.delete(entity);
    }
  }
}

function entryOf(policyId: string, amountMinor: number, evidence: boolean): AuthorizationEntry {
  return {
    policyId,
    agent: 'shopper',
    cardId: 'card_sim',
    merchant: 'sim.example.com',
    currency: 'USD',
    amountMinor,
    kind: 'one_time',
    authorizationType: 'exact',
    signedAtSeconds: SIM_NOW,
    notAfterSeconds: SIM_NOW + 3600,
    state: 'active',
    usedMinor: null,
    ...(evidence && {
      evidence: {
        request: { kind: 'ap2_mandate', cardId: 'card_sim', merchant: 'sim.example.com', amountMinor, currency: 'USD' } as unknown as WindowRequest,
        requestSha256: HEX64,
        receivedAtSeconds: SIM_NOW,
        window: { policy_id: policyId } as never,
        keyId: 'key_sim',
        decision: { decision: 'allow', rule: null, reasons: [], policySha256: null },
        approvalId: null,
      },
    }),
  };
}

/** entryOutcome is how a ledger entry shows: state, used, JWS, mandates. */
export function entryOutcome(state: string, usedMinor: number | null, jws: string | undefined, mandateId: string | undefined): string {
  return `${state}|${usedMinor ?? '-'}|${jws ?? '-'}|${mandateId ?? '-'}`;
}

const jwsOf = (policyId: string) => `jws.${policyId}.sig`;

/** step starts one operation chosen by random over world, recorded in model; it resolves when that operation settles. */
export function step(world: World, model: Model, random: SeededRandom, n: number): Promise<void> {
  const idle = <T>(items: readonly T[], key: (item: T) => string) => items.filter((item) => !model.busy.has(key(item)));
  const acked = (entity: string) => model.expect(entity).acked;
  const activeEntries = idle(model.entries, (entry) => `entry:${entry.policyId}`).filter((entry) => acked(`entry:${entry.policyId}`).startsWith('active|'));
  const choice = random.int(10);
  if (choice <= 1 || activeEntries.length === 0) {
    const held = choice === 1;
    const policyId = `pw_${n}`;
    const amountMinor = 100 + random.int(900);
    const evidence = random.int(3) === 0;
    model.entries.push({ policyId, amountMinor, held, evidence });
    if (!held) {
      const recorded = model.run({ [`entry:${policyId}`]: entryOutcome('active', null, jwsOf(policyId), undefined) }, () => world.ledger.recordSigned(entryOf(policyId, amountMinor, evidence), () => jwsOf(policyId)));
      return recorded.then(() => (model.expect(`entry:${policyId}`).acked === ABSENT ? undefined : registerAudited(world, model, n)));
    }
    // Recorded, then held: two acknowledgements, as sign-window.ts makes them.
    return model.run({ [`entry:${policyId}`]: entryOutcome('active', null, undefined, undefined), [`held:${policyId}`]: 'held' }, async () => {
      await world.ledger.record(entryOf(policyId, amountMinor, evidence));
      if (!model.crashed) model.expect(`entry:${policyId}`).acked = entryOutcome('active', null, undefined, undefined);
      await world.held.hold(policyId, jwsOf(policyId), '/v1/authorizations', SIM_NOW + 3600);
    });
  }
  const entry = random.pick(activeEntries);
  const entity = `entry:${entry.policyId}`;
  const [state, , jws, mandate] = acked(entity).split('|') as [string, string, string, string];
  const jwsNow = jws === '-' ? undefined : jws;
  const mandateNow = mandate === '-' ? undefined : mandate;
  if (choice === 2) {
    const used = entry.amountMinor - random.int(entry.amountMinor);
    return model.run({ [entity]: entryOutcome('used', used, jwsNow, mandateNow) }, () => world.ledger.noteStatus(entry.policyId, 'used', used));
  }
  if (choice === 3 && entry.held && acked(`held:${entry.policyId}`) === 'held' && !model.busy.has(`held:${entry.policyId}`)) {
    // Cancel a held window, as owned-authorization does: drop it, then revoke the entry.
    return model.run({ [`held:${entry.policyId}`]: ABSENT, [entity]: entryOutcome('revoked', null, jwsNow, mandateNow) }, async () => {
      await world.held.drop(entry.policyId);
      if (!model.crashed) model.expect(`held:${entry.policyId}`).acked = ABSENT;
      await world.ledger.noteStatus(entry.policyId, 'revoked');
    });
  }
  if (choice === 4 && entry.held && acked(`held:${entry.policyId}`) === 'held' && !model.busy.has(`held:${entry.policyId}`)) {
    return model.run({ [`held:${entry.policyId}`]: ABSENT }, () => world.held.take(jwsOf(entry.policyId), '/v1/authorizations', SIM_NOW));
  }
  if (choice === 5 && entry.evidence && mandateNow === undefined) {
    const mandateId = `md_${n}`;
    const mandates = { mandateId, openCheckoutMandate: `checkout.${n}`, openPaymentMandate: `payment.${n}`, openCheckoutHash: HEX64, keyId: 'mandate_key', iat: SIM_NOW, exp: SIM_NOW + 3600 };
    return model.run({ [entity]: entryOutcome(state, null, jwsNow, mandateId) }, () => world.ledger.keepMandates(entry.policyId, mandates));
  }
  if (choice === 6 && random.int(2) === 0) {
    // Another process (a CLI command) appends while the daemon holds audit.head's reservation.
    return model.run({ [`audit:${auditId('cli', n)}`]: 'written' }, () => world.otherAppender.append(auditLine('policy_removed', auditId('cli', n))));
  }
  return approvalStep(world, model, random, n);
}

/** auditId names one of the workload's own audit lines (its request_id). */
export const auditId = (kind: string, n: number) => `sim-${kind}-${n}`;

function auditLine(operation: string, requestId: string): AuditEntry {
  return { operation, agent: 'owner', request_id: requestId, key_id: 'key_sim' };
}

/**
 * registerAudited is what follows a window's ledger record in the daemon: the line of the request
 * that carries it, on disk before it leaves (acknowledged), then the outcome line, deferred: it
 * joins the next commit or is written by its timer, and nobody waits for it.
 */
async function registerAudited(world: World, model: Model, n: number): Promise<void> {
  await model.run({ [`audit:${auditId('sign', n)}`]: 'written' }, async () => {
    const written = await world.audit.append(auditLine('authorize', auditId('sign', n)));
    // As the daemon's recorder does: the line is on disk, the anchor may move to it.
    world.anchor.note({ seq: written.record.seq, hash: written.hash });
  });
  if (model.expect(`audit:${auditId('sign', n)}`).acked === ABSENT) return;
  model.background.push(model.run({ [`audit:${auditId('outcome', n)}`]: 'written' }, () => world.audit.appendDeferred(auditLine('authorization_outcome', auditId('outcome', n)))));
}

/** approvalStep asks, decides, signs once under a key, or counts a wrong passphrase. */
function approvalStep(world: World, model: Model, random: SeededRandom, n: number): Promise<void> {
  const pending = model.asks.filter((key) => !model.busy.has(`approval:${key}`) && model.expect(`approval:${key}`).acked === 'pending_approval');
  const choice = random.int(6);
  if (choice <= 1 || pending.length === 0) {
    const key = `ask-${n}`;
    model.asks.push(key);
    const request = { kind: 'one_time', cardId: 'card_sim', merchant: 'ask.example.com', amountMinor: 6000, currency: 'USD', authorizationType: 'exact', ttlSeconds: 1800 } as AuthorizationRequest;
    return model.run({ [`approval:${key}`]: 'pending_approval' }, () => createApproval(world.deps, world.approvals, request, { ...AGENT, idempotencyKey: key }, ASK, `fp-${key}`));
  }
  const key = random.pick(pending);
  const id = world.book.findByCallerKey(AGENT.principal, key)?.id as string;
  if (choice === 2) return model.run({ [`approval:${key}`]: 'denied' }, () => denyApproval(world.deps, id, 'simulated', OWNER));
  if (choice === 3) {
    const policyId = `pw_${n}`;
    model.entries.push({ policyId, amountMinor: 6000, held: false, evidence: false });
    const sign = async () => {
      await model.run({ [`entry:${policyId}`]: entryOutcome('active', null, jwsOf(policyId), undefined) }, () => world.ledger.recordSigned(entryOf(policyId, 6000, false), () => jwsOf(policyId)));
      if (model.expect(`entry:${policyId}`).acked === ABSENT) throw new Error('not recorded');
      return { authorization: { policyId } as never, window: { payload: { policy_id: policyId }, jws: jwsOf(policyId), keyId: 'key_sim' } as SignedWindow };
    };
    return model.run({ [`approval:${key}`]: 'approved' }, () => approveApproval(world.deps, sign, id, undefined, OWNER));
  }
  if (choice === 4) {
    const reused = model.keys.filter((existing) => !model.busy.has(`window:${existing}`));
    const windowKey = reused.length > 0 && random.int(2) === 0 ? random.pick(reused) : `idem-${n}`;
    if (!model.keys.includes(windowKey)) model.keys.push(windowKey);
    const known = model.expect(`window:${windowKey}`).acked;
    const policyId = known === ABSENT ? `pw_window_${n}` : known;
    const sign = async (): Promise<SignedWindow> => ({ payload: { policy_id: policyId } as never, jws: jwsOf(policyId), keyId: 'key_sim' });
    return model.run({ [`window:${windowKey}`]: policyId }, () => world.windows.signOnce('scope', windowKey, `fp-${windowKey}`, SIM_NOW, sign));
  }
  const failures = Number(model.expect('lockout').acked === ABSENT ? 0 : model.expect('lockout').acked);
  if (model.busy.has('lockout') || failures >= 4) return model.run({}, async () => undefined);
  return model.run({ lockout: String(failures + 1) }, () => world.lockout.check(SIM_NOW, 'p1', async () => false));
}
