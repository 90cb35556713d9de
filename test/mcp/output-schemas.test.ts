/**
 * The tools' outputSchemas against what Variant A's shape functions really write: every object a
 * shape produces conforms, every field it writes is described, and the checker refuses what the
 * schemas forbid (so a conforming result means something). docs/api.md's examples are held to the
 * same schemas, and the client's types to the shapes by the compiler (the shape functions return
 * them), so the four descriptions of A's answers cannot drift apart.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Authorization } from '../../src/core/model.js';
import type { Card, PolicyWindowView, Transaction } from '../../src/operations/read-model.js';
import { OUTPUT_SCHEMAS, type OutputSchema } from '../../src/mcp/output-schemas.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { approvalWire, requestWire } from '../../src/variant-common/approval-shape.js';
import type { Approval } from '../../src/core/approval.js';
import { ownedAuthorizationA } from '../../src/variant-a/authorization-routes.js';
import { allocationA, authorizationA, cardDetailA, cardSummaryA, transactionA, walletA } from '../../src/variant-a/shapes.js';
import { schemaErrors } from '../support/json-schema-check.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../support/paths.js';

const card: Card = { cardId: 'card_a', label: 'Groceries', last4: '4242', status: 'active', balanceMinor: 10_000, heldMinor: 1_250, availableMinor: 8_750, currency: 'USD', dailyLimitMinor: 50_000, dailySpentMinor: 0 };
const unreportedHolds: Card = { ...card, heldMinor: null, availableMinor: null };
const oneTime: Authorization = {
  policyId: 'pw_a',
  cardId: 'card_a',
  merchant: 'shop.example.com',
  amountMinor: 1_250,
  currency: 'USD',
  authorizationType: 'exact',
  kind: 'one_time',
  notBefore: 1_700_000_000,
  expiresAt: 1_700_001_800,
  status: 'active',
  createdAt: 1_700_000_000,
  transactionId: 'tx_a',
  recurring: null,
};
const recurring: Authorization = {
  ...oneTime,
  kind: 'recurring',
  cardId: null,
  transactionId: null,
  recurring: { interval: 'month', intervalCount: 1, maxCharges: null, currentPeriodStart: 1_700_000_000, currentPeriodEnd: null },
};
const window: PolicyWindowView = { policyId: 'pw_a', cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 1_250, currency: 'USD', authorizationType: 'exact', notBefore: 1_700_000_000, notAfter: 1_700_001_800, keyId: 'kid', jws: 'a.b.c' };
const settled: Transaction = { id: 'tx_a', cardId: 'card_a', amountMinor: 1_250, currency: 'USD', merchant: 'shop.example.com', status: 'settled', createdAt: 1_700_000_100, policyId: 'pw_a', declineCode: null };
const declined: Transaction = { ...settled, status: 'declined', policyId: null, declineCode: 'card_frozen' };

const asked: Approval = {
  id: 'ap_a',
  status: 'pending_approval',
  principal: { kind: 'agent', name: 'shopper' },
  request: { kind: 'one_time', cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 6_000, currency: 'USD', authorizationType: 'exact', ttlSeconds: 1_800 },
  rule: 'big',
  reasons: ['60.00 is at least 50.00'],
  createdAtSeconds: 1_700_000_000,
  expiresAtSeconds: 1_700_000_900,
  decidedAtSeconds: null,
  reason: null,
  authorization: null,
  window: null,
  error: null,
  requestSha256: 'ab'.repeat(32),
  idempotencyKey: 'idem_a',
  callerKey: true,
  fingerprintSha256: 'cd'.repeat(32),
};
const askedRecurring: Approval = {
  ...asked,
  request: { kind: 'recurring', cardId: 'card_a', merchant: 'video.example.com', amountMinor: 999, currency: 'USD', authorizationType: 'ceiling', interval: 'month', intervalCount: 1, startsAt: null, endsAt: 1_800_000_000, maxCharges: 12 },
};

/** What each tool returns, made by the very functions Variant A answers with. */
const SAMPLES: Array<[keyof typeof OUTPUT_SCHEMAS, string, object]> = [
  ['latch_list_cards', 'cards', { cards: [cardSummaryA(card), cardSummaryA(unreportedHolds)] }],
  ['latch_get_card', 'a card', cardDetailA(card)],
  ['latch_get_card', 'a card without reported holds', cardDetailA(unreportedHolds)],
  ['latch_authorize', 'a one-time authorization', authorizationA(oneTime)],
  ['latch_recurring', 'a recurring authorization', authorizationA(recurring)],
  ['latch_authorize', 'a pending approval', approvalWire(asked)],
  ['latch_merchant_bind', 'a pending approval', approvalWire({ ...asked, request: { kind: 'merchant_verification', cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 0, currency: 'USD', ttlSeconds: 600 } })],
  ['latch_recurring', 'a pending approval', approvalWire(askedRecurring)],
  ['latch_get_approval', 'a pending approval', approvalWire(asked)],
  ['latch_get_approval', 'an approved one with its authorization', approvalWire({ ...asked, status: 'approved', decidedAtSeconds: 1_700_000_100, authorization: oneTime })],
  ['latch_get_approval', 'a denied one with a reason', approvalWire({ ...asked, status: 'denied', decidedAtSeconds: 1_700_000_100, reason: 'too much' })],
  ['latch_get_approval', 'a failed one with the cloud error', approvalWire({ ...askedRecurring, status: 'failed', decidedAtSeconds: 1_700_000_100, error: { code: 'insufficient_funds', message: 'no' } })],
  ['latch_revoke', 'a revoked authorization with its agent', ownedAuthorizationA({ authorization: { ...oneTime, status: 'revoked' }, agent: 'shopper' })],
  ['latch_revoke', 'a revoked recurring authorization', ownedAuthorizationA({ authorization: { ...recurring, status: 'revoked' }, agent: 'owner' })],
  ['latch_wallet_balance', 'the wallet', walletA({ usdtMinor: 40_000, allocatedMinor: 15_000, availableMinor: 25_000 })],
  ['latch_allocate', 'an allocation', allocationA({ cardId: 'card_a', allocatedMinor: 200, newBalanceMinor: 10_200 })],
  ['latch_list_transactions', 'a page', { transactions: [transactionA(settled), transactionA(declined)], has_more: false }],
  ['latch_get_transaction', 'a transaction with its window', transactionA({ ...settled, policyWindow: window })],
  ['latch_get_transaction', 'a decline without a window', transactionA({ ...declined, policyWindow: null })],
];

