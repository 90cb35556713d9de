/**
 * The console's Activity (issue 44 item 3): spending and refusals first, signed reads only on
 * request. Each line read from audit.log has a kind; a refusal says its code, rule and the
 * reasons' numbers; signed upstream reads are left out unless asked for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readActivity } from '../../src/console/activity.js';
import { sharedAuditWriter } from '../../src/datadir/audit-writer.js';
import { ensureHome } from '../../src/datadir/home.js';
import { tempHome } from '../datadir/temp-home.js';

test('Activity sorts lines into spending, refusals, reads and the rest, and leaves signed reads out unless asked', async () => {
  const home = tempHome();
  ensureHome(home);
  const writer = sharedAuditWriter(home);
  await writer.append({ operation: 'authorize', policy_id: 'pw_1', merchant: 'shop.example.com', amount: '78.00', currency: 'USD', agent: 'shopper' });
  await writer.append({ operation: 'sign_request', method: 'GET', path: '/v1/cards', agent: 'owner' });
  await writer.append({ operation: 'refused', requested: 'authorize', code: 'policy_denied', rule: 'monthly', reasons: 'budget monthly (deny): 78.00 of 100.00 used; 24.00 would exceed it', merchant: 'shop.example.com', amount: '24.00', currency: 'USD', agent: 'shopper' });
  await writer.append({ operation: 'refusals_counted', code: 'policy_denied', rule: 'monthly', count: 12, since: '2026-11-28T10:00:00.000Z', until: '2026-11-28T10:01:00.000Z', agent: 'shopper' });
  await writer.append({ operation: 'policy_changed', agent: 'owner' });
  await writer.idle();

  const lines = readActivity(home);
  assert.deepEqual(lines.map((line) => [line.operation, line.kind]), [['policy_changed', 'other'], ['refusals_counted', 'refusal'], ['refused', 'refusal'], ['authorize', 'spending']], 'no signed read by default');
  const refused = lines.find((line) => line.operation === 'refused');
  assert.equal(refused?.words, 'was refused 24.00 USD at shop.example.com policy_denied (rule monthly): budget monthly (deny): 78.00 of 100.00 used; 24.00 would exceed it');
  assert.match(lines.find((line) => line.operation === 'refusals_counted')?.words ?? '', /12 × policy_denied \(rule monthly\)/);
  const withReads = readActivity(home, 100, { reads: true });
  assert.deepEqual(withReads.filter((line) => line.kind === 'read').map((line) => line.words), ['sent a signed request: GET /v1/cards']);
});
