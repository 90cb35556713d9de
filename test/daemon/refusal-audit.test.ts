/**
 * The bound on refusal lines (issue 44 item 3), on a clock the test moves: a kind (agent, code,
 * rule) writes at most REFUSAL_LINES_PER_PERIOD lines a period, counts the rest, and one
 * refusals_counted line carries the count when the period ends, at a sweep or at the stop.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RefusalRecord } from '../../src/core/core-deps.js';
import type { AuditEntry } from '../../src/datadir/audit-entry.js';
import { OWNER } from '../../src/core/principal.js';
import { RefusalAuditor, REFUSAL_LINES_PER_PERIOD, REFUSAL_PERIOD_MS } from '../../src/daemon/refusal-audit.js';

function refusal(agent: string, rule: string | null): RefusalRecord {
  return { code: 'policy_denied', rule, reasons: ['budget b (deny): 90.00 of 100.00 used; 20.00 would exceed it'], operation: 'authorize', cardId: 'card_x', merchant: 'shop.example.com', amountMinor: 2000, currency: 'USD', kind: 'one_time', principal: agent === 'owner' ? OWNER : { kind: 'agent', name: agent }, caller: { requestId: 'req_x', userAgent: 'test' } };
}

test('a flood of one kind writes the bound, counts the rest, and says how many once the period ends; other kinds are not held back', async () => {
  const written: AuditEntry[] = [];
  let now = 1_000_000;
  const auditor = new RefusalAuditor(async (entry) => void written.push(entry), () => undefined, () => now);
  try {
    for (let i = 0; i < REFUSAL_LINES_PER_PERIOD + 15; i++) auditor.note(refusal('shopper', 'b'));
    auditor.note(refusal('helper', 'b'));
    assert.equal(written.filter((entry) => entry.operation === 'refused' && entry.agent === 'shopper').length, REFUSAL_LINES_PER_PERIOD);
    assert.equal(written.filter((entry) => entry.agent === 'helper').length, 1, 'another agent has its own bound');
    const first = written[0] as AuditEntry;
    assert.deepEqual([first['code'], first['rule'], first.amount, first.merchant, first['reasons']], ['policy_denied', 'b', '20.00', 'shop.example.com', 'budget b (deny): 90.00 of 100.00 used; 20.00 would exceed it']);
    assert.equal(written.some((entry) => entry.operation === 'refusals_counted'), false, 'not before the period ends');
    now += REFUSAL_PERIOD_MS;
    auditor.sweep();
    const counted = written.filter((entry) => entry.operation === 'refusals_counted');
    assert.equal(counted.length, 1);
    assert.deepEqual([counted[0]?.agent, counted[0]?.['count'], counted[0]?.['rule']], ['shopper', 15, 'b']);
    // A new period writes lines again; the stop writes what it counted.
    for (let i = 0; i < REFUSAL_LINES_PER_PERIOD + 2; i++) auditor.note(refusal('shopper', 'b'));
    auditor.stop();
    assert.equal(written.filter((entry) => entry.operation === 'refusals_counted').at(-1)?.['count'], 2);
  } finally {
    auditor.stop();
  }
});
