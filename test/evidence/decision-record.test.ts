/**
 * What the pipeline keeps for an evidence pack (docs/decisions.md §22.1): in the authorization
 * ledger's one record per authorization (no record of its own), surviving replay and compaction,
 * with the decision's basis; and the kept payload, signed again, is byte for byte the JWS the
 * cloud received (§22.2).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestSha256 } from '../../src/core/approval.js';
import { AUTHORIZATION_RECORD_TYPE, AUTHORIZATION_SIGNATURE_RECORD_TYPE, StoredAuthorizationLedger } from '../../src/core/authorization-ledger.js';
import { requestAuthorization } from '../../src/core/authorizations.js';
import type { OneTimeRequest } from '../../src/core/authorization-request.js';
import type { CloudGateway } from '../../src/core/cloud-gateway.js';
import type { CoreDeps, OperationContext } from '../../src/core/core-deps.js';
import type { Authorization } from '../../src/core/model.js';
import type { StateRecord } from '../../src/core/record-store.js';
import { generateSecretKey, publicKeyOf, signJwsCompact } from '../support/raw-signing.js';
import { keyIdOf } from '../../src/crypto/jwk.js';
import { testSigner } from '../support/test-signer.js';
import type { DeviceKeyRef } from '../../src/signer/index.js';
import { neverPaused } from '../../src/core/signing-pause.js';
import { approvalsNeverAsked, outcomesIgnored, refusalsIgnored, noCardLabels, x402NeverAsked } from '../support/core-deps.js';
import { HeldWindows } from '../../src/core/held-windows.js';
import { SignedWindowCache } from '../../src/core/signed-window-cache.js';
import { MemoryRecordStore, type RecordOwnerView } from '../support/memory-record-store.js';

const NOW = 1_800_000_000;
const secretKey = generateSecretKey();
const key = { keyId: keyIdOf(publicKeyOf(secretKey)) };
const unexpected = () => Promise.reject(new Error('not used by this test'));
const context: OperationContext = { principal: { kind: 'agent', name: 'shopper' }, caller: { requestId: 'req_1', userAgent: 'test' }, idempotencyKey: undefined };
const request: OneTimeRequest = { kind: 'one_time', cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 1250, currency: 'USD', authorizationType: 'exact', ttlSeconds: 1800, reference: 'order-9' };
const POLICY_SHA = 'c'.repeat(64);

/** A store in memory that keeps every appended record (a JSON copy), as the journal would. */
class MemoryStore extends MemoryRecordStore {}

function pipeline(store: MemoryStore) {
  const ledger = new StoredAuthorizationLedger(store, () => NOW);
  const { signer } = testSigner(secretKey, ledger);
  const sent: string[] = [];
  const cloud: CloudGateway = {
    registerAuthorization: async (jws) => {
      sent.push(jws);
      return { policyId: JSON.parse(Buffer.from(jws.split('.')[1] as string, 'base64url').toString())['policy_id'] } as Authorization;
    },
    revokeAuthorization: unexpected, getAuthorization: unexpected, listAuthorizations: unexpected, allocate: unexpected,
  };
  const deps: CoreDeps = {
    signer,
    heldWindows: new HeldWindows(new MemoryRecordStore()),
    signedWindows: new SignedWindowCache(),
    device: () => ({ key: signer.deviceKey() as DeviceKeyRef, deviceId: 'dev_test', cloud }),
    audit: async () => undefined,
    nowSeconds: () => NOW,
    authorizations: ledger,
    paused: neverPaused,
    approvals: approvalsNeverAsked(),
    decide: () => ({ decision: 'allow', basis: { decision: 'allow', rule: 'groceries', reasons: ['rule groceries (allow): shop.example.com'], policySha256: POLICY_SHA } }),
    outcome: outcomesIgnored,
    refused: refusalsIgnored,
    cloudNowSeconds: () => NOW,
    mandates: noCardLabels,
    x402: x402NeverAsked(ledger),
  };
  return { deps, ledger, sent };
}

test('one record per authorization carries the request, its hash, the window, the key and the decision', async () => {
  const store = new MemoryStore();
  const { deps, ledger, sent } = pipeline(store);
  const created = await requestAuthorization(deps, request, context);
  assert.equal(created.outcome, 'created');
  assert.equal(store.records.length, 1, 'no record of its own: the ledger entry carries it, and the JWS that was signed (§28.10)');
  const policyId = (store.records[0] as StateRecord).policy_id as string;
  assert.equal((store.records[0] as StateRecord).jws, sent[0], 'the entry record holds the JWS the cloud received');
  assert.equal(ledger.get(policyId)?.jws, sent[0], 'the ledger keeps the JWS the cloud received: the evidence pack never signs it again');
  const evidence = ledger.get(policyId)?.evidence;
  assert.ok(evidence !== undefined);
  assert.deepEqual(evidence.request, request);
  assert.equal(evidence.requestSha256, requestSha256(request));
  assert.equal(evidence.receivedAtSeconds, NOW);
  assert.equal(evidence.keyId, key.keyId);
  assert.deepEqual(evidence.decision, { decision: 'allow', rule: 'groceries', reasons: ['rule groceries (allow): shop.example.com'], policySha256: POLICY_SHA });
  assert.equal(evidence.approvalId, null);
  assert.equal(signJwsCompact(evidence.window, key.keyId, secretKey), sent[0], 'the kept payload signs to exactly the JWS the cloud received');
});

