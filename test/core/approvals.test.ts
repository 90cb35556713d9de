import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApprovalBook } from '../../src/core/approval-book.js';
import type { ApprovalAudit, ApprovalDeps } from '../../src/core/approval-deps.js';
import { approveApproval, createApproval, denyApproval, type SignApproved } from '../../src/core/approvals.js';
import { getApproval, listApprovals } from '../../src/operations/approval-operations.js';
import type { OneTimeRequest } from '../../src/core/authorization-request.js';
import type { CoreDeps, OperationContext } from '../../src/core/core-deps.js';
import { checkOwnerPassphrase, type OwnerPassphrase } from '../../src/owner/owner-presence.js';
import { PassphraseLockout } from '../../src/owner/passphrase-lockout.js';
import { MemoryRecordStore } from '../support/memory-record-store.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { notifyNobody } from '../support/core-deps.js';
import { APPROVALS_PENDING_MAX_PER_AGENT_DEFAULT } from '../../src/datadir/config.js';

const REQUEST: OneTimeRequest = { kind: 'one_time', cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 6000, currency: 'USD', authorizationType: 'exact', ttlSeconds: 1800 };
const ASK = { decision: 'ask' as const, rule: 'large', reasons: ['amount at least 50.00'], approvalTtlSeconds: 60 };
const agent: OperationContext = { principal: { kind: 'agent', name: 'shopper' }, caller: { requestId: 'req_a', userAgent: 't' }, idempotencyKey: undefined };
const other: OperationContext = { ...agent, principal: { kind: 'agent', name: 'travel' } };
const owner: OperationContext = { ...agent, principal: { kind: 'owner' } };

/** A record store in memory that can be replayed into fresh owners, like state.journal after a restart. */
class MemoryStore extends MemoryRecordStore {}

/** How the test's passphrase answers: none set, or one that is always right or always wrong. */
type PassphraseCheck = 'not_set' | 'right' | 'wrong' | 'missing';

function passphraseFor(check: PassphraseCheck): OwnerPassphrase | undefined {
  if (check === 'not_set') return undefined;
  return { id: 'p1', verify: async () => check === 'right' };
}

function setup(options: { check?: PassphraseCheck; store?: MemoryStore } = {}) {
  let now = 1_000;
  const audits: ApprovalAudit[] = [];
  // The owner's one passphrase check (src/owner/), with a real lockout, as the daemon binds it.
  const lockout = new PassphraseLockout(options.store);
  const passphrase = (): OwnerPassphrase | undefined => passphraseFor(options.check ?? 'not_set');
  const approvals: ApprovalDeps = {
    book: new ApprovalBook(options.store),
    checkPassphrase: (candidate) => checkOwnerPassphrase({ lockout, passphrase, nowSeconds: () => now }, candidate),
    audit: async (record) => {
      audits.push(record);
    },
    pendingMaxPerCaller: () => APPROVALS_PENDING_MAX_PER_AGENT_DEFAULT,
    notify: notifyNobody,
  };
  const deps = { nowSeconds: () => now, approvals } as unknown as CoreDeps;
  return { deps, approvals, audits, lockout, setNow: (seconds: number) => (now = seconds) };
}

const signed: Awaited<ReturnType<SignApproved>> = {
  authorization: { policyId: 'pw_a', cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 6000, currency: 'USD', authorizationType: 'exact', kind: 'one_time', notBefore: 1, expiresAt: 2, status: 'active', createdAt: 1, transactionId: 'tx_a', recurring: null },
  window: { payload: {} as never, jws: 'a.b.c', keyId: 'k' },
};

function codeOf(error: unknown): string {
  return error instanceof LatchError ? error.code : String(error);
}

describe('expiry', () => {
  test('undecided within approval_ttl_seconds it expires once (one audit line); deciding it then is approval_not_pending', async () => {
    const { deps, audits, setNow } = setup();
    const approval = await createApproval(deps, deps.approvals as ApprovalDeps, REQUEST, agent, ASK, 'fp');
    assert.equal(approval.expiresAtSeconds, 1_060);
    setNow(1_059);
    assert.equal((await getApproval(deps, approval.id, agent)).status, 'pending_approval');
    setNow(1_060);
    assert.equal((await getApproval(deps, approval.id, agent)).status, 'expired');
    assert.equal((await getApproval(deps, approval.id, owner)).status, 'expired');
    assert.equal(audits.filter((a) => a.operation === 'approval_expired').length, 1);
    await assert.rejects(approveApproval(deps, async () => signed, approval.id, undefined, owner), (e) => codeOf(e) === 'approval_not_pending');
    await assert.rejects(denyApproval(deps, approval.id, undefined, owner), (e) => codeOf(e) === 'approval_not_pending');
  });

  test('the list sweeps expired approvals too', async () => {
    const { deps, setNow } = setup();
    const approval = await createApproval(deps, deps.approvals as ApprovalDeps, REQUEST, agent, ASK, 'fp');
    setNow(2_000);
    const page = await listApprovals(deps, { limit: 10 }, owner);
    assert.deepEqual(page.approvals.map((a) => [a.id, a.status]), [[approval.id, 'expired']]);
  });
});

