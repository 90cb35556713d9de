import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluatePolicy } from '../../src/policy/evaluate.js';
import { evaluateAndReserve } from '../../src/policy/evaluate-and-reserve.js';
import { parsePolicyText } from '../../src/policy/policy-file.js';
import { UsageLedger } from '../../src/policy/usage-ledger.js';
import { DAY, T0, entry, entryFor, request } from './policy-fixtures.js';

function budgetPolicy(per: string, limit = '100.00'): ReturnType<typeof parsePolicyText> {
  return parsePolicyText(`{"v":1,"budgets":[{"id":"b","per":"${per}","limit":"${limit}","over":"deny"}]}`);
}

test('budget boundary in minor units: exposure + amount == limit is allowed, one more minor unit is over', () => {
  const policy = budgetPolicy('day', '200.00');
  const ledger = new UsageLedger(policy);
  ledger.reserve(entry({ amountMinor: 18_000 }));
  assert.equal(evaluatePolicy(policy, request({ amountMinor: 2_000 }), ledger).decision, 'allow');
  assert.deepEqual([evaluatePolicy(policy, request({ amountMinor: 2_001 }), ledger).decision, evaluatePolicy(policy, request({ amountMinor: 2_001 }), ledger).rule], ['deny', 'b']);
});

/** [per, window seconds]: an entry counts while now − at < window. */
const windows: Array<[string, number]> = [
  ['day', DAY],
  ['week', 7 * DAY],
  ['month', 30 * DAY],
];
for (const [per, seconds] of windows) {
  test(`rolling ${per}: counts for ${seconds - 1} seconds, gone at ${seconds}`, () => {
    const policy = budgetPolicy(per);
    const ledger = new UsageLedger(policy);
    const budget = policy.budgets[0]!;
    ledger.reserve(entry({ amountMinor: 10_000, atSeconds: T0 }));
    assert.equal(ledger.exposure(budget, T0), 10_000);
    assert.equal(evaluatePolicy(policy, request({ amountMinor: 1, nowSeconds: T0 + seconds - 1 }), ledger).decision, 'deny');
    assert.equal(evaluatePolicy(policy, request({ amountMinor: 1, nowSeconds: T0 + seconds }), ledger).decision, 'allow');
    assert.equal(ledger.exposure(budget, T0 + seconds), 0);
  });
}

test('velocity: max_count per rolling per_seconds, in scope only', () => {
  const policy = parsePolicyText('{"v":1,"velocity":[{"id":"v","agents":["*"],"per_seconds":60,"max_count":2,"over":"deny"}]}');
  const ledger = new UsageLedger(policy);
  ledger.reserve(entry({ atSeconds: T0 }));
  ledger.reserve(entry({ atSeconds: T0 + 10 }));
  ledger.reserve(entry({ agent: 'owner', atSeconds: T0 + 11 }));
  const at = (now: number, agent = 'shopper') => evaluatePolicy(policy, request({ nowSeconds: now, agent }), ledger);
  assert.deepEqual([at(T0 + 20).decision, at(T0 + 20).rule], ['deny', 'v']);
  assert.ok(at(T0 + 20).reasons.includes('velocity v (deny): 2 of 2 authorizations in the last 60 seconds; one more would exceed it'));
  assert.equal(at(T0 + 20, 'owner').decision, 'allow');
  assert.equal(at(T0 + 60).decision, 'allow');
  assert.equal(ledger.count(policy.velocity[0]!, T0 + 60), 1);
  assert.equal(ledger.count(policy.velocity[0]!, T0 + 70), 0);
});

