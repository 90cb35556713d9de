/**
 * The spending policy as an agent meets it through `latch mcp` over stdio, against the real daemon
 * and sandbox with a policy.json: a denial is a tool error naming the rule and telling the agent
 * not to retry with other terms and to tell the user; a broken policy.json is a tool error saying
 * the owner's policy file is broken. Nothing reaches the cloud in either case.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { addAgent } from '../../src/datadir/agents.js';
import { REPO_ROOT } from '../support/paths.js';
import { startStack, type Stack } from '../support/stack.js';
import { toolErrorOf } from '../support/mcp-result.js';

/** mcpChild starts `latch mcp --agent shopper` and returns a tools/call function. */
function mcpChild(env: NodeJS.ProcessEnv): { child: ChildProcessWithoutNullStreams; request: (id: number, method: string, params: object) => Promise<any> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'mcp', '--agent', 'shopper'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const waiting = new Map<number, (message: any) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line);
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
  });
  const request = (id: number, method: string, params: object) =>
    new Promise<any>((resolve) => {
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  return { child, request };
}

let stack: Stack;
let mcp: ReturnType<typeof mcpChild>;
before(async () => {
  stack = await startStack();
  addAgent(stack.home, 'shopper');
  mcp = mcpChild({ LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` });
  const init = await mcp.request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'policy-test', version: '1' } });
  assert.equal(init.result.protocolVersion, '2025-06-18');
  mcp.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
});
after(async () => {
  mcp.child.stdin.end();
  await new Promise((resolve) => mcp.child.once('exit', resolve));
  await stack.close();
});

let writes = 0;
function writePolicy(text: string): void {
  const file = path.join(stack.home, 'policy.json');
  writeFileSync(`${file}.tmp${writes}`, text, { mode: 0o600 });
  renameSync(`${file}.tmp${writes++}`, file);
}

const POLICY = JSON.stringify({
  v: 1,
  rules: [
    { id: 'no-casino', merchants: ['casino.example.com'], decision: 'deny' },
    { id: 'no-subscriptions', agents: ['shopper'], kinds: ['recurring'], decision: 'deny' },
  ],
  budgets: [{ id: 'shopper-daily', agents: ['shopper'], per: 'day', limit: '3.00', over: 'deny' }],
});

const registered = () => stack.sandbox.state().authorizations.size;
let ids = 10;
const call = async (name: string, args: object) => (await mcp.request(ids++, 'tools/call', { name, arguments: args })).result;

const denials: Array<{ name: string; tool: string; args: () => object; rule: string }> = [
  { name: 'a denied merchant', tool: 'latch_authorize', args: () => ({ card_id: stack.cards[0].card_id, merchant_domain: 'casino.example.com', amount: '1.00' }), rule: 'no-casino' },
  { name: 'a subscription', tool: 'latch_recurring', args: () => ({ card_id: stack.cards[0].card_id, merchant_domain: 'video.example.com', amount: '1.00', interval: 'month' }), rule: 'no-subscriptions' },
  { name: 'over the budget', tool: 'latch_authorize', args: () => ({ card_id: stack.cards[0].card_id, merchant_domain: 'shop.example.com', amount: '3.01' }), rule: 'shopper-daily' },
];
for (const { name, tool, args, rule } of denials) {
  test(`${name}: a tool error naming rule ${rule}, no retry with other terms, tell the user; nothing registered`, async () => {
    writePolicy(POLICY);
    const before = registered();
    const result = await call(tool, args());
    assert.equal(result.isError, true);
    assert.equal(toolErrorOf(result).code, 'policy_denied');
    assert.equal(toolErrorOf(result).rule, rule);
    // The readable reasons reach the agent as a field and in the text (issue 30 item 5).
    const reasons: string[] = toolErrorOf(result).reasons;
    assert.ok(Array.isArray(reasons) && reasons.length > 0, JSON.stringify(toolErrorOf(result)));
    const text: string = result.content[0].text;
    assert.ok(text.includes(`Why: ${reasons.join('; ')}`), text);
    assert.ok(text.includes(`rule ${rule}`), text);
    assert.match(text, /must not retry with other terms/);
    assert.match(text, /another merchant.*smaller or split amount.*longer TTL/);
    assert.match(text, /Tell the user/);
    assert.equal(registered(), before);
  });
}

test('within the policy the same tool works', async () => {
  writePolicy(POLICY);
  const result = await call('latch_authorize', { card_id: stack.cards[0].card_id, merchant_domain: 'shop.example.com', amount: '1.00' });
  assert.equal(result.isError, false, JSON.stringify(result));
});

test("a broken policy.json: a tool error saying the owner's policy file is broken at the field; nothing registered", async () => {
  writePolicy(JSON.stringify({ v: 1, budgets: [{ id: 'b', per: 'year', limit: '1.00', over: 'deny' }] }));
  const before = registered();
  const result = await call('latch_authorize', { card_id: stack.cards[0].card_id, merchant_domain: 'shop.example.com', amount: '1.00' });
  assert.equal(result.isError, true);
  assert.equal(toolErrorOf(result).code, 'policy_invalid');
  const text: string = result.content[0].text;
  assert.match(text, /owner's policy file \(policy\.json\) is broken at budgets\[0\]\.per/);
  assert.match(text, /Tell the user/);
  assert.equal(registered(), before);
});
