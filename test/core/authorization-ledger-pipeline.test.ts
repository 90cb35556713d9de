/**
 * The pipeline writes the authorization ledger: an entry for every window signed for
 * registration, durable before the window reaches the cloud; `failed` when the cloud refuses it
 * or the audit line cannot be written; still `active` when the cloud's answer is unknown.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StoredAuthorizationLedger } from '../../src/core/authorization-ledger.js';
import { requestAuthorization, signCardWindow } from '../../src/core/authorizations.js';
import type { OneTimeRequest, RecurringRequest } from '../../src/core/authorization-request.js';
import type { CloudGateway } from '../../src/core/cloud-gateway.js';
import type { CoreDeps, OperationContext } from '../../src/core/core-deps.js';
import type { Authorization } from '../../src/core/model.js';
import { generateSecretKey } from '../support/raw-signing.js';
import { testSigner } from '../support/test-signer.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { WindowNotRecorded } from '../../src/core/signature-audit.js';
import { allowEverything } from '../../src/core/decision.js';
import { neverPaused } from '../../src/core/signing-pause.js';
import { approvalsNeverAsked, outcomesIgnored, refusalsIgnored, noCardLabels, x402NeverAsked } from '../support/core-deps.js';
import { HeldWindows } from '../../src/core/held-windows.js';
import { SignedWindowCache } from '../../src/core/signed-window-cache.js';
import { MemoryRecordStore } from '../support/memory-record-store.js';
import { LedgerPages } from '../../src/operations/ledger-pages.js';

/** The listing's pages of a ledger (src/operations/ledger-pages.ts), one per ledger, as the daemon makes them. */
const pages = new WeakMap<StoredAuthorizationLedger, LedgerPages>();
function pagesOf(ledger: StoredAuthorizationLedger): LedgerPages {
  const found = pages.get(ledger) ?? new LedgerPages(ledger);
  pages.set(ledger, found);
  return found;
}

const NOW = 1_800_000_000;
const secretKey = generateSecretKey();
const unexpected = () => Promise.reject(new Error('not used by this test'));
const agentContext: OperationContext = { principal: { kind: 'agent', name: 'shopper' }, caller: { requestId: 'req_1', userAgent: 'test' }, idempotencyKey: undefined };
const oneTime: OneTimeRequest = { kind: 'one_time', cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 1250, currency: 'USD', authorizationType: 'exact', ttlSeconds: 1800 };
const recurring: RecurringRequest = { kind: 'recurring', cardId: 'card_b', merchant: 'sub.example.com', amountMinor: 999, currency: 'USD', authorizationType: 'ceiling', interval: 'month', intervalCount: 1, startsAt: null, endsAt: null, maxCharges: null };

function setup(register: (policyId: string) => Promise<Authorization>, audit: () => Promise<void> = async () => undefined) {
  const ledger = new StoredAuthorizationLedger(new MemoryRecordStore(), () => NOW);
  const { signer, key } = testSigner(secretKey, ledger);
  const statesAtRegistration: Array<string | undefined> = [];
  const cloud: CloudGateway = {
    registerAuthorization: async (jws, call) => {
      // As the daemon's cloud client does: the window's audit line first, and nothing sent without it.
      if (call.window !== undefined) await audit().catch((error: unknown) => Promise.reject(new WindowNotRecorded(error)));
      const policyId = JSON.parse(Buffer.from(jws.split('.')[1] as string, 'base64url').toString())['policy_id'] as string;
      statesAtRegistration.push(ledger.get(policyId)?.state);
      return register(policyId);
    },
    revokeAuthorization: unexpected, getAuthorization: unexpected, listAuthorizations: unexpected, allocate: unexpected,
  };
  const deps: CoreDeps = {
    signer,
    heldWindows: new HeldWindows(new MemoryRecordStore()),
    signedWindows: new SignedWindowCache(),
    device: () => ({ key, deviceId: 'dev_test', cloud }),
    audit,
    nowSeconds: () => NOW,
    authorizations: ledger,
    paused: neverPaused,
    decide: allowEverything,
    approvals: approvalsNeverAsked(),
    outcome: outcomesIgnored,
    refused: refusalsIgnored,
    cloudNowSeconds: () => NOW,
    mandates: noCardLabels,
    x402: x402NeverAsked(ledger),
  };
  return { deps, ledger, statesAtRegistration };
}

const accepted = async (policyId: string) => ({ policyId } as Authorization);

test('every authorization kind is recorded, with the caller, before it is registered', async () => {
  const { deps, ledger, statesAtRegistration } = setup(accepted);
  await requestAuthorization(deps, oneTime, agentContext);
  await requestAuthorization(deps, recurring, agentContext);
  assert.deepEqual(statesAtRegistration, ['active', 'active']);
  const page = pagesOf(ledger).page({ limit: 10, agent: 'shopper' });
  assert.deepEqual(
    page.entries.map((e) => [e.kind, e.cardId, e.merchant, e.amountMinor, e.authorizationType, e.signedAtSeconds, e.notAfterSeconds, e.state]),
    [
      ['recurring', 'card_b', 'sub.example.com', 999, 'ceiling', NOW, NOW + 365 * 24 * 3600, 'active'],
      ['one_time', 'card_a', 'shop.example.com', 1250, 'exact', NOW, NOW + 1800, 'active'],
    ],
  );
});

test('the low-level signing primitive registers nothing, and its window is in the ledger before it is answered (owner-presence §3)', async () => {
  const { deps, ledger, statesAtRegistration } = setup(accepted);
  const signed = await signCardWindow(deps, oneTime, agentContext);
  assert.deepEqual(statesAtRegistration, [], 'nothing was sent to the cloud');
  assert.equal(ledger.size, 1);
  const entry = pagesOf(ledger).page({ limit: 1 }).entries[0];
  assert.equal(entry?.policyId, signed.payload.policy_id);
  assert.equal(entry?.state, 'active');
});

test('what the cloud answered decides the entry: refused is failed, unknown stays active', async () => {
  const cases: Array<{ name: string; error: Error; state: string }> = [
    { name: 'insufficient funds (402)', error: new LatchError('insufficient_funds'), state: 'failed' },
    { name: 'card not found (404)', error: new LatchError('card_not_found'), state: 'failed' },
    { name: 'upstream unavailable (502)', error: new LatchError('upstream_unavailable'), state: 'active' },
    { name: 'a socket error', error: new Error('ECONNRESET'), state: 'active' },
  ];
  for (const { name, error, state } of cases) {
    const { deps, ledger } = setup(() => Promise.reject(error));
    await assert.rejects(requestAuthorization(deps, oneTime, agentContext), (thrown: unknown) => thrown === error, name);
    assert.equal(pagesOf(ledger).page({ limit: 1 }).entries[0]?.state, state, name);
  }
});

test('a signature whose audit line fails is recorded unregistered (never to be sent) and never registered', async () => {
  const { deps, ledger, statesAtRegistration } = setup(accepted, () => Promise.reject(new Error('disk full')));
  await assert.rejects(requestAuthorization(deps, oneTime, agentContext), /disk full/);
  assert.deepEqual(statesAtRegistration, []);
  assert.equal(pagesOf(ledger).page({ limit: 1 }).entries[0]?.state, 'unregistered');
});
