import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestAuthorization, signAccountWindow, signApprovedRequest, RECURRING_DEFAULT_SECONDS } from '../../src/core/authorizations.js';
import type { WindowRequest, MerchantVerificationRequest, OneTimeRequest, RecurringRequest } from '../../src/core/authorization-request.js';
import type { CloudCall, CloudGateway } from '../../src/core/cloud-gateway.js';
import type { CoreDeps, OperationContext, SignatureAudit } from '../../src/core/core-deps.js';
import type { Authorization } from '../../src/core/model.js';
import { OWNER } from '../../src/core/principal.js';
import { SignedWindowCache } from '../../src/core/signed-window-cache.js';
import { generateSecretKey } from '../support/raw-signing.js';
import { testSigner } from '../support/test-signer.js';
import { verifyJwsCompact } from '../../src/verify/jws-verify.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { parseAmountText } from '../../src/money/amount.js';
import { allowEverything } from '../../src/core/decision.js';
import { neverPaused } from '../../src/core/signing-pause.js';
import { approvalsNeverAsked, outcomesIgnored, refusalsIgnored, noCardLabels, x402NeverAsked } from '../support/core-deps.js';
import { StoredAuthorizationLedger } from '../../src/core/authorization-ledger.js';
import { HeldWindows } from '../../src/core/held-windows.js';
import { MemoryRecordStore } from '../support/memory-record-store.js';

const NOW = 1_800_000_000;
const secretKey = generateSecretKey();

interface Registered {
  jws: string;
  call: CloudCall;
}

interface Fake {
  deps: CoreDeps;
  sent: Registered[];
  /** What happened, in order: `audit:<operation>` and `send:/v1/authorizations`. */
  events: string[];
  audits: SignatureAudit[];
}

const unexpected = () => Promise.reject(new Error('not used by this test'));

/** fakeDeps registers every window as the authorization it describes, through a fake cloud gateway. */
function fakeDeps(): Fake {
  const sent: Registered[] = [];
  const events: string[] = [];
  const audits: SignatureAudit[] = [];
  const cloud: CloudGateway = {
    async registerAuthorization(jws, call): Promise<Authorization> {
      // As the daemon's cloud client does: the window's audit line, then the request.
      if (call.window !== undefined) {
        audits.push(call.window);
        events.push(`audit:${call.window.operation}`);
      }
      sent.push({ jws, call });
      events.push('send:/v1/authorizations');
      assert.equal(call.key, key, 'the request is signed by the key that signed the window');
      const verified = verifyJwsCompact(jws, key.publicKey);
      assert.ok(typeof verified !== 'string', 'the cloud receives a valid window');
      const p = verified.payload as Record<string, any>;
      return {
        policyId: p['policy_id'],
        cardId: p['card_id'] ?? null,
        merchant: p['merchant'],
        amountMinor: parseAmountText(p['amount'], { param: 'amount', allowZero: true }),
        currency: p['currency'],
        authorizationType: p['authorization_type'],
        kind: p['kind'],
        notBefore: p['not_before'],
        expiresAt: p['not_after'],
        status: 'active',
        createdAt: NOW,
        transactionId: 'tx_abc',
        recurring: p['kind'] === 'recurring' ? { interval: p['interval'], intervalCount: p['interval_count'], maxCharges: p['max_charges'] ?? null, currentPeriodStart: null, currentPeriodEnd: null } : null,
      };
    },
    revokeAuthorization: unexpected,
    getAuthorization: unexpected,
    listAuthorizations: unexpected,
    allocate: unexpected,
  };
  const authorizations = new StoredAuthorizationLedger(new MemoryRecordStore(), () => NOW);
  const { signer, key } = testSigner(secretKey, authorizations);
  const deps: CoreDeps = {
    signer,
    heldWindows: new HeldWindows(new MemoryRecordStore()),
    device: () => ({ key, deviceId: 'dev_test', cloud }),
    audit: async (record) => {
      audits.push(record);
      events.push(`audit:${record.operation}`);
    },
    nowSeconds: () => NOW,
    paused: neverPaused,
    decide: allowEverything,
    authorizations,
    approvals: approvalsNeverAsked(),
    signedWindows: new SignedWindowCache(),
    outcome: outcomesIgnored,
    refused: refusalsIgnored,
    cloudNowSeconds: () => NOW,
    mandates: noCardLabels,
    x402: x402NeverAsked(authorizations),
  };
  return { deps, sent, events, audits };
}

