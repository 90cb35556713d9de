/**
 * Revoking as an agent, through MCP (the official SDK client over stdio) and the CLI, against the
 * real daemon and sandbox. Revocation used to be the owner-only primitive (/sign-revocation) plus
 * the owner-only /v1 proxy: an agent got 403 agent_not_permitted, and the budget an authorization
 * held stayed reserved until something listed authorizations. Now every revocation is
 * POST /authorizations/:policy_id/cancel (docs/decisions.md §18.2): an agent revokes its own, the
 * budget is free at once, and another's stays out of its reach.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { addAgent } from '../../src/datadir/agents.js';
import { readAudit } from '../../src/verify/audit-read.js';
import { toolErrorOf } from '../support/mcp-result.js';
import { REPO_ROOT } from '../support/paths.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let env: Record<string, string>;
before(async () => {
  stack = await startStack();
  addAgent(stack.home, 'shopper');
  addAgent(stack.home, 'other');
  env = { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` };
  // A budget the agent fills with one authorization: only a released reservation lets a second one through.
  const policy = { v: 1, rules: [], budgets: [{ id: 'shopper-daily', agents: ['shopper'], per: 'day', limit: '5.00', over: 'deny' }] };
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify(policy), { mode: 0o600 });
});
after(async () => {
  await stack.close();
});

/** agentClient connects the official SDK client to `latch mcp --agent NAME` and lists the tools. */
async function agentClient(name: string): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp', '--agent', name], cwd: REPO_ROOT, env, stderr: 'pipe' });
  const client = new Client({ name: 'attacker', version: '1' });
  await client.connect(transport);
  await client.listTools();
  return client;
}

const card = () => stack.cards[0].card_id;

test('an agent revokes its own authorization through MCP latch_revoke, and its budget is free again at once', async (t) => {
  const mcp = await agentClient('shopper');
  t.after(() => mcp.close());
  const first: any = await mcp.callTool({ name: 'latch_authorize', arguments: { card_id: card(), merchant_domain: 'shop.example.com', amount: '5.00' } });
  assert.equal(first.isError, false, JSON.stringify(first.content));
  const full: any = await mcp.callTool({ name: 'latch_authorize', arguments: { card_id: card(), merchant_domain: 'shop.example.com', amount: '5.00' } });
  assert.equal(toolErrorOf(full).code, 'policy_denied', 'the budget is full');

  const revoked: any = await mcp.callTool({ name: 'latch_revoke', arguments: { policy_id: first.structuredContent.policy_id, reason: 'user cancelled' } });
  assert.equal(revoked.isError, false, JSON.stringify(revoked.content));
  assert.equal(revoked.structuredContent.status, 'revoked');
  assert.equal(stack.sandbox.state().authorizations.get(first.structuredContent.policy_id)?.status, 'revoked', 'the cloud has it revoked');

  // Nothing lists authorizations in between: the cancel itself gave the reservation back.
  const again: any = await mcp.callTool({ name: 'latch_authorize', arguments: { card_id: card(), merchant_domain: 'shop.example.com', amount: '5.00' } });
  assert.equal(again.isError, false, `the budget is free after the revocation: ${JSON.stringify(again.content)}`);
  await mcp.callTool({ name: 'latch_revoke', arguments: { policy_id: again.structuredContent.policy_id } });

  const lines = readAudit(stack.home, { limit: 500 }).filter((line) => line.policy_id === first.structuredContent.policy_id && line.operation === 'sign_revocation');
  assert.equal(lines.length, 1, 'one revocation signed');
  assert.equal(lines[0]?.agent, 'shopper', 'audited as the agent');
});

test("an agent cannot revoke another agent's or the owner's authorization, through MCP or the CLI", async (t) => {
  const other = await agentClient('other');
  t.after(() => other.close());
  const theirs: any = await other.callTool({ name: 'latch_authorize', arguments: { card_id: card(), merchant_domain: 'other.example.com', amount: '1.00' } });
  assert.equal(theirs.isError, false, JSON.stringify(theirs.content));
  const owners = await stack.a.post('/authorize', { card_id: card(), merchant_name: 'owner.example.com', amount: '1.00' }, { 'idempotency-key': 'mcp-revoke-owner' });
  assert.equal(owners.status, 200, owners.text);

  const mcp = await agentClient('shopper');
  t.after(() => mcp.close());
  for (const policyId of [theirs.structuredContent.policy_id, owners.body.policy_id]) {
    const refused: any = await mcp.callTool({ name: 'latch_revoke', arguments: { policy_id: policyId } });
    assert.equal(toolErrorOf(refused).code, 'authorization_not_found', 'another\'s authorization is not found, so ids do not leak');
    const cli = await runLatch(['revoke', policyId], { ...env, LATCH_AGENT: 'shopper' });
    assert.equal(cli.code, 7, cli.stderr);
    assert.match(cli.stderr, /authorization_not_found/);
    assert.equal(stack.sandbox.state().authorizations.get(policyId)?.status, 'active', 'it is still active');
  }
});

test('latch revoke as an agent works on its own authorization (it used to be 403 agent_not_permitted)', async () => {
  const made = await runLatch(['authorize', '--card', card(), '--merchant', 'cli.example.com', '--amount', '1.00', '--json'], { ...env, LATCH_AGENT: 'shopper' });
  assert.equal(made.code, 0, made.stderr);
  const policyId = JSON.parse(made.stdout).policy_id as string;
  const run = await runLatch(['revoke', policyId, '--json'], { ...env, LATCH_AGENT: 'shopper' });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout).status, 'revoked');
  assert.equal(JSON.parse(run.stdout).agent, 'shopper');
});
