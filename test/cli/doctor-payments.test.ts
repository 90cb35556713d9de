/**
 * `latch doctor` sees what blocks payments although the daemon, token, enrollment, cloud and key
 * are fine (issue 30 item 1, docs/decisions.md §19): policy.json readable by others or invalid, the
 * pause, the approval lockout; and warns of pending approvals and of agents without an approval
 * passphrase. Each state is made on a real daemon and data directory, and each failure is shown to
 * stop a real authorization, so that doctor's verdict is checked against what the daemon does.
 */
import assert from 'node:assert/strict';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.js';
import { DIAGNOSIS_CHECKS } from '../../src/client/diagnose.js';
import { addAgent, removeAgent } from '../../src/datadir/agents.js';
import { clearApprovalPassphrase, setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { pauseSigning, resumeSigning } from '../../src/datadir/pause.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';

interface Doctor {
  code: number;
  stdout: string;
  report: any;
}

let stack: Stack;
let keySeq = 0;

before(async () => {
  stack = await startStack();
});
after(() => stack.close());

const env = (): NodeJS.ProcessEnv => ({ LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` });
const policyFile = (): string => path.join(stack.home, 'policy.json');

async function doctor(environment: NodeJS.ProcessEnv = env()): Promise<Doctor> {
  const json = await runLatch(['doctor', '--json'], environment);
  const human = await runLatch(['doctor'], environment);
  assert.equal(human.code, json.code, 'the exit code does not depend on --json');
  return { code: json.code, stdout: human.stdout, report: JSON.parse(json.stdout) };
}

function check(report: any, name: string): { status: string; detail: string; fix: string | null } {
  const found = report.checks.find((entry: { name: string }) => entry.name === name);
  assert.ok(found, `no ${name} check in ${JSON.stringify(report.checks)}`);
  return found;
}

/** authorize asks the daemon for a small one-time authorization as the owner. */
function authorize(amount = '1.00') {
  return stack.a.post('/authorize', { card_id: stack.cards[0].card_id, amount, merchant_name: 'doctor.example.com' }, { 'idempotency-key': `doctor-${++keySeq}` });
}

function writePolicy(value: unknown, mode = 0o600): void {
  writeFileSync(policyFile(), typeof value === 'string' ? value : JSON.stringify(value), { mode });
  chmodSync(policyFile(), mode);
}

describe('latch doctor and what blocks payments, on a real daemon', () => {
  test('nothing set up: every check ok, exit 0, All checks passed', async () => {
    const { code, report, stdout } = await doctor();
    assert.equal(code, EXIT.ok, stdout);
    assert.deepEqual(report.checks.map((entry: { name: string }) => entry.name), [...DIAGNOSIS_CHECKS]);
    assert.deepEqual(report.checks.map((entry: { status: string }) => entry.status), DIAGNOSIS_CHECKS.map(() => 'ok'));
    assert.match(check(report, 'policy').detail, /every request is allowed/);
    assert.match(stdout, /All checks passed\./);
  });

  test('policy.json at 0644 (an editor with umask 022): authorizations fail; doctor says policy, chmod 600, exit 3', async () => {
    writePolicy({ v: 1, default: 'allow' }, 0o644);
    try {
      const refused = await authorize();
      assert.equal(refused.status, 503, refused.text);
      assert.equal(refused.body.error.code, 'data_directory_unavailable');
      const { code, report, stdout } = await doctor();
      assert.equal(code, EXIT.dataDir);
      assert.equal(report.ok, false);
      assert.equal(report.problem.check, 'policy');
      assert.equal(report.problem.code, 'policy_unsafe');
      assert.equal(report.problem.remedy, `chmod 600 ${policyFile()}`);
      assert.equal(check(report, 'policy').status, 'failed');
      assert.equal(check(report, 'cloud').status, 'ok', 'the connection is fine');
      assert.match(stdout, new RegExp(`What to do: chmod 600 ${policyFile().replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
      assert.doesNotMatch(stdout, /All checks passed/);
      // The fix doctor prints is the one that works.
      chmodSync(policyFile(), 0o600);
      assert.equal((await doctor()).code, EXIT.ok);
      assert.equal((await authorize()).status, 200);
    } finally {
      rmSync(policyFile(), { force: true });
    }
  });

  test('an invalid policy: every authorization is 503 policy_invalid; doctor names the field and the fix, exit 6', async () => {
    writePolicy({ v: 1, rules: [{ id: 'big', max_amount: 5, decision: 'deny' }] });
    try {
      const refused = await authorize();
      assert.equal(refused.status, 503, refused.text);
      assert.equal(refused.body.error.code, 'policy_invalid');
      assert.doesNotMatch(refused.body.error.message, /\.\./, 'one full stop, not two');
      // Nothing was signed: the CLI says the data directory needs fixing (3), not "may have taken effect" (1).
      const cli = await runLatch(['authorize', '--card', stack.cards[0].card_id, '--amount', '1.00', '--merchant', 'doctor.example.com'], env());
      assert.equal(cli.code, EXIT.dataDir, cli.stderr);
      assert.match(cli.stderr, /Policy invalid \(policy_invalid\)/);
      assert.doesNotMatch(cli.stderr, /may have taken effect/);
      const { code, report, stdout } = await doctor();
      assert.equal(code, EXIT.verifyFailed);
      assert.equal(report.problem.check, 'policy');
      assert.equal(report.problem.code, 'policy_invalid');
      assert.equal(report.problem.spec_class, 'Policy invalid');
      assert.match(report.problem.message, /rules\[0\]\.max_amount/);
      assert.match(report.problem.remedy, /at rules\[0\]\.max_amount and check it with latch policy check-file/);
      assert.match(stdout, /Problem: .*\(policy_invalid\)/);
    } finally {
      rmSync(policyFile(), { force: true });
    }
  });

  test('paused: who, since when, why and latch resume; exit 7; the resume it names makes payments work', async () => {
    const state = pauseSigning(stack.home, 'lost my laptop');
    try {
      const refused = await authorize();
      assert.equal(refused.status, 409, refused.text);
      assert.equal(refused.body.error.code, 'daemon_paused');
      const { code, report, stdout } = await doctor();
      assert.equal(code, EXIT.refused);
      assert.equal(report.problem.check, 'pause');
      assert.equal(report.problem.code, 'daemon_paused');
      assert.equal(report.problem.remedy, 'latch resume');
      assert.ok(report.problem.message.includes(state.since), report.problem.message);
      assert.match(report.problem.message, /"lost my laptop"/);
      assert.ok(report.problem.message.includes(`user ${userInfo().username}`), report.problem.message);
      assert.match(stdout, /What to do: latch resume/);
    } finally {
      resumeSigning(stack.home);
    }
    assert.equal((await doctor()).code, EXIT.ok);
  });

  test('the daemon down while paused: the daemon is the problem (exit 8), and the pause is still reported', async () => {
    pauseSigning(stack.home, undefined);
    try {
      const { code, report } = await doctor({ LATCH_HOME: stack.home, LATCH_URL: 'http://127.0.0.1:1' });
      assert.equal(code, EXIT.daemonUnreachable);
      assert.equal(report.problem.check, 'daemon');
      assert.equal(check(report, 'pause').status, 'failed');
      assert.equal(check(report, 'policy').status, 'ok');
      assert.equal(check(report, 'approvals').status, 'skipped');
    } finally {
      resumeSigning(stack.home);
    }
  });

  test('agents and no approval passphrase: a warning naming latch approvals passphrase set, exit 0; with one: ok', async () => {
    addAgent(stack.home, 'shopper');
    try {
      const { code, report, stdout } = await doctor();
      assert.equal(code, EXIT.ok);
      const presence = check(report, 'presence');
      assert.equal(presence.status, 'warning');
      assert.match(presence.detail, /1 agent \(shopper\) and no approval passphrase/);
      assert.equal(presence.fix, 'latch approvals passphrase set');
      assert.match(stdout, /Warning \(presence\): latch approvals passphrase set/);
      assert.match(stdout, /Nothing blocks payments\./);
      setApprovalPassphrase(stack.home, 'correct horse battery');
      assert.equal(check((await doctor()).report, 'presence').status, 'ok');
    } finally {
      clearApprovalPassphrase(stack.home);
      removeAgent(stack.home, 'shopper');
    }
  });

  // Last: the lockout lasts 15 minutes and cannot be lifted without waiting.
  test('a pending approval is a warning with its id; then five wrong passphrases lock approving: exit 7 with the wait', async () => {
    writePolicy({ v: 1, default: 'allow', rules: [{ id: 'large', min_amount: '5.00', decision: 'ask' }] });
    addAgent(stack.home, 'shopper');
    setApprovalPassphrase(stack.home, 'correct horse battery');
    try {
      const shopper = stack.agent('shopper');
      const asked = await shopper.post('/authorize', { card_id: stack.cards[0].card_id, amount: '6.00', merchant_name: 'big.example.com' }, { 'idempotency-key': 'doctor-ask' });
      assert.equal(asked.status, 202, asked.text);
      const id = asked.body.approval_id as string;

      const pending = await doctor();
      assert.equal(pending.code, EXIT.ok);
      const approvals = check(pending.report, 'approvals');
      assert.equal(approvals.status, 'warning');
      assert.ok(approvals.detail.includes(`1 pending approval waits for you; the oldest is ${id} from shopper`), approvals.detail);
      assert.match(approvals.fix ?? '', /latch approve ap_… or latch deny ap_…/);

      for (let attempt = 1; attempt <= 5; attempt++) {
        const wrong = await stack.a.post(`/approvals/${id}/approve`, { passphrase: `wrong guess ${attempt}` });
        assert.equal(wrong.status, 401, wrong.text);
      }
      const locked = await stack.a.post(`/approvals/${id}/approve`, { passphrase: 'correct horse battery' });
      assert.equal(locked.status, 429, locked.text);

      const { code, report, stdout } = await doctor();
      assert.equal(code, EXIT.refused);
      assert.equal(report.problem.check, 'approvals');
      assert.equal(report.problem.code, 'too_many_attempts');
      const seconds = Number(/locked for another (\d+) s/.exec(report.problem.message)?.[1]);
      assert.ok(seconds > 800 && seconds <= 900, report.problem.message);
      assert.match(report.problem.remedy, new RegExp(`^wait ${seconds} s`));
      assert.match(stdout, /Problem: .*\(too_many_attempts\)/);
    } finally {
      rmSync(policyFile(), { force: true });
      clearApprovalPassphrase(stack.home);
      removeAgent(stack.home, 'shopper');
    }
  });
});
