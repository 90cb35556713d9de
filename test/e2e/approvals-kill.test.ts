/**
 * Approvals survive kill -9 (docs/decisions.md §15.4): with the daemon a child process on the real
 * sandbox, an acknowledged (202) approval is still pending, with the same request and hash, after
 * SIGKILL and a restart; an approval decided just before SIGKILL is still approved with its
 * authorization, and the agent's retry of its original POST gets that authorization (never a
 * second approval or signature); the passphrase lockout holds across SIGKILL. Through all of it
 * the approval passphrase, right or wrong, appears in no log line, answer, audit line or journal.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { addAgent, readAgentToken } from '../../src/datadir/agents.js';
import { setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { readToken } from '../../src/datadir/token.js';
import { killAll, killHard, startChild, waitForLine, type Child } from '../adversarial/child-process.js';
import { assertError } from '../support/e2e-assert.js';
import { JsonClient, startStack, type HttpAnswer, type Stack } from '../support/stack.js';

const STARTUP_MS = 30_000;
const POLICY = { v: 1, default: 'allow', rules: [{ id: 'large', min_amount: '5.00', decision: 'ask' }] };
const PASSPHRASE = 'kill-nine correct staple';
const WRONG = ['wrong-one kill-nine', 'wrong-two kill-nine', 'wrong-three kill-nine', 'wrong-four kill-nine', 'wrong-five kill-nine'];

/** One running daemon child, with an owner's and the shopper's client. */
interface Running {
  child: Child;
  owner: JsonClient;
  shopper: JsonClient;
}

let stack: Stack;
/** Every daemon child started, so the test can read all of their log lines at the end. */
const children: Child[] = [];
/** Every answer the daemons gave, so the test can scan them for the passphrase. */
const answers: HttpAnswer[] = [];

before(async () => {
  stack = await startStack();
  // The daemon here is a child process on the same data directory.
  await stack.daemon.close({ deadlineMs: 1_000 });
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify(POLICY), { mode: 0o600 });
  addAgent(stack.home, 'shopper');
  setApprovalPassphrase(stack.home, PASSPHRASE);
});
after(async () => {
  await killAll();
  await stack.close();
});

/** recorded wraps a client so every answer it receives is kept for the scan. */
function recorded(client: JsonClient): JsonClient {
  const request = client.request.bind(client);
  client.request = async (...args) => {
    const answer = await request(...args);
    answers.push(answer);
    return answer;
  };
  return client;
}

async function startDaemon(): Promise<Running> {
  const child = startChild('src/cli/main.ts', ['daemon', '--port-a', '0', '--port-b', '0'], { LATCH_HOME: stack.home });
  children.push(child);
  const line = await waitForLine(child, (text) => text.includes('"daemon_listening"'), STARTUP_MS);
  const base = `http://127.0.0.1:${(JSON.parse(line) as { port_a: number }).port_a}`;
  return {
    child,
    owner: recorded(new JsonClient(base, () => readToken(stack.home))),
    shopper: recorded(new JsonClient(base, () => readAgentToken(stack.home, 'shopper'))),
  };
}

/** restart kills the daemon with SIGKILL and starts another on the same data directory. */
async function restart(running: Running): Promise<Running> {
  await killHard(running.child);
  assert.equal(running.child.process.signalCode, 'SIGKILL');
  return startDaemon();
}

const registered = () => stack.sandbox.state().authorizations.size;
const body = (merchant: string) => ({ card_id: stack.cards[0].card_id, amount: '6.00', merchant_name: merchant });

let daemon: Running;

