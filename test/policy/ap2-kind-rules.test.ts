/**
 * Rules that gate a kind gate what an AP2 mandate registers (shared/spec/ap2-mandates.md §6): a
 * rule naming the kind of card window a mandate registers judges the mandate, as it judges that
 * window asked for directly. Which kinds are covered is read from the code: every AP2 request
 * shape the request type allows, and every window kind a rule can name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluatePolicy, type PolicyUsage } from '../../src/policy/evaluate.js';
import { parsePolicyText } from '../../src/policy/policy-file.js';
import { toPolicyRequest } from '../../src/policy/policy-gate.js';
import { policyWarnings } from '../../src/policy-text/policy-warnings.js';
import { cardWindowKind, windowTerms, type Ap2MandateRequest } from '../../src/core/authorization-request.js';
import { AUTHORIZATION_KINDS, REQUEST_KINDS } from '../../src/core/model.js';
import { AP2_FREQUENCIES } from '../../src/ap2/recurrence.js';
import { T0 } from './policy-fixtures.js';

const NO_HISTORY: PolicyUsage = { merchantKnown: () => true, exposure: () => 0, count: () => 0 };

function mandate(recurrence?: Ap2MandateRequest['mandate']['recurrence']): Ap2MandateRequest {
  return {
    kind: 'ap2_mandate',
    cardId: 'card_a1',
    merchant: 'shop.example',
    amountMinor: 4_000,
    currency: 'USD',
    ttlSeconds: 600,
    mandate: {
      merchant: { id: 'shop.example', name: 'Shop', website: 'https://shop.example' },
      lines: [{ item: { id: 'sku-1', title: 'Mug' }, alternatives: [], quantity: 1 }],
      agentKey: { kty: 'EC', crv: 'P-256', x: 'x'.repeat(43), y: 'y'.repeat(43) },
      ...(recurrence !== undefined && { recurrence }),
    },
  };
}

/** One AP2 request per shape: one-time, and recurring at every frequency. */
const MANDATES = [mandate(), ...AP2_FREQUENCIES.map((frequency) => mandate({ frequency, maxOccurrences: 3, budgetMinor: 12_000 }))];

test("the red team's case: a rule asking on one_time and recurring asks about an AP2 mandate for the same card, merchant and amount", () => {
  const policy = parsePolicyText('{"v":1,"default":"allow","rules":[{"id":"pay-asks","kinds":["one_time","recurring"],"decision":"ask"}]}');
  const decided = evaluatePolicy(policy, toPolicyRequest(mandate(), 'shopper', T0), NO_HISTORY);
  assert.deepEqual([decided.decision, decided.rule], ['ask', 'pay-asks']);
  assert.match(decided.reasons[0] ?? '', /kind is ap2_mandate, which registers a one_time card window/);
});

test('for every AP2 request shape, a rule naming the kind of window it registers (or ap2_mandate) judges it, and a rule naming any other kind does not', () => {
  for (const request of MANDATES) {
    const registers = cardWindowKind(request);
    // The policy's notion of the window's kind is the one the window is signed with.
    assert.equal(windowTerms(request, T0).kind, registers);
    for (const kind of REQUEST_KINDS) {
      const policy = parsePolicyText(`{"v":1,"default":"allow","rules":[{"id":"gate","kinds":["${kind}"],"decision":"deny"}]}`);
      const decided = evaluatePolicy(policy, toPolicyRequest(request, 'shopper', T0), NO_HISTORY);
      const judged = kind === 'ap2_mandate' || kind === registers;
      assert.equal(decided.decision, judged ? 'deny' : 'allow', `a rule on ${kind}, a mandate registering ${registers} (${JSON.stringify(request.mandate.recurrence ?? null)})`);
    }
  }
  assert.deepEqual(new Set(MANDATES.map(cardWindowKind)), new Set(['one_time', 'recurring']), 'both window kinds a mandate can register are covered');
});

test('a recurring mandate is decided as the recurring request it is: a budget counts every charge of it that fits', () => {
  const policy = parsePolicyText('{"v":1,"default":"allow","budgets":[{"id":"weekly","per":"week","limit":"100.00","over":"deny"}]}');
  // 40.00 a day, at most 3 occurrences within a 120.00 budget: 120.00 in a week, over the 100.00 budget.
  const recurring = toPolicyRequest(mandate({ frequency: 'DAILY', maxOccurrences: 3, budgetMinor: 12_000 }), 'shopper', T0);
  assert.deepEqual([evaluatePolicy(policy, recurring, NO_HISTORY).decision, evaluatePolicy(policy, recurring, NO_HISTORY).rule], ['deny', 'weekly']);
  assert.equal(evaluatePolicy(policy, toPolicyRequest(mandate(), 'shopper', T0), NO_HISTORY).decision, 'allow');
});

test('the linter warns about a rule that gates one_time without naming ap2_mandate, and not once it names it', () => {
  for (const kind of AUTHORIZATION_KINDS) {
    const policy = parsePolicyText(`{"v":1,"default":"allow","rules":[{"id":"gate","kinds":["${kind}"],"decision":"ask"}]}`);
    const warned = policyWarnings(policy).filter((w) => /does not name ap2_mandate/.test(w.message));
    assert.equal(warned.length, kind === 'one_time' ? 1 : 0, kind);
  }
  const named = parsePolicyText('{"v":1,"default":"allow","rules":[{"id":"gate","kinds":["one_time","ap2_mandate"],"decision":"ask"}]}');
  assert.deepEqual(policyWarnings(named), []);
});
