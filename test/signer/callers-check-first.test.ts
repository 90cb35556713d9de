/**
 * The callers of the signer check first (docs/decisions.md §42): entering a signing purpose with
 * its state broken stops the daemon, so whatever concurrency or outside input can change between a
 * caller's decision and its signature is checked again by the caller, in the turn it signs, and
 * answered from the error table. Each case below is one a concurrent request (or a forgetting
 * ledger) produces; the invariant handler throws here, so entering the purpose broken would show
 * as InvariantBroken instead of the refusal expected.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Ap2MandateRequest } from '../../src/core/authorization-request.js';
import { StoredAuthorizationLedger, type AuthorizationEntry } from '../../src/core/authorization-ledger.js';
import { signAccountWindow } from '../../src/core/authorizations.js';
import { signRegisteredMandates } from '../../src/core/ap2-mandates.js';
import type { CoreDeps, OperationContext } from '../../src/core/core-deps.js';
import { allowEverything } from '../../src/core/decision.js';
import { HeldWindows } from '../../src/core/held-windows.js';
import { X402Index } from '../../src/core/x402-index.js';
import { SignedWindowCache } from '../../src/core/signed-window-cache.js';
import { neverPaused } from '../../src/core/signing-pause.js';
import type { PolicyWindowPayload, SignedWindow } from '../../src/core/window-payload.js';
import { CloudClient } from '../../src/cloud/cloud-client.js';
import { onInvariantBroken, throwBroken } from '../../src/errors/invariant.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { signPack } from '../../src/evidence/sign-pack.js';
import { MandateKey } from '../../src/signer/ap2-mandate.js';
import { generateP256Scalar, p256PublicJwkOfScalar } from '../../src/signer/p256-scalar.js';
import { approvalsNeverAsked } from '../support/core-deps.js';
import { MemoryRecordStore } from '../support/memory-record-store.js';
import { testSigner, upstreamKeyOf } from '../support/test-signer.js';

const NOW = 1_800_000_000;
const secret = new Uint8Array(32).fill(9);
const owner: OperationContext = { principal: { kind: 'owner' }, caller: { requestId: 'req_1', userAgent: 'test' }, idempotencyKey: undefined };
const refusedWith = (code: string) => (error: unknown): boolean => error instanceof LatchError && error.code === code;

let restore: () => void;
before(() => (restore = onInvariantBroken(throwBroken)));
after(() => restore());

function coreDeps(ledger: StoredAuthorizationLedger, mandate?: MandateKey): CoreDeps {
  const { signer, key } = testSigner(secret, ledger, mandate);
  const unexpected = () => Promise.reject(new Error('not used by this test'));
  const never = (): never => {
    throw new Error('this test makes no x402 payment');
  };
  // The recorders dropped, no x402 payment, no card label (every member named, as on main since §44).
  return {
    x402: { assets: never, audit: never, index: new X402Index(ledger), running: new Map() },
    outcome: () => undefined,
    refused: () => undefined,
    cloudNowSeconds: () => NOW,
    mandates: { cardLabel: async () => undefined },
    signer,
    heldWindows: new HeldWindows(new MemoryRecordStore()),
    signedWindows: new SignedWindowCache(),
    device: () => ({ key, deviceId: 'dev_test', cloud: { registerAuthorization: unexpected, revokeAuthorization: unexpected, getAuthorization: unexpected, listAuthorizations: unexpected, allocate: unexpected } }),
    audit: async () => undefined,
    nowSeconds: () => NOW,
    authorizations: ledger,
    paused: neverPaused,
    decide: allowEverything,
    approvals: approvalsNeverAsked(),
  };
}

test('a held window cancelled while its entry was written is refused 409, never signed', async () => {
  const ledger = new StoredAuthorizationLedger(new MemoryRecordStore(), () => NOW);
  const deps = coreDeps(ledger);
  // A concurrent cancel (or a rollback after the cloud's 404) lands while the entry's record is on its way.
  const cancelling = Object.assign(Object.create(ledger) as StoredAuthorizationLedger, {
    record: async (entry: AuthorizationEntry) => {
      await ledger.record(entry);
      await ledger.noteStatus(entry.policyId, 'revoked');
    },
  });
  const request = { merchant: 'shop.example.com', amountMinor: 500, currency: 'USD', authorizationType: 'exact' as const, ttlSeconds: 600 };
  await assert.rejects(signAccountWindow({ ...deps, authorizations: cancelling }, request, owner), refusedWith('authorization_not_active'));
  const [entry] = [...ledger.since(0)];
  assert.equal(entry?.state, 'revoked', 'the cancel stands');
  assert.equal(deps.heldWindows.isHeld(entry?.policyId as string), false, 'nothing is held for the proxy');
});

const agentKey = p256PublicJwkOfScalar(generateP256Scalar());
const ap2Request: Ap2MandateRequest = {
  kind: 'ap2_mandate',
  cardId: 'card_0123456789abcdef',
  merchant: 'shop.example',
  amountMinor: 1000,
  currency: 'USD',
  ttlSeconds: 600,
  mandate: { merchant: { id: 'shop.example', name: 'Shop' }, lines: [{ item: { id: 'a', title: 'A' }, alternatives: [], quantity: 1 }], agentKey },
};
const payload = { v: 1, typ: 'card_policy_window', policy_id: 'pw_ap2', device_id: 'dev_test', card_id: ap2Request.cardId, merchant: 'shop.example', amount: '10.00', currency: 'USD', authorization_type: 'ceiling', kind: 'one_time', not_before: NOW, not_after: NOW + 600, nonce: 'n', iat: NOW } as unknown as PolicyWindowPayload;
const window: SignedWindow = { payload, jws: 'registered.window.jws', keyId: 'k' };

/** mandatesWorld records the registered card window of an AP2 request, and deps whose card label waits for the test. */
async function mandatesWorld(request: Ap2MandateRequest = ap2Request) {
  const store = new MemoryRecordStore();
  const ledger = new StoredAuthorizationLedger(store, () => NOW);
  const deps = coreDeps(ledger, MandateKey.fromScalar(generateP256Scalar()));
  const entry: AuthorizationEntry = {
    policyId: 'pw_ap2', agent: 'owner', cardId: ap2Request.cardId, merchant: 'shop.example', currency: 'USD', amountMinor: 1000, kind: 'one_time', authorizationType: 'ceiling',
    signedAtSeconds: NOW, notAfterSeconds: NOW + 600, state: 'active', usedMinor: null,
    evidence: { request, requestSha256: 'a'.repeat(64), receivedAtSeconds: NOW, window: payload, keyId: 'k', decision: { decision: 'allow', rule: null, reasons: [], policySha256: null }, approvalId: null },
  };
  await ledger.recordSigned(entry, () => window.jws);
  const labels: Array<() => void> = [];
  deps.mandates = { cardLabel: () => new Promise((resolve) => labels.push(() => resolve('Work card'))) };
  return { deps, ledger, store, labels };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 1000; turn++) {
    if (condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`gave up waiting for ${what}`);
}