describe('kill -9 of the daemon', () => {
  test('a pending approval and then its decision survive SIGKILL; the retry gets the one authorization', async () => {
    daemon = await startDaemon();
    const key = 'kill-order-1';
    const asked = await daemon.shopper.post('/authorize', body('kill.example.com'), { 'idempotency-key': key });
    assert.equal(asked.status, 202, asked.text);
    const id: string = asked.body.approval_id;
    const before = registered();

    daemon = await restart(daemon);
    const pending = await daemon.owner.get(`/approvals/${id}`);
    assert.equal(pending.status, 200, pending.text);
    assert.equal(pending.body.status, 'pending_approval');
    assert.deepEqual(pending.body.request, asked.body.request);
    assert.equal(pending.body.request_sha256, asked.body.request_sha256);
    assert.equal(pending.body.created_at, asked.body.created_at);
    assert.equal(pending.body.agent, 'shopper');
    const retried = await daemon.shopper.post('/authorize', body('kill.example.com'), { 'idempotency-key': key });
    assert.equal(retried.status, 202, retried.text);
    assert.equal(retried.body.approval_id, id, 'the retry finds the same approval after the restart');

    const approved = await daemon.owner.post(`/approvals/${id}/approve`, { passphrase: PASSPHRASE });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.status, 'approved');
    const authorization = approved.body.authorization;
    assert.equal(authorization.amount, '6.00');
    assert.equal(registered(), before + 1);

    // SIGKILL right after the 200: the decision was durable before it was answered.
    daemon = await restart(daemon);
    const decided = await daemon.owner.get(`/approvals/${id}`);
    assert.equal(decided.body.status, 'approved', decided.text);
    assert.deepEqual(decided.body.authorization, authorization);

    const replay = await daemon.shopper.post('/authorize', body('kill.example.com'), { 'idempotency-key': key });
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.body.policy_id, authorization.policy_id);
    assert.equal(registered(), before + 1, 'no second signature reached the cloud');
    const all = await daemon.owner.get('/approvals?limit=100');
    assert.deepEqual(
      all.body.approvals.filter((approval: { request: { merchant_name: string } }) => approval.request.merchant_name === 'kill.example.com').map((approval: { approval_id: string }) => approval.approval_id),
      [id],
      'never a second approval',
    );
  });

  test('malformed approve bodies carrying the passphrase are refused without repeating it', async () => {
    const asked = await daemon.shopper.post('/authorize', body('malformed.example.com'));
    assert.equal(asked.status, 202, asked.text);
    const id: string = asked.body.approval_id;
    const cases: Array<[string, string, number]> = [
      ['truncated JSON', `{"passphrase":"${PASSPHRASE}"`, 400],
      ['an unknown field beside it', JSON.stringify({ passphrase: PASSPHRASE, remember: PASSPHRASE }), 400],
      ['a passphrase too long', JSON.stringify({ passphrase: PASSPHRASE.repeat(200) }), 400],
    ];
    for (const [name, text, status] of cases) {
      const answer = await daemon.owner.post(`/approvals/${id}/approve`, text);
      assert.equal(answer.status, status, `${name}: ${answer.text}`);
      assert.ok(!answer.text.includes(PASSPHRASE), name);
    }
    assert.equal((await daemon.owner.get(`/approvals/${id}`)).body.status, 'pending_approval');
  });

  test('the lockout after 5 wrong passphrases holds across SIGKILL', async () => {
    const asked = await daemon.shopper.post('/authorize', body('locked.example.com'));
    assert.equal(asked.status, 202, asked.text);
    const id: string = asked.body.approval_id;
    for (const wrong of WRONG) assertError(await daemon.owner.post(`/approvals/${id}/approve`, { passphrase: wrong }), 401, 'invalid_passphrase');
    assertError(await daemon.owner.post(`/approvals/${id}/approve`, { passphrase: PASSPHRASE }), 429, 'too_many_attempts');

    daemon = await restart(daemon);
    const locked = await daemon.owner.post(`/approvals/${id}/approve`, { passphrase: PASSPHRASE });
    assertError(locked, 429, 'too_many_attempts');
    assert.ok(Number(locked.headers.get('retry-after')) > 0);
    assert.equal((await daemon.owner.get(`/approvals/${id}`)).body.status, 'pending_approval');
  });

  test('no passphrase, right or wrong, in any log line, answer, audit line or the state journal', async () => {
    await killHard(daemon.child);
    const logs = children.map((child) => `${child.lines.join('\n')}\n${child.stderr()}`).join('\n');
    assert.ok(logs.includes('"request"'), 'the daemons did log their requests');
    const places: Array<[string, string]> = [
      ['the daemon logs', logs],
      ['the answers', answers.map((answer) => answer.text).join('\n')],
      ['audit.log', readFileSync(path.join(stack.home, 'audit.log'), 'utf8')],
      ['state.journal', readFileSync(path.join(stack.home, 'state.journal'), 'utf8')],
    ];
    // The scan means something: the places hold the approvals in readable text.
    for (const [where, text] of places) assert.ok(text.includes('kill.example.com') || where === 'the daemon logs', `${where} holds the approval`);
    for (const secret of [PASSPHRASE, ...WRONG]) {
      for (const [where, text] of places) assert.ok(!text.includes(secret), `${JSON.stringify(secret)} is in ${where}`);
    }
  });
});