const requestOf = (approval: Approval) => requestWire(approval.request);

/** undescribed lists fields of value that the schema does not describe, at any depth. */
function undescribed(schema: OutputSchema, value: unknown, at = '$'): string[] {
  // Of anyOf's options, the one the value conforms to must describe it.
  if (schema.anyOf !== undefined) {
    const option = schema.anyOf.find((candidate) => schemaErrors(candidate, value).length === 0);
    return option === undefined ? [`${at}: no option conforms`] : undescribed(option, value, at);
  }
  if (Array.isArray(value)) return value.flatMap((item, index) => (schema.items === undefined ? [] : undescribed(schema.items, item, `${at}[${index}]`)));
  if (typeof value !== 'object' || value === null || schema.properties === undefined) return [];
  return Object.entries(value).flatMap(([name, field]) => {
    const property = schema.properties?.[name];
    return property === undefined ? [`${at}.${name}`] : undescribed(property, field, `${at}.${name}`);
  });
}

describe('outputSchema', () => {
  test('every tool advertises one', () => {
    for (const tool of TOOLS) assert.equal(tool.outputSchema, OUTPUT_SCHEMAS[tool.name as keyof typeof OUTPUT_SCHEMAS], tool.name);
  });

  for (const [tool, name, value] of SAMPLES) {
    test(`${tool}: ${name} conforms, and every field it has is described`, () => {
      assert.deepEqual(schemaErrors(OUTPUT_SCHEMAS[tool], value), []);
      assert.deepEqual(undescribed(OUTPUT_SCHEMAS[tool], value), []);
    });
  }

  const broken: Array<[keyof typeof OUTPUT_SCHEMAS, string, object]> = [
    ['latch_get_card', 'money as a number', { ...cardDetailA(card), balance: 100 }],
    ['latch_get_card', 'a missing available', (({ available: _, ...rest }) => rest)(cardDetailA(card))],
    ['latch_get_card', 'money with three decimals', { ...cardDetailA(card), held: '1.250' }],
    ['latch_authorize', 'an unknown authorization_type', { ...authorizationA(oneTime), authorization_type: 'any' }],
    ['latch_authorize', 'a time with a zone offset', { ...authorizationA(oneTime), expires_at: '2026-01-01T00:00:00+01:00' }],
    ['latch_list_transactions', 'has_more as text', { transactions: [], has_more: 'no' }],
    ['latch_authorize', 'neither an authorization nor an approval', { status: 'pending_approval', approval_id: 'ap_a' }],
    ['latch_get_approval', 'an unknown status', { ...approvalWire(asked), status: 'maybe' }],
    ['latch_get_approval', 'an amount as a number', { ...approvalWire(asked), request: { ...requestOf(asked), amount: 60 } }],
    ['latch_revoke', 'no agent', authorizationA({ ...oneTime, status: 'revoked' })],
  ];
  for (const [tool, name, value] of broken) {
    test(`${tool}: ${name} does not conform`, () => assert.notDeepEqual(schemaErrors(OUTPUT_SCHEMAS[tool], value), []));
  }
});

/** The Variant A section of docs/api.md whose first JSON example each tool returns. */
const DOCUMENTED: ReadonlyArray<[string, keyof typeof OUTPUT_SCHEMAS]> = [
  ['### GET /health', 'latch_health'],
  ['### GET /cards', 'latch_list_cards'],
  ['### GET /cards/:card_id', 'latch_get_card'],
  ['### POST /authorize', 'latch_authorize'],
  ['### POST /merchant-bind', 'latch_merchant_bind'],
  ['### POST /recurring', 'latch_recurring'],
  ['### GET /transactions', 'latch_list_transactions'],
  ['### GET /transactions/:tx_id', 'latch_get_transaction'],
  ['### GET /wallet/balance', 'latch_wallet_balance'],
  ['### POST /wallet/allocate', 'latch_allocate'],
];

describe('docs/api.md examples', () => {
  const page = readFileSync(path.join(REPO_ROOT, 'docs', 'api.md'), 'utf8').split('\n');
  for (const [heading, tool] of DOCUMENTED) {
    test(`${heading}: the example conforms to ${tool}'s outputSchema and has no undescribed field`, () => {
      const start = page.indexOf(heading);
      assert.ok(start >= 0, `docs/api.md has ${heading}`);
      const open = page.indexOf('```json', start);
      const next = page.findIndex((line, index) => index > start && line.startsWith('### '));
      assert.ok(open > start && (next === -1 || open < next), `${heading} has a JSON example`);
      const example = JSON.parse(page.slice(open + 1, page.indexOf('```', open + 1)).join('\n')) as unknown;
      assert.deepEqual(schemaErrors(OUTPUT_SCHEMAS[tool], example), [], heading);
      assert.deepEqual(undescribed(OUTPUT_SCHEMAS[tool], example), [], heading);
    });
  }
});