test('settle, release and cancel adjust exposure and count', () => {
  const policy = parsePolicyText(
    '{"v":1,"budgets":[{"id":"b","per":"day","limit":"500.00","over":"deny"}],"velocity":[{"id":"v","per_seconds":3600,"max_count":9,"over":"deny"}]}',
  );
  const ledger = new UsageLedger(policy);
  const [budget, velocity] = [policy.budgets[0]!, policy.velocity[0]!];
  const a = entry({ amountMinor: 10_000 });
  const b = entry({ amountMinor: 5_000, merchant: 'shop.example' });
  ledger.reserve(a);
  ledger.reserve(b);
  assert.deepEqual([ledger.exposure(budget, T0), ledger.count(velocity, T0)], [15_000, 2]);
  assert.equal(ledger.settle(a.id, { usedMinor: 3_000 }), true);
  assert.deepEqual([ledger.exposure(budget, T0), ledger.count(velocity, T0)], [8_000, 2]);
  assert.equal(ledger.merchantKnown('grocer.example'), true, 'a used authorization makes its merchant known');
  assert.equal(ledger.merchantKnown('shop.example'), false);
  assert.equal(ledger.release(b.id), true);
  assert.deepEqual([ledger.exposure(budget, T0), ledger.count(velocity, T0)], [3_000, 2], 'a revoked authorization was still made');
  assert.equal(ledger.cancelReservation(b.id), true);
  assert.deepEqual([ledger.exposure(budget, T0), ledger.count(velocity, T0)], [3_000, 1], 'a cancelled reservation never reached the cloud');
  assert.equal(ledger.cancelReservation(b.id), false);
  assert.equal(ledger.settle('pw_unknown', { usedMinor: 1 }), false);
  // Settling after the entry left the window changes nothing in it.
  assert.equal(ledger.exposure(budget, T0 + DAY), 0);
  ledger.settle(a.id, { usedMinor: 0 });
  assert.equal(ledger.exposure(budget, T0 + DAY), 0);
});

test('a duplicate reservation id and a fractional amount are programmer errors', () => {
  const ledger = new UsageLedger(budgetPolicy('day'));
  const a = entry();
  ledger.reserve(a);
  assert.throws(() => ledger.reserve(a), /already reserved/);
  assert.throws(() => ledger.reserve(entry({ amountMinor: 0.5 })), /safe integer/);
  assert.throws(() => ledger.reserve(entry({ amountMinor: Number.MAX_SAFE_INTEGER + 2 })), /safe integer/);
});

/** A small deterministic generator, so the cross-check below is the same on every run. */
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

test('policy reload rebuilds the sums: they equal a recount from scratch', () => {
  const first = parsePolicyText('{"v":1,"budgets":[{"id":"shopper-day","agents":["shopper"],"per":"day","limit":"100.00","over":"deny"}]}');
  const second = parsePolicyText(
    '{"v":1,"budgets":[{"id":"all-week","per":"week","limit":"100.00","over":"deny"},{"id":"grocer-month","merchants":["*.grocer.example"],"per":"month","limit":"100.00","over":"ask"}],"velocity":[{"id":"v","agents":["bot"],"per_seconds":7200,"max_count":5,"over":"deny"}]}',
  );
  const ledger = new UsageLedger(first);
  const random = lcg(7);
  const made: Array<{ id: string; agent: string; merchant: string; amountMinor: number; atSeconds: number; exposure: number }> = [];
  for (let i = 0; i < 400; i++) {
    const e = entry({
      agent: random() < 0.5 ? 'shopper' : 'bot',
      merchant: random() < 0.5 ? 'a.grocer.example' : 'grocer.example',
      amountMinor: Math.floor(random() * 10_000),
      atSeconds: T0 - 40 * DAY + i * 10_000,
    });
    ledger.reserve(e);
    made.push({ ...e, exposure: e.amountMinor });
    if (random() < 0.2) {
      ledger.release(e.id);
      made[made.length - 1]!.exposure = 0;
    }
  }
  const now = T0 - 40 * DAY + 400 * 10_000;
  const sum = (window: number, keep: (m: (typeof made)[number]) => boolean) =>
    made.filter((m) => now - m.atSeconds < window && keep(m)).reduce((total, m) => total + m.exposure, 0);
  assert.equal(ledger.exposure(first.budgets[0]!, now), sum(DAY, (m) => m.agent === 'shopper'));
  ledger.usePolicy(second);
  assert.equal(ledger.exposure(second.budgets[0]!, now), sum(7 * DAY, () => true));
  assert.equal(ledger.exposure(second.budgets[1]!, now), sum(30 * DAY, (m) => m.merchant === 'a.grocer.example'));
  assert.equal(ledger.count(second.velocity[0]!, now), made.filter((m) => now - m.atSeconds < 7200 && m.agent === 'bot').length);
  assert.throws(() => ledger.exposure(first.budgets[0]!, now), /not from the ledger policy/);
});