test('the record survives a replay and a compaction unchanged', async () => {
  const store = new MemoryStore();
  const { deps, ledger } = pipeline(store);
  await requestAuthorization(deps, request, context);
  const policyId = (store.records[0] as StateRecord).policy_id as string;
  const before = ledger.get(policyId);
  // Replay: a new ledger reads the journal's records.
  const replayed = new MemoryStore();
  const again = new StoredAuthorizationLedger(replayed, () => NOW);
  for (const record of store.records) {
    replayed.owners.get(record.type)?.replay(record, NOW);
  }
  assert.ok(before?.jws !== undefined);
  assert.deepEqual(again.get(policyId), before);
  // Compaction writes what live() returns; a ledger replaying that has the same entry.
  const live = replayed.owners.get(AUTHORIZATION_RECORD_TYPE)?.live(NOW) ?? [];
  const compacted = new MemoryStore();
  const third = new StoredAuthorizationLedger(compacted, () => NOW);
  for (const record of live) compacted.owners.get(AUTHORIZATION_RECORD_TYPE)?.replay(JSON.parse(JSON.stringify(record)) as StateRecord, NOW);
  assert.deepEqual(third.get(policyId), before);
});

test('the window is registered only once its entry and its kept JWS are on disk, in one append', async () => {
  // A store whose appends wait for the test: what the daemon does before the journal answers shows.
  const store = new MemoryStore();
  const waiting: Array<() => void> = [];
  const gated = new MemoryRecordStore();
  gated.append = (record) => new Promise<void>((resolve) => waiting.push(() => void store.append(record).then(resolve)));
  const ledger = new StoredAuthorizationLedger(gated, () => NOW);
  const { deps, sent } = pipeline(new MemoryStore());
  // The signer reads the ledger it is bound to, never the one a caller hands the pipeline.
  const created = requestAuthorization({ ...deps, signer: testSigner(secretKey, ledger).signer, authorizations: ledger }, request, context);
  for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(waiting.length, 1, 'one append per authorization: the entry with its JWS');
  assert.deepEqual(sent, [], 'nothing is sent before the record is durable');
  (waiting.shift() as () => void)();
  await created;
  assert.equal(sent.length, 1);
  assert.equal((store.records[0] as StateRecord).jws, sent[0]);
  assert.equal(waiting.length, 0, 'and no second append follows');
});

test("an older journal's authorization_signature record still gives its entry the JWS", () => {
  const store = new MemoryStore();
  const ledger = new StoredAuthorizationLedger(store, () => NOW);
  const entry = { type: AUTHORIZATION_RECORD_TYPE, policy_id: 'pw_older', agent: 'owner', card_id: 'card_a', merchant: 'shop.example.com', currency: 'USD', amount_minor: 100, kind: 'one_time', authorization_type: 'exact', signed_at: NOW, not_after: NOW + 60, state: 'active', used_minor: null };
  store.owners.get(AUTHORIZATION_RECORD_TYPE)?.replay(entry, NOW);
  store.owners.get(AUTHORIZATION_SIGNATURE_RECORD_TYPE)?.replay({ type: AUTHORIZATION_SIGNATURE_RECORD_TYPE, policy_id: 'pw_older', jws: 'a.b.c' }, NOW);
  assert.equal(ledger.get('pw_older')?.jws, 'a.b.c');
  assert.equal(ledger.get('pw_older')?.evidence, undefined);
  // Compaction writes it in the entry's own record.
  const live = store.owners.get(AUTHORIZATION_RECORD_TYPE)?.live(NOW) ?? [];
  assert.equal(live[0]?.['jws'], 'a.b.c');
  assert.ok(live.every((record) => record.type === AUTHORIZATION_RECORD_TYPE), 'no authorization_signature record is ever live');
});

test('a malformed evidence record refuses the replay, and an entry without one (an older version) replays', () => {
  const store = new MemoryStore();
  new StoredAuthorizationLedger(store, () => NOW);
  const owner = store.owners.get(AUTHORIZATION_RECORD_TYPE) as RecordOwnerView;
  const entry = { type: AUTHORIZATION_RECORD_TYPE, policy_id: 'pw_old', agent: 'owner', card_id: 'card_a', merchant: 'shop.example.com', currency: 'USD', amount_minor: 100, kind: 'one_time', authorization_type: 'exact', signed_at: NOW, not_after: NOW + 60, state: 'active', used_minor: null };
  owner.replay(entry, NOW);
  assert.throws(() => owner.replay({ ...entry, policy_id: 'pw_bad', evidence: { request_sha256: 'nope' } }, NOW), /malformed/);
});
