/**
 * The evidence pack hands out only a window that left the device, as the ledger kept it
 * (docs/decisions.md §28.3): never the JWS of a `failed` or `unregistered` window, and never a
 * signature made again. These refusals come before the device key or the cloud is asked anything.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AuthorizationEntry } from '../../src/core/authorization-ledger.js';
import type { OperationContext } from '../../src/core/core-deps.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { exportEvidence, type EvidenceSources } from '../../src/evidence/build-pack.js';

const context: OperationContext = { principal: { kind: 'owner' }, caller: { requestId: 'req_1', userAgent: 'test' }, idempotencyKey: undefined };
const window = { v: 1 as const, typ: 'card_policy_window' as const, policy_id: 'pw_1', device_id: 'dev_1', card_id: 'card_1', merchant: 'shop.example', amount: '1.00', currency: 'USD', authorization_type: 'exact' as const, kind: 'one_time' as const, not_before: 10, not_after: 20, nonce: 'n', iat: 10 };
const evidence = {
  request: { kind: 'one_time' as const, cardId: 'card_1', merchant: 'shop.example', amountMinor: 100, currency: 'USD', authorizationType: 'exact' as const, ttlSeconds: 60 },
  requestSha256: 'a'.repeat(64),
  receivedAtSeconds: 10,
  window,
  keyId: 'kid',
  decision: { decision: 'allow' as const, rule: null, reasons: [], policySha256: null },
  approvalId: null,
};
const entry: AuthorizationEntry = { policyId: 'pw_1', agent: 'owner', cardId: 'card_1', merchant: 'shop.example', currency: 'USD', amountMinor: 100, kind: 'one_time', authorizationType: 'exact', signedAtSeconds: 10, notAfterSeconds: 20, state: 'active', usedMinor: null, evidence, jws: 'a.b.c' };

function sources(found: AuthorizationEntry): EvidenceSources {
  const untouched = () => {
    throw new Error('a refused pack asks nothing of the device, the cloud or the audit log');
  };
  return { deps: { device: untouched } as unknown as EvidenceSources['deps'], device: untouched, ledger: { get: () => found }, approval: untouched, auditExcerpt: untouched };
}

const refusedWith = (code: string) => (error: unknown) => error instanceof LatchError && error.code === code;

test('an unregistered window has no pack: 409 evidence_unavailable, and its JWS is not handed out', async () => {
  await assert.rejects(exportEvidence(sources({ ...entry, state: 'unregistered' }), 'pw_1', context), refusedWith('evidence_unavailable'));
});

test('a failed window has no pack: 404 authorization_not_found', async () => {
  await assert.rejects(exportEvidence(sources({ ...entry, state: 'failed' }), 'pw_1', context), refusedWith('authorization_not_found'));
});

test('a window whose JWS the ledger did not keep has no pack: it is never signed again to make one', async () => {
  const { jws: _kept, ...withoutJws } = entry;
  await assert.rejects(exportEvidence(sources(withoutJws), 'pw_1', context), refusedWith('evidence_unavailable'));
});