test('evaluation with 10,000 entries examines one queue head per limit, never the history', () => {
  const policy = parsePolicyText(
    '{"v":1,"budgets":[{"id":"d","per":"day","limit":"100000000.00","over":"deny"},{"id":"m","per":"month","limit":"100000000.00","over":"deny"}],"velocity":[{"id":"v","per_seconds":86400,"max_count":1000000,"over":"deny"}]}',
  );
  const ledger = new UsageLedger(policy);
  for (let i = 0; i < 10_000; i++) ledger.reserve(entry({ atSeconds: T0 + i }));
  // Every entry (1,000 minor units each) is inside both windows.
  assert.equal(ledger.exposure(policy.budgets[0]!, T0 + 9_999), 10_000_000);
  assert.equal(ledger.count(policy.velocity[0]!, T0 + 9_999), 10_000);
  const limits = policy.budgets.length + policy.velocity.length;

  let before = ledger.counter.headChecks;
  const result = evaluatePolicy(policy, request({ nowSeconds: T0 + 10_000 }), ledger);
  assert.equal(result.decision, 'allow');
  assert.equal(result.budgets[0]?.exposure, 10_000_000);
  assert.ok(ledger.counter.headChecks - before <= limits, `examined ${ledger.counter.headChecks - before} heads`);

  // A day later the day and velocity windows empty once (each entry popped once), then cost one head each again.
  before = ledger.counter.headChecks;
  evaluatePolicy(policy, request({ nowSeconds: T0 + DAY + 10_000 }), ledger);
  assert.ok(ledger.counter.headChecks - before <= 2 * 10_000 + limits);
  assert.equal(ledger.exposure(policy.budgets[0]!, T0 + DAY + 10_000), 0);
  assert.equal(ledger.exposure(policy.budgets[1]!, T0 + DAY + 10_000), 10_000_000);
  before = ledger.counter.headChecks;
  evaluatePolicy(policy, request({ nowSeconds: T0 + DAY + 10_001 }), ledger);
  assert.ok(ledger.counter.headChecks - before <= limits);
});

test('evaluateAndReserve reserves only on allow, in the same step as the check', () => {
  const policy = parsePolicyText(
    '{"v":1,"rules":[{"id":"big","min_amount":"100.00","decision":"ask"}],"budgets":[{"id":"b","per":"day","limit":"200.00","over":"deny"}]}',
  );
  const ledger = new UsageLedger(policy);
  const budget = policy.budgets[0]!;
  const decisions: string[] = [];
  for (let i = 0; i < 5; i++) {
    const req = request({ amountMinor: 6_000, nowSeconds: T0 + i });
    decisions.push(evaluateAndReserve(policy, req, ledger, entryFor(req)).decision);
  }
  assert.deepEqual(decisions, ['allow', 'allow', 'allow', 'deny', 'deny']);
  assert.equal(ledger.exposure(budget, T0 + 5), 18_000);
  const overBudget = request({ amountMinor: 10_000, nowSeconds: T0 + 6 });
  assert.equal(evaluateAndReserve(policy, overBudget, ledger, entryFor(overBudget)).decision, 'deny');
  assert.equal(ledger.exposure(budget, T0 + 6), 18_000, 'nothing reserved unless allowed');
});

test('evaluateAndReserve refuses an entry that is not the request, or a ledger on another policy', () => {
  const policy = budgetPolicy('day');
  const ledger = new UsageLedger(policy);
  const req = request();
  assert.throws(() => evaluateAndReserve(policy, req, ledger, { ...entryFor(req), amountMinor: 1 }), /does not describe/);
  assert.throws(() => evaluateAndReserve(budgetPolicy('week'), req, ledger, entryFor(req)), /another policy/);
});

