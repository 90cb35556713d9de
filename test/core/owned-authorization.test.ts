/**
 * One owned authorization (core/owned-authorization.ts): an agent reaches only its own, even when a
 * caller outside the core (the listing's walk) hands it another's entry.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CoreDeps, OperationContext } from '../../src/core/core-deps.js';
import { currentAuthorization, type LedgerEntryView, type LedgerView } from '../../src/core/owned-authorization.js';
import { LatchError } from '../../src/errors/latch-error.js';

const entry: LedgerEntryView = { policyId: 'pw_1', agent: 'travel', cardId: 'card_1', merchant: 'shop.example', currency: 'USD', amountMinor: 100, kind: 'one_time', authorizationType: 'exact', signedAtSeconds: 10, notAfterSeconds: 20, state: 'unregistered' };
const ledger: LedgerView = { get: () => entry, noteStatus: async () => {}, markUnregistered: async () => false };
const deps = { heldWindows: { isHeld: () => false } } as unknown as CoreDeps;
const as = (principal: OperationContext['principal']): OperationContext => ({ principal, caller: { requestId: 'req_1', userAgent: 't' }, idempotencyKey: undefined });

test("another agent's entry is authorization_not_found, as an id that does not exist; its own and the owner's view it", async () => {
  await assert.rejects(currentAuthorization(deps, ledger, entry, as({ kind: 'agent', name: 'shopper' })), (error) => error instanceof LatchError && error.code === 'authorization_not_found');
  assert.equal((await currentAuthorization(deps, ledger, entry, as({ kind: 'agent', name: 'travel' }))).agent, 'travel');
  assert.equal((await currentAuthorization(deps, ledger, entry, as({ kind: 'owner' }))).registered, false);
});