const context = (idempotencyKey?: string): OperationContext => ({ principal: OWNER, caller: { requestId: 'req_1', userAgent: 'test' }, idempotencyKey });
const oneTime: OneTimeRequest = { kind: 'one_time', cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 1250, currency: 'USD', authorizationType: 'exact', ttlSeconds: 1800 };
const verification: MerchantVerificationRequest = { kind: 'merchant_verification', cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 0, currency: 'USD', ttlSeconds: 600 };

/** created runs a request and returns the created authorization (the only outcome without a policy). */
async function created(deps: CoreDeps, request: WindowRequest, operationContext: OperationContext) {
  const result = await requestAuthorization(deps, request, operationContext);
  assert.equal(result.outcome, 'created');
  return result;
}

test('authorize: the signature is audited before anything is sent; a key is generated when absent', async () => {
  const fake = fakeDeps();
  const result = await created(fake.deps, oneTime, context());
  assert.deepEqual(fake.events, ['audit:authorize', 'send:/v1/authorizations']);
  assert.equal(result.authorization.amountMinor, 1250);
  assert.equal(result.authorization.expiresAt, NOW + 1800);
  assert.equal(fake.audits[0]?.policyId, result.window.payload.policy_id);
  assert.match(fake.sent[0]?.call.idempotencyKey ?? '', /^idem_/);
});

test('the same Idempotency-Key and input re-send the first window; another input is refused unsent', async () => {
  const fake = fakeDeps();
  const first = await created(fake.deps, oneTime, context('k1'));
  const again = await created(fake.deps, oneTime, context('k1'));
  assert.equal(again.authorization.policyId, first.authorization.policyId);
  assert.equal(fake.sent[1]?.jws, fake.sent[0]?.jws, 'byte-identical body');
  assert.equal(fake.sent[1]?.call.idempotencyKey, 'k1');
  // One window signature, recorded each time it leaves with a request: the same policy_id twice.
  assert.deepEqual(fake.audits.map((audit) => audit.policyId), [first.window.payload.policy_id, first.window.payload.policy_id]);
  for (const other of [{ ...oneTime, amountMinor: 1251 }, { ...oneTime, merchant: 'other.example.com' }]) {
    await assert.rejects(requestAuthorization(fake.deps, other, context('k1')), (error: unknown) => error instanceof LatchError && error.code === 'idempotency_key_reused');
  }
  await assert.rejects(
    requestAuthorization(fake.deps, verification, context('k1')),
    (error: unknown) => error instanceof LatchError && error.code === 'idempotency_key_reused',
    'the same key on another operation',
  );
  assert.equal(fake.sent.length, 2);
  const fresh = await created(fake.deps, oneTime, context('k2'));
  assert.notEqual(fresh.authorization.policyId, first.authorization.policyId);
});

test('without an Idempotency-Key every request signs afresh; the cache is a required dependency', async () => {
  const fake = fakeDeps();
  const first = await created(fake.deps, oneTime, context());
  const again = await created(fake.deps, oneTime, context());
  assert.notEqual(again.window.payload.policy_id, first.window.payload.policy_id);
  // @ts-expect-error signedWindows is required: a retry must never sign a second window (docs/decisions.md §28.6).
  const missing: CoreDeps = { ...fake.deps, signedWindows: undefined };
  assert.ok(missing !== undefined);
});

test('merchant verification is a ceiling window of kind merchant_verification', async () => {
  const fake = fakeDeps();
  const result = await created(fake.deps, verification, context());
  assert.equal(result.window.payload.kind, 'merchant_verification');
  assert.equal(result.window.payload.authorization_type, 'ceiling');
  assert.equal(result.window.payload.amount, '0.00');
  assert.equal(result.window.payload.not_after - result.window.payload.not_before, 600);
  assert.equal(fake.audits[0]?.operation, 'merchant_bind');
});