describe('deciding', () => {
  test('another agent cannot see it; the owner and the asking agent can', async () => {
    const { deps } = setup();
    const approval = await createApproval(deps, deps.approvals as ApprovalDeps, REQUEST, agent, ASK, 'fp');
    await assert.rejects(getApproval(deps, approval.id, other), (e) => codeOf(e) === 'approval_not_found');
    assert.equal((await listApprovals(deps, { limit: 10 }, other)).approvals.length, 0);
    assert.equal((await getApproval(deps, approval.id, agent)).id, approval.id);
  });

  test('20 concurrent approvals sign once, as the asking agent, under the approval key', async () => {
    const { deps } = setup();
    const approval = await createApproval(deps, deps.approvals as ApprovalDeps, REQUEST, agent, ASK, 'fp');
    const calls: Array<{ request: unknown; context: OperationContext }> = [];
    const sign: SignApproved = async (request, context) => {
      calls.push({ request, context });
      await new Promise((resolve) => setImmediate(resolve));
      return signed;
    };
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => approveApproval(deps, sign, approval.id, undefined, owner)));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    assert.ok(results.every((r) => r.status === 'fulfilled' || codeOf(r.reason) === 'approval_not_pending'));
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0]?.request, REQUEST);
    assert.deepEqual(calls[0]?.context.principal, agent.principal);
    assert.equal(calls[0]?.context.idempotencyKey, approval.idempotencyKey);
  });

  test("the cloud's definite refusal makes it failed with the error; a 5xx leaves it pending", async () => {
    const { deps } = setup();
    const refused = await createApproval(deps, deps.approvals as ApprovalDeps, REQUEST, agent, ASK, 'fp');
    const failed = await approveApproval(deps, async () => { throw new LatchError('insufficient_funds'); }, refused.id, undefined, owner);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error?.code, 'insufficient_funds');
    const flaky = await createApproval(deps, deps.approvals as ApprovalDeps, REQUEST, agent, ASK, 'fp2');
    await assert.rejects(approveApproval(deps, async () => { throw new LatchError('upstream_unavailable'); }, flaky.id, undefined, owner), (e) => codeOf(e) === 'upstream_unavailable');
    assert.equal((await getApproval(deps, flaky.id, owner)).status, 'pending_approval');
  });
});

describe('passphrase lockout', () => {
  test('missing is refused but not counted; 5 wrong lock every approval, durably, for 15 minutes', async () => {
    const store = new MemoryStore();
    const { deps } = setup({ check: 'wrong', store });
    const approval = await createApproval(deps, deps.approvals as ApprovalDeps, REQUEST, agent, { ...ASK, approvalTtlSeconds: 3600 }, 'fp');
    for (let i = 0; i < 5; i++) await assert.rejects(approveApproval(deps, async () => signed, approval.id, 'guess', owner), (e) => codeOf(e) === 'invalid_passphrase');
    await assert.rejects(approveApproval(deps, async () => signed, approval.id, 'guess', owner), (e) => codeOf(e) === 'too_many_attempts');

    // After a restart: the lockout and the pending approval are replayed from the store.
    const restarted = setup({ check: 'right', store });
    restarted.setNow(1_000);
    await assert.rejects(approveApproval(restarted.deps, async () => signed, approval.id, 'right', owner), (e) => codeOf(e) === 'too_many_attempts');
    restarted.setNow(1_000 + 899);
    await assert.rejects(approveApproval(restarted.deps, async () => signed, approval.id, 'right', owner), (e) => codeOf(e) === 'too_many_attempts');
    restarted.setNow(1_000 + 900);
    const approved = await approveApproval(restarted.deps, async () => signed, approval.id, 'right', owner);
    assert.equal(approved.status, 'approved');
  });

  test('a missing passphrase is owner_presence_required and never locks', async () => {
    const { deps, lockout } = setup({ check: 'missing' });
    const approval = await createApproval(deps, deps.approvals as ApprovalDeps, REQUEST, agent, { ...ASK, approvalTtlSeconds: 900 }, 'fp');
    for (let i = 0; i < 8; i++) await assert.rejects(approveApproval(deps, async () => signed, approval.id, undefined, owner), (e) => codeOf(e) === 'owner_presence_required');
    assert.equal(lockout.lockedForSeconds(1_000, 'p1'), 0);
  });
});

describe('the passphrase check is a dependency', () => {
  test('an approval goes through only when the check says right or not set; any other answer is refused, nothing signed', async () => {
    const { deps, approvals } = setup();
    const approval = await createApproval(deps, approvals, REQUEST, agent, { ...ASK, approvalTtlSeconds: 900 }, 'fp');
    let signs = 0;
    const sign: SignApproved = async () => {
      signs += 1;
      return signed;
    };
    for (const answer of [false, undefined, 'wrong', null]) {
      approvals.checkPassphrase = async () => answer as never;
      await assert.rejects(approveApproval(deps, sign, approval.id, 'p', owner), (e) => codeOf(e) === 'invalid_passphrase', String(answer));
    }
    assert.equal(signs, 0);
    approvals.checkPassphrase = async () => 'right';
    assert.equal((await approveApproval(deps, sign, approval.id, 'p', owner)).status, 'approved');
    assert.equal(signs, 1);
  });
});

describe('idempotency', () => {
  test('the same caller key returns the same approval; the same key with another body is idempotency_key_reused', async () => {
    const { deps, audits } = setup();
    const keyed = { ...agent, idempotencyKey: 'k1' };
    const [first, second] = await Promise.all([
      createApproval(deps, deps.approvals as ApprovalDeps, REQUEST, keyed, ASK, 'fp'),
      createApproval(deps, deps.approvals as ApprovalDeps, REQUEST, keyed, ASK, 'fp'),
    ]);
    assert.equal(first.id, second.id);
    assert.equal(audits.filter((a) => a.operation === 'approval_requested').length, 1);
    await assert.rejects(createApproval(deps, deps.approvals as ApprovalDeps, { ...REQUEST, amountMinor: 6001 }, keyed, ASK, 'other'), (e) => codeOf(e) === 'idempotency_key_reused');
    // Another agent's same key is another approval.
    const theirs = await createApproval(deps, deps.approvals as ApprovalDeps, REQUEST, { ...other, idempotencyKey: 'k1' }, ASK, 'fp');
    assert.notEqual(theirs.id, first.id);
  });
});