test('a window without a card counts in every card-scoped budget and velocity limit whose other conditions hold; card rules that ask or deny hold for it, card rules that allow do not', () => {
  const policy = parsePolicyText(
    JSON.stringify({
      v: 1,
      default: 'allow',
      budgets: [
        { id: 'a1', cards: ['card_a1'], per: 'day', limit: '10.00', over: 'deny' },
        { id: 'a1-coffee', cards: ['card_a1'], merchants: ['coffee.example'], per: 'day', limit: '10.00', over: 'deny' },
      ],
      velocity: [
        { id: 'a1-burst', cards: ['card_a1'], per_seconds: 3600, max_count: 1, over: 'deny' },
        { id: 'a1-coffee-burst', cards: ['card_a1'], merchants: ['coffee.example'], per_seconds: 3600, max_count: 1, over: 'deny' },
      ],
    }),
  );
  const ledger = new UsageLedger(policy);
  const accountWide = request({ agent: 'owner', cardId: null, amountMinor: 4_000 });
  const over = evaluatePolicy(policy, accountWide, ledger);
  assert.deepEqual([over.decision, over.rule], ['deny', 'a1'], 'over the card budget it could be charged against');
  assert.deepEqual(over.budgets.map((budget) => budget.id), ['a1'], 'a budget whose merchants do not hold does not count it');
  ledger.reserve(entry({ id: 'pw_account', agent: 'owner', cardId: null, amountMinor: 600 }));
  assert.equal(ledger.exposure(policy.budgets[0]!, T0), 600);
  assert.equal(ledger.exposure(policy.budgets[1]!, T0), 0);
  assert.equal(ledger.count(policy.velocity[0]!, T0), 1, 'a card velocity limit counts a window that can be charged on the card');
  assert.equal(ledger.count(policy.velocity[1]!, T0), 0, 'one whose merchants do not hold does not');
  // The next request on the card, and the next account-wide window, are over that velocity limit.
  assert.deepEqual([evaluatePolicy(policy, request({ amountMinor: 100 }), ledger).rule], ['a1-burst']);
  const next = evaluatePolicy(policy, request({ agent: 'owner', cardId: null, amountMinor: 100 }), ledger);
  assert.deepEqual([next.decision, next.rule], ['deny', 'a1-burst']);
  // A request on the card itself sees the account-wide window in its budget's exposure.
  assert.deepEqual(evaluatePolicy(policy, request({ amountMinor: 500 }), ledger).budgets.find((budget) => budget.id === 'a1'), { id: 'a1', limit: 1_000, exposure: 600, remaining: 400 });
});

test('card rules and a window without a card: deny and ask on a listed card hold for it (it can be charged there), allow does not widen to it', () => {
  const ruled = (rules: unknown[], fallback = 'allow') => parsePolicyText(JSON.stringify({ v: 1, default: fallback, rules }));
  const accountWide = request({ agent: 'owner', cardId: null, amountMinor: 100 });
  const deny = ruled([{ id: 'never-a1', cards: ['card_a1'], decision: 'deny' }]);
  const denied = evaluatePolicy(deny, accountWide, new UsageLedger(deny));
  assert.deepEqual([denied.decision, denied.rule], ['deny', 'never-a1']);
  assert.match(denied.reasons[0] ?? '', /a window without a card can be charged on a listed card/);
  const ask = ruled([{ id: 'ask-a1', cards: ['card_a1'], merchants: ['grocer.example'], decision: 'ask' }]);
  assert.deepEqual([evaluatePolicy(ask, accountWide, new UsageLedger(ask)).decision], ['ask']);
  // The rest of the scope still has to hold: another merchant, another currency, another agent.
  assert.equal(evaluatePolicy(ask, request({ agent: 'owner', cardId: null, amountMinor: 100, merchant: 'other.example' }), new UsageLedger(ask)).decision, 'allow');
  const agentsOnly = ruled([{ id: 'shopper-a1', agents: ['shopper'], cards: ['card_a1'], decision: 'deny' }]);
  assert.equal(evaluatePolicy(agentsOnly, accountWide, new UsageLedger(agentsOnly)).decision, 'allow');
  // Allowing one card is no leave to charge any: under default deny, the window stays denied.
  const allow = ruled([{ id: 'a1-ok', cards: ['card_a1'], decision: 'allow' }], 'deny');
  assert.deepEqual([evaluatePolicy(allow, accountWide, new UsageLedger(allow)).rule], ['default']);
  assert.equal(evaluatePolicy(allow, request({ amountMinor: 100 }), new UsageLedger(allow)).decision, 'allow');
});
