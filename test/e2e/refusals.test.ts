/**
 * What the agent tried and was refused, where the owner looks (issue 44 items 3 and 4): every
 * refusal by the policy, the pause or the lockout is an audit line with the agent, the amount, the
 * merchant, the rule and the reasons' numbers, shown by `latch audit`; a flood writes a bounded
 * number of lines and counts the rest; the plain-text denial gives the numbers; an approval that a
 * budget filled meanwhile is said to have failed on the local policy; a 0644 policy.json names the
 * file and the fix to the agent.
 */
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { addAgent } from '../../src/datadir/agents.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { REFUSAL_LINES_PER_PERIOD } from '../../src/daemon/refusal-audit.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';

describe('refusals the owner sees', () => {
  let stack: Stack;
  let floodStartedMs = 0;
  const asAgent = () => ({ LATCH_HOME: stack.home, LATCH_AGENT: 'shopper' });
  const asOwner = () => ({ LATCH_HOME: stack.home });
  const auditLines = () => readFileSync(path.join(stack.home, 'audit.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  /** A refusal's line is written after its answer: wait for it (10 s at most, then fail saying what). */
  const lineWhere = async (what: string, matches: (entry: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const found = auditLines().find(matches);
      if (found !== undefined) return found;
      if (Date.now() > deadline) assert.fail(`no audit line ${what} within 10 s: ${JSON.stringify(auditLines().slice(-3))}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  before(async () => {
    stack = await startStack();
    const [groceries, subscriptions] = stack.cards;
    const policy = {
      v: 1,
      default: 'allow',
      rules: [{ id: 'subs-ask', cards: [subscriptions.card_id], min_amount: '30.00', decision: 'ask' }],
      budgets: [
        { id: 'monthly', cards: [groceries.card_id], per: 'month', limit: '100.00', over: 'deny' },
        { id: 'subs', cards: [subscriptions.card_id], per: 'month', limit: '50.00', over: 'deny' },
      ],
    };
    writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify(policy), { mode: 0o600 });
    addAgent(stack.home, 'shopper');
  });
  after(async () => {
    await stack.close();
  });

  test('an over-budget attempt: the plain-text denial gives the numbers, and latch audit shows the refusal with the agent, amount, merchant, rule and numbers', async () => {
    const card = stack.cards[0].card_id;
    const first = await runLatch(['authorize', '--card', card, '--amount', '78.00', '--merchant', 'shop.example.com'], asAgent());
    assert.equal(first.code, EXIT.ok, first.stderr);
    const refused = await runLatch(['authorize', '--card', card, '--amount', '24.00', '--merchant', 'shop.example.com'], asAgent());
    assert.equal(refused.code, EXIT.refused, refused.stderr);
    assert.match(refused.stderr, /\(policy_denied\): The spending policy refuses this request \(rule monthly\)/);
    assert.match(refused.stderr, /^Why: .*budget monthly \(deny\): 78\.00 of 100\.00 used; 24\.00 would exceed it\.$/m);

    const line = await lineWhere('refused', (entry) => entry['operation'] === 'refused');
    assert.equal(line['agent'], 'shopper');
    assert.equal(line['amount'], '24.00');
    assert.equal(line['merchant'], 'shop.example.com');
    assert.equal(line['code'], 'policy_denied');
    assert.equal(line['rule'], 'monthly');
    assert.match(String(line['reasons']), /78\.00 of 100\.00 used; 24\.00 would exceed it/);

    const audit = await runLatch(['audit'], asOwner());
    assert.equal(audit.code, EXIT.ok, audit.stderr);
    const row = audit.stdout.split('\n').find((text) => /\brefused\b/.test(text));
    assert.ok(row !== undefined, audit.stdout);
    for (const part of ['shopper', 'shop.example.com', '24.00 USD', 'policy_denied rule monthly', '78.00 of 100.00 used; 24.00 would exceed it']) assert.ok(row.includes(part), `${part} in ${row}`);
  });

  test('the pause refuses, and that is a line too', async () => {
    const paused = await runLatch(['pause', '--reason', 'lunch'], asOwner());
    assert.equal(paused.code, EXIT.ok, paused.stderr);
    try {
      const refused = await runLatch(['authorize', '--card', stack.cards[0].card_id, '--amount', '1.00', '--merchant', 'shop.example.com'], asAgent());
      assert.equal(refused.code, EXIT.refused, refused.stderr);
    } finally {
      assert.equal((await runLatch(['resume'], asOwner())).code, EXIT.ok);
    }
    const line = await lineWhere('refused by the pause', (entry) => entry['operation'] === 'refused' && entry['code'] === 'daemon_paused');
    assert.equal(line['agent'], 'shopper');
    assert.equal(line['amount'], '1.00');
  });

  test('after approving a request a budget has since filled: the local policy refused it, the approval failed, with the numbers', async () => {
    const card = stack.cards[1].card_id;
    const asked = await runLatch(['authorize', '--card', card, '--amount', '40.00', '--merchant', 'subs.example.com', '--json'], asAgent());
    assert.equal(asked.code, EXIT.pendingApproval, asked.stderr + asked.stdout);
    const approvalId = (JSON.parse(asked.stdout) as { approval_id: string }).approval_id;
    const meanwhile = await runLatch(['authorize', '--card', card, '--amount', '20.00', '--merchant', 'subs.example.com'], asAgent());
    assert.equal(meanwhile.code, EXIT.ok, meanwhile.stderr);
    const approved = await runLatch(['approve', approvalId, '--yes'], asOwner());
    assert.equal(approved.code, EXIT.refused, approved.stdout + approved.stderr);
    assert.match(approved.stdout, new RegExp(`Approved ${approvalId}, but the local spending policy \\(policy\\.json\\) refused it when it was signed, so the approval is now failed: policy_denied`));
    assert.match(approved.stdout, /20\.00 of 50\.00 used; 40\.00 would exceed it/);
    assert.doesNotMatch(approved.stdout, /the cloud refused/);
    const line = await lineWhere(`refused for ${approvalId}`, (entry) => entry['operation'] === 'refused' && entry['approval_id'] === approvalId);
    assert.equal(line['agent'], 'shopper', 'the refusal names the agent that asked');
    assert.equal(line['requested'], 'approve');
  });

  test(`a flood of refusals writes at most ${REFUSAL_LINES_PER_PERIOD} lines of a kind per period and counts the rest in one line`, async () => {
    const refusedBefore = auditLines().filter((entry) => entry['operation'] === 'refused' && entry['rule'] === 'monthly').length;
    const flood = 3 * REFUSAL_LINES_PER_PERIOD;
    floodStartedMs = Date.now();
    const agent = stack.agent('shopper');
    for (let i = 0; i < flood; i++) {
      const answer = await agent.post('/authorize', { card_id: stack.cards[0].card_id, amount: '24.00', merchant_name: 'shop.example.com' });
      assert.equal(answer.status, 403, answer.text);
    }
    const elapsedMs = Date.now() - floodStartedMs;
    // The daemon stops first (writing what it counted); the stack's files go after the read.
    await stack.daemon.close();
    const lines = auditLines();
    const written = lines.filter((entry) => entry['operation'] === 'refused' && entry['rule'] === 'monthly').length - refusedBefore;
    const counted = lines.filter((entry) => entry['operation'] === 'refusals_counted' && entry['rule'] === 'monthly').reduce((sum, entry) => sum + Number(entry['count']), 0);
    assert.equal(written + counted, flood, 'every refusal is a line or counted');
    // Within one period (the usual case) the bound holds exactly; a slow machine may span two.
    const periods = Math.floor(elapsedMs / 60_000) + 1;
    assert.ok(written <= periods * REFUSAL_LINES_PER_PERIOD, `${written} lines in ${periods} period(s)`);
    assert.ok(counted > 0, 'the rest were counted');
    const countedLine = lines.find((entry) => entry['operation'] === 'refusals_counted');
    assert.equal(countedLine?.['agent'], 'shopper');
    assert.equal(countedLine?.['code'], 'policy_denied');
  });
});

describe('a policy.json others can read', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
    writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify({ v: 1, default: 'allow', rules: [] }), { mode: 0o600 });
    addAgent(stack.home, 'shopper');
  });
  after(async () => {
    await stack.close();
  });

  test('reaches the agent naming the file and the owner\'s fix, never the data directory\'s path', async () => {
    chmodSync(path.join(stack.home, 'policy.json'), 0o644);
    const refused = await runLatch(['authorize', '--card', stack.cards[0].card_id, '--amount', '1.00', '--merchant', 'shop.example.com'], { LATCH_HOME: stack.home, LATCH_AGENT: 'shopper' });
    assert.equal(refused.code, EXIT.dataDir, refused.stderr);
    assert.match(refused.stderr, /\(data_directory_unavailable\): The daemon's data file policy\.json can be read or changed by other users/);
    assert.match(refused.stderr, /chmod 600 <data directory>\/policy\.json/);
    assert.ok(!refused.stderr.includes(stack.home), 'the data directory stays unnamed');
  });
});
