/** A whole pending approval, as the approval book keeps one, for tests of the book itself. */
import type { Approval } from '../../src/core/approval.js';

export const PENDING_APPROVAL: Approval = {
  id: 'ap_1',
  status: 'pending_approval',
  principal: { kind: 'agent', name: 'shopper' },
  request: { kind: 'one_time', cardId: 'card_1', merchant: 'm.example', amountMinor: 6000, currency: 'USD', authorizationType: 'exact', ttlSeconds: 60 },
  rule: 'large',
  reasons: [],
  createdAtSeconds: 1,
  expiresAtSeconds: 2,
  decidedAtSeconds: null,
  reason: null,
  authorization: null,
  window: null,
  error: null,
  requestSha256: 'a',
  idempotencyKey: 'k',
  callerKey: false,
  fingerprintSha256: 'f',
};