test('AP2 mandates of a window cancelled while the card label was read are refused 409, never signed', async () => {
  const { deps, ledger, labels } = await mandatesWorld();
  const signing = signRegisteredMandates(deps, ap2Request, window, owner);
  await until(() => labels.length === 1, 'the card label to be asked');
  await ledger.noteStatus('pw_ap2', 'revoked');
  labels[0]?.();
  await assert.rejects(signing, refusedWith('authorization_not_active'));
  assert.equal(ledger.mandatesKept('pw_ap2'), false);
});

test('AP2 mandates whose journal record disagrees with the entry (an edited state.journal) are refused 503, never signed', async () => {
  const { deps, labels } = await mandatesWorld({ ...ap2Request, amountMinor: 999_999 });
  const signing = signRegisteredMandates(deps, ap2Request, window, owner);
  await until(() => labels.length === 1, 'the card label to be asked');
  labels[0]?.();
  await assert.rejects(signing, refusedWith('data_directory_unavailable'));
});

test('AP2 mandates a concurrent retry is keeping are not signed twice: the second is refused 409 idempotency_key_in_use', async () => {
  const { deps, ledger, store, labels } = await mandatesWorld();
  let release = (): void => undefined;
  const written = store.append;
  store.append = (record) => new Promise((resolve) => (release = () => resolve(written(record))));
  const first = signRegisteredMandates(deps, ap2Request, window, owner);
  const second = signRegisteredMandates(deps, ap2Request, window, owner);
  await until(() => labels.length === 2, 'both card labels to be asked');
  labels[0]?.();
  await until(() => ledger.mandatesKept('pw_ap2'), 'the first mandates to be on their way');
  labels[1]?.();
  await assert.rejects(second, refusedWith('idempotency_key_in_use'));
  release();
  await first;
  assert.equal(store.records.filter((record) => record.type === 'ap2_mandates').length, 1, 'one pair of mandates signed and kept');
  assert.ok(ledger.get('pw_ap2')?.evidence?.mandates !== undefined);
});

test('an evidence pack whose entry the ledger no longer keeps as it was is refused 409, never signed', async () => {
  const ledger = new StoredAuthorizationLedger(new MemoryRecordStore(), () => NOW);
  const deps = coreDeps(ledger);
  const pack = (jws: string) => JSON.stringify({ v: 1, type: 'latch_evidence', policy_id: 'pw_1', window: { jws } });
  assert.throws(() => signPack(deps, 'pw_1', 'kept.window.jws', 'k', pack('kept.window.jws')), refusedWith('evidence_unavailable'), 'forgotten (past retention) while the pack was made');
  const entry: AuthorizationEntry = { policyId: 'pw_1', agent: 'owner', cardId: null, merchant: 'shop.example', currency: 'USD', amountMinor: 100, kind: 'one_time', authorizationType: 'exact', signedAtSeconds: NOW, notAfterSeconds: NOW + 60, state: 'active', usedMinor: null };
  await ledger.recordSigned(entry, () => 'kept.window.jws');
  assert.throws(() => signPack(deps, 'pw_1', 'another.window.jws', 'k', pack('another.window.jws')), refusedWith('evidence_unavailable'));
  const keyId = upstreamKeyOf(secret).keyId;
  assert.match(signPack(deps, 'pw_1', 'kept.window.jws', keyId, pack('kept.window.jws')), /^[\w-]+\.[\w-]+\.[\w-]+$/);
});

test('the cloud client refuses 400 a call the device key does not sign, and sends nothing', async () => {
  let sent = 0;
  const client = new CloudClient({ cloudUrl: 'http://127.0.0.1:9', userAgent: 'test', onRequestSigned: () => undefined, assertFetchCanRun: () => undefined, fetch: async () => ((sent += 1), new Response('{}')) });
  const key = upstreamKeyOf(secret);
  for (const [method, pathAndQuery] of [['GET', '/v1/cards/card.1'], ['DELETE', '/v1/cards'], ['POST', '/v1/sandbox/deposit'], ['GET', `/v1/cards/${'a'.repeat(129)}`]] as const) {
    await assert.rejects(client.send({ method, pathAndQuery, key }), (error: unknown) => refusedWith('invalid_request')(error) && (error as LatchError).param === 'path', `${method} ${pathAndQuery}`);
  }
  assert.equal(sent, 0);
  await client.send({ method: 'GET', pathAndQuery: '/v1/cards/card_1', key });
  assert.equal(sent, 1, 'an enumerated call is sent');
});
