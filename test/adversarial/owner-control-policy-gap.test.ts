/**
 * Red team on owner control (issue 21, item 4): an editor saving policy.json by rename-then-write
 * leaves a moment with no file. Once a policy is loaded, that moment must not open everything: the
 * daemon keeps the last good policy until the owner runs `latch policy remove` (audited).
 */
import assert from 'node:assert/strict';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { createDaemon } from '../../src/daemon/create-daemon.js';
import { addAgent, readAgentToken } from '../../src/datadir/agents.js';
import { JsonClient, runLatch, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let agent: JsonClient;
let policyFile: string;

before(async () => {
  stack = await startStack();
  addAgent(stack.home, 'shopper');
  agent = stack.agent('shopper');
  policyFile = path.join(stack.home, 'policy.json');
});
after(() => stack.close());

function writePolicy(policy: unknown): void {
  writeFileSync(`${policyFile}.tmp`, JSON.stringify(policy), { mode: 0o600 });
  renameSync(`${policyFile}.tmp`, policyFile);
}

const buy = () => agent.post('/authorize', { card_id: stack.cards[0].card_id, amount: '1.00', merchant_name: 'denied.example.com' });

test('item 4: while policy.json is missing mid-save the last good policy holds; only latch policy remove (audited) ends it', async () => {
  writePolicy({ v: 1, rules: [{ id: 'no-denied', merchants: ['denied.example.com'], decision: 'deny' }] });
  assert.equal((await buy()).status, 403, 'the policy is loaded');

  // vim's save: the old file is renamed to a backup, then the new one written.
  renameSync(policyFile, `${policyFile}~`);
  const inTheGap = await Promise.all(Array.from({ length: 10 }, buy));
  for (const answer of inTheGap) assert.deepEqual([answer.status, answer.body?.error?.code], [403, 'policy_denied'], answer.text);
  const health = await stack.a.get('/policy');
  assert.equal(health.body.source, 'file', 'GET /policy still shows the file policy');
  renameSync(`${policyFile}~`, policyFile);

  const removed = await runLatch(['policy', 'remove'], { LATCH_HOME: stack.home });
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal((await buy()).status, 200, 'removed explicitly: no policy');
  const audited = readFileSync(path.join(stack.home, 'audit.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  const line = audited.find((entry) => entry['operation'] === 'policy_removed');
  assert.match(String(line?.['policy_sha256']), /^[0-9a-f]{64}$/);
  assert.equal(line?.['agent'], 'owner');

  // A policy written after a removal is protected the same way.
  writePolicy({ v: 1, rules: [{ id: 'no-denied-again', merchants: ['denied.example.com'], decision: 'deny' }] });
  assert.equal((await buy()).status, 403);
  renameSync(policyFile, `${policyFile}~`);
  assert.equal((await buy()).body?.error?.rule, 'no-denied-again');
  renameSync(`${policyFile}~`, policyFile);
});

test('a policy removed by rm while the daemon is down keeps failing closed after the restart; latch policy remove (audited) ends it', async () => {
  writePolicy({ v: 1, rules: [{ id: 'no-denied-restart', merchants: ['denied.example.com'], decision: 'deny' }] });
  assert.equal((await buy()).body?.error?.rule, 'no-denied-restart', 'the policy is loaded and in force');
  await stack.daemon.close({ deadlineMs: 1_000 });
  rmSync(policyFile);
  const lines = () => readFileSync(path.join(stack.home, 'audit.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  const linesBefore = lines().length;

  const restarted = createDaemon({ home: stack.home, portA: 0, portB: 0, env: { LATCH_HOME: stack.home }, logStream: new PassThrough().resume() });
  after(() => restarted.close({ deadlineMs: 1_000 }));
  const ports = await restarted.listen();
  const shopper = new JsonClient(`http://127.0.0.1:${ports.portA}`, () => readAgentToken(stack.home, 'shopper'));
  const restartedBuy = () => shopper.post('/authorize', { card_id: stack.cards[0].card_id, amount: '1.00', merchant_name: 'denied.example.com' });
  for (let attempt = 0; attempt < 3; attempt++) {
    const refused = await restartedBuy();
    assert.deepEqual([refused.status, refused.body?.error?.code], [503, 'policy_invalid'], refused.text);
    assert.match(refused.body.error.message, /policy\.json is missing.*latch policy remove/);
  }
  assert.deepEqual(lines().slice(linesBefore).filter((line) => typeof line['policy_id'] === 'string' || line['path'] === '/v1/authorizations'), [], 'no window was signed or sent for them');

  const removed = await runLatch(['policy', 'remove'], { LATCH_HOME: stack.home });
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal((await restartedBuy()).status, 200, 'removed explicitly: no policy');
  assert.equal(lines().filter((line) => line['operation'] === 'policy_removed').length, 2, 'each removal is audited');
});