test('recurring: starts now and runs a year unless told; the schedule is signed', async () => {
  const fake = fakeDeps();
  const base = { kind: 'recurring', cardId: 'card_a', merchant: 'stream.example.com', amountMinor: 999, currency: 'USD', authorizationType: 'ceiling', interval: 'month', intervalCount: 1 } as const;
  const plain = await created(fake.deps, { ...base, startsAt: null, endsAt: null, maxCharges: null }, context());
  assert.equal(plain.window.payload.not_before, NOW);
  assert.equal(plain.window.payload.not_after, NOW + RECURRING_DEFAULT_SECONDS);
  assert.equal(plain.window.payload.interval, 'month');
  assert.equal(plain.window.payload.max_charges, undefined);
  const bounded = await created(fake.deps, { ...base, startsAt: NOW + 60, endsAt: NOW + 86_400 * 90, maxCharges: 3 }, context());
  assert.equal(bounded.window.payload.not_before, NOW + 60);
  assert.equal(bounded.window.payload.not_after, NOW + 86_400 * 90);
  assert.equal(bounded.window.payload.max_charges, 3);
});

test('recurring: a schedule out of bounds is refused in the core, before anything is signed or sent', async () => {
  const base: RecurringRequest = { kind: 'recurring', cardId: 'card_a', merchant: 'stream.example.com', amountMinor: 999, currency: 'USD', authorizationType: 'ceiling', interval: 'month', intervalCount: 1, startsAt: null, endsAt: null, maxCharges: null };
  const refused: Array<[Partial<RecurringRequest>, string]> = [
    [{ startsAt: NOW - 301 }, 'starts_at'],
    [{ startsAt: NOW + 60, endsAt: NOW + 60 }, 'ends_at'],
    [{ endsAt: NOW + 6 * 366 * 86_400 }, 'ends_at'],
  ];
  for (const [change, param] of refused) {
    const fake = fakeDeps();
    await assert.rejects(
      requestAuthorization(fake.deps, { ...base, ...change }, context('k1')),
      (error: unknown) => error instanceof LatchError && error.code === 'invalid_request' && error.param === param,
    );
    assert.deepEqual(fake.events, [], param);
  }
});

test('an approved request is checked again when it is signed: a schedule that started while the owner decided is refused, unsent', async () => {
  // signApprovedRequest skipped checkRequest, so an approval given late signed a schedule starting in the past.
  const fake = fakeDeps();
  const late: RecurringRequest = { kind: 'recurring', cardId: 'card_a', merchant: 'stream.example.com', amountMinor: 999, currency: 'USD', authorizationType: 'ceiling', interval: 'month', intervalCount: 1, startsAt: NOW - 3_600, endsAt: null, maxCharges: null };
  await assert.rejects(
    signApprovedRequest(fake.deps, late, context(), 'ap_late'),
    (error: unknown) => error instanceof LatchError && error.code === 'invalid_request' && error.param === 'starts_at',
  );
  assert.deepEqual(fake.events, [], 'nothing signed or sent');
  const onTime = await signApprovedRequest(fake.deps, { ...late, startsAt: NOW + 60 }, context(), 'ap_on_time');
  assert.equal(onTime.window?.payload.not_before, NOW + 60);
});

test('the decision step sees the exact request and the caller before anything is signed', async () => {
  const fake = fakeDeps();
  const seen: string[] = [];
  fake.deps.decide = (request, operationContext) => {
    seen.push(`${request.kind}:${operationContext.principal.kind}:${fake.events.length}`);
    return { decision: 'allow' };
  };
  await created(fake.deps, oneTime, { ...context(), principal: { kind: 'agent', name: 'shopper' } });
  assert.deepEqual(seen, ['one_time:agent:0']);
  assert.equal(fake.audits[0]?.principal.kind, 'agent');
});

test('an account-wide window has no card_id and is typ policy_window', async () => {
  const fake = fakeDeps();
  const { cardId: _unused, kind: _kind, ...input } = oneTime;
  const signed = await signAccountWindow(fake.deps, input, context());
  assert.equal(signed.payload.typ, 'policy_window');
  assert.ok(!('card_id' in signed.payload));
  assert.equal(fake.sent.length, 0, 'contacts nobody');
  assert.equal(fake.audits[0]?.cardId, null);
});
