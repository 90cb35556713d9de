/**
 * `latch policy init | check-file | check | show` end to end: the real sandbox and daemon, the CLI
 * run in-process. init writes the starter policy at 0600 and never overwrites; check-file names
 * the wrong field and exits 6; check prints the decision, the rule, why and the budgets and exits
 * 0 whatever the decision; `--agent NAME` on check runs as the owner and checks for NAME.
 */
import assert from 'node:assert/strict';
import { readFileSync, renameSync, statSync, writeFileSync, chmodSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.js';
import { addAgent } from '../../src/datadir/agents.js';
import { STARTER_POLICY_TEXT } from '../../src/policy-text/starter-policy.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
  addAgent(stack.home, 'shopper');
});
after(() => stack.close());

const latch = (args: string[], env: NodeJS.ProcessEnv = {}) => runLatch(args, { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}`, ...env });
const policyFile = () => path.join(stack.home, 'policy.json');
const card = () => stack.cards[0].card_id;

function writePolicy(value: unknown): void {
  writeFileSync(`${policyFile()}.tmp`, typeof value === 'string' ? value : JSON.stringify(value), { mode: 0o600 });
  renameSync(`${policyFile()}.tmp`, policyFile());
}

describe('latch policy init and check-file', () => {
  test('check-file without a policy.json: exit 0, says everything is allowed', async () => {
    rmSync(policyFile(), { force: true });
    const run = await latch(['policy', 'check-file']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.match(run.stdout, /No policy file .* allows every request/);
  });

  test('init writes the starter policy at 0600; a second init refuses and leaves it unchanged', async () => {
    const first = await latch(['policy', 'init']);
    assert.equal(first.code, EXIT.ok, first.stderr);
    assert.equal(readFileSync(policyFile(), 'utf8'), STARTER_POLICY_TEXT);
    assert.equal(statSync(policyFile()).mode & 0o777, 0o600);
    assert.match(first.stdout, /latch policy check-file/);

    writePolicy({ v: 1, default: 'deny' });
    const second = await latch(['policy', 'init']);
    assert.equal(second.code, EXIT.dataDir);
    assert.match(second.stderr, /already exists.*mv /);
    assert.equal(readFileSync(policyFile(), 'utf8'), '{"v":1,"default":"deny"}');
  });

  test('check-file of the starter policy: OK with the counts and the sha256', async () => {
    writePolicy(STARTER_POLICY_TEXT);
    const run = await latch(['policy', 'check-file']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    assert.match(run.stdout, /^OK: 3 rules, 1 budget, 1 velocity limit; sha256 [0-9a-f]{64}\n$/);
  });

  const invalid: Array<{ text: string; field: string }> = [
    { text: '{"v":1,', field: '$' },
    { text: JSON.stringify({ v: 1, rules: [{ id: 'a', decision: 'allow' }, { id: 'b', decision: 'allow' }, { id: 'c', max_amount: 12.75, decision: 'allow' }] }), field: 'rules[2].max_amount' },
    { text: JSON.stringify({ v: 1, budgets: [{ id: 'b', per: 'fortnight', limit: '1.00', over: 'deny' }] }), field: 'budgets[0].per' },
    { text: JSON.stringify({ v: 1, surprise: 'secret-value-xyz' }), field: 'surprise' },
  ];
  for (const { text, field } of invalid) {
    test(`check-file of an invalid file: exit 6 naming ${field}, never the value`, async () => {
      const draft = path.join(stack.root, 'draft.json');
      writeFileSync(draft, text);
      const run = await latch(['policy', 'check-file', draft]);
      assert.equal(run.code, EXIT.verifyFailed, run.stdout + run.stderr);
      assert.ok(run.stdout.startsWith(`${draft} is invalid at ${field}: `), run.stdout);
      assert.ok(!run.stdout.includes('secret-value-xyz') && !run.stdout.includes('12.75'), run.stdout);
    });
  }

  test('check-file of $LATCH_HOME/policy.json applies the data-file checks: group-readable is exit 3', async () => {
    writePolicy(STARTER_POLICY_TEXT);
    chmodSync(policyFile(), 0o644);
    try {
      const run = await latch(['policy', 'check-file']);
      assert.equal(run.code, EXIT.dataDir, run.stdout);
      assert.match(run.stderr, /policy\.json/);
    } finally {
      chmodSync(policyFile(), 0o600);
    }
  });

  test('check-file and apply warn about a rule that can never change a decision (a max_amount that is no cap), and still accept the file', async () => {
    const draft = path.join(stack.root, 'books-cap.json');
    const books = { v: 1, default: 'allow', rules: [{ id: 'books-cap', merchants: ['books.example.com'], max_amount: '20.00', decision: 'allow' }] };
    writeFileSync(draft, JSON.stringify(books));
    const checked = await latch(['policy', 'check-file', draft]);
    assert.equal(checked.code, EXIT.ok, checked.stderr);
    assert.match(checked.stdout, /^OK: 1 rule, 0 budgets, 0 velocity limits; sha256 [0-9a-f]{64}\nwarning: rules\[0\] \(books-cap\): rule books-cap can never change a decision.*max_amount is not a cap.*min_amount and "decision": "deny".*or a budget/);
    const json = JSON.parse((await latch(['policy', 'check-file', draft, '--json'])).stdout);
    assert.deepEqual(json.warnings.map((w: { field: string; id: string }) => [w.field, w.id]), [['rules[0]', 'books-cap']]);

    const applied = await latch(['policy', 'apply', draft]);
    assert.equal(applied.code, EXIT.ok, applied.stderr);
    assert.match(applied.stdout, /^Applied .*\nwarning: rules\[0\] \(books-cap\): .*max_amount is not a cap/);
    const appliedJson = JSON.parse((await latch(['policy', 'apply', draft, '--json'])).stdout);
    assert.equal(appliedJson.warnings[0].id, 'books-cap');

    const capped = { v: 1, default: 'allow', rules: [{ id: 'books-cap', merchants: ['books.example.com'], min_amount: '20.01', decision: 'deny' }] };
    writeFileSync(draft, JSON.stringify(capped));
    const clean = await latch(['policy', 'check-file', draft]);
    assert.doesNotMatch(clean.stdout, /warning/);
    rmSync(policyFile(), { force: true });
  });

  test('check-file of a missing named file is a usage error', async () => {
    assert.equal((await latch(['policy', 'check-file', path.join(stack.root, 'nope.json')])).code, EXIT.usage);
  });
});

describe('latch policy check and show', () => {
  const POLICY = {
    v: 1,
    rules: [{ id: 'no-subscriptions', agents: ['shopper'], kinds: ['recurring'], decision: 'deny' }],
    budgets: [{ id: 'shopper-daily', agents: ['shopper'], per: 'day', limit: '200.00', over: 'deny' }],
  };

  test('--agent NAME checks for NAME as the owner: DENY by the rule, the reasons, the budgets table; exit 0', async () => {
    writePolicy(POLICY);
    const run = await latch(['policy', 'check', '--card', card(), '--merchant', 'grocer.example', '--amount', '5.00', '--kind', 'recurring', '--interval', 'month', '--agent', 'shopper']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const lines = run.stdout.split('\n');
    assert.match(lines[0] ?? '', /^DENY by rule no-subscriptions/);
    assert.ok(lines.some((line) => /^ {2}- rule no-subscriptions \(deny\)/.test(line)), run.stdout);
    assert.ok(lines.some((line) => /^ {2}shopper-daily +200\.00 +0\.00 +200\.00$/.test(line)), run.stdout);
  });

  test('without --agent, as the owner: the rule does not cover the owner; --json is the object', async () => {
    writePolicy(POLICY);
    const run = await latch(['policy', 'check', '--card', card(), '--merchant', 'grocer.example', '--amount', '5.00', '--kind', 'recurring', '--interval', 'month', '--json']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const body = JSON.parse(run.stdout);
    assert.equal(body.decision, 'allow');
    assert.equal(body.rule, 'default');
    assert.deepEqual(body.budgets, []);
  });

  test('as the agent (LATCH_AGENT): checks for itself; --agent wins over LATCH_AGENT and runs as the owner', async () => {
    writePolicy(POLICY);
    const args = ['policy', 'check', '--card', card(), '--merchant', 'grocer.example', '--amount', '5.00', '--kind', 'recurring', '--interval', 'month', '--json'];
    const asAgent = await latch(args, { LATCH_AGENT: 'shopper' });
    assert.equal(asAgent.code, EXIT.ok, asAgent.stderr);
    assert.equal(JSON.parse(asAgent.stdout).rule, 'no-subscriptions');
    // Run as the owner, so the daemon accepts `agent`; an agent sending it would be refused.
    const forOwnerAsOwner = await latch([...args, '--agent', 'owner'], { LATCH_AGENT: 'shopper' });
    assert.equal(forOwnerAsOwner.code, EXIT.ok, forOwnerAsOwner.stdout);
    assert.equal(JSON.parse(forOwnerAsOwner.stdout).rule, 'default');
  });

  const usage: Array<{ name: string; args: string[] }> = [
    { name: 'no --card', args: ['--merchant', 'grocer.example', '--amount', '1.00'] },
    { name: '--interval with one_time', args: ['--card', 'card_x', '--merchant', 'grocer.example', '--amount', '1.00', '--interval', 'month'] },
    { name: 'recurring without --interval', args: ['--card', 'card_x', '--merchant', 'grocer.example', '--amount', '1.00', '--kind', 'recurring'] },
    { name: '--type with merchant_verification', args: ['--card', 'card_x', '--merchant', 'grocer.example', '--kind', 'merchant_verification', '--type', 'exact'] },
    { name: 'an unknown kind', args: ['--card', 'card_x', '--merchant', 'grocer.example', '--amount', '1.00', '--kind', 'weekly'] },
  ];
  for (const { name, args } of usage) {
    test(`usage error: ${name}`, async () => {
      assert.equal((await latch(['policy', 'check', ...args])).code, EXIT.usage);
    });
  }

  test('show: the owner sees the policy with its source and sha256; an agent is refused (7)', async () => {
    writePolicy(POLICY);
    const run = await latch(['policy', 'show', '--json']);
    assert.equal(run.code, EXIT.ok, run.stderr);
    const view = JSON.parse(run.stdout);
    assert.equal(view.source, 'file');
    assert.equal(view.policy.budgets[0].limit, '200.00');
    const human = await latch(['policy', 'show']);
    assert.match(human.stdout, /^Source: policy\.json\nSHA-256: [0-9a-f]{64}\n/);
    const agent = await latch(['policy', 'show'], { LATCH_AGENT: 'shopper' });
    assert.equal(agent.code, EXIT.refused);
    assert.match(agent.stderr, /agent_not_permitted/);
  });

  test('an invalid policy.json: check reports policy_invalid naming the field', async () => {
    writePolicy({ v: 1, default: 'perhaps' });
    const run = await latch(['policy', 'check', '--card', card(), '--merchant', 'grocer.example', '--amount', '1.00', '--json']);
    assert.notEqual(run.code, EXIT.ok);
    const body = JSON.parse(run.stdout);
    assert.equal(body.error.code, 'policy_invalid');
    assert.equal(body.error.param, 'default');
  });
});
