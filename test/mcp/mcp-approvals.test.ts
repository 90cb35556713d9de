/**
 * Human approval as an agent meets it through `latch mcp --agent` over stdio, against the real
 * daemon and sandbox with a policy.json whose rule asks: an ask is a normal result naming the
 * approval and telling the agent to wait, not to retry with other terms; latch_get_approval
 * reports the owner's decision (approved with the authorization; denied as a tool error with the
 * reason); an unknown id, or another agent's approval, is approval_not_found.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { addAgent } from '../../src/datadir/agents.js';
import { OUTPUT_SCHEMAS } from '../../src/mcp/output-schemas.js';
import { schemaErrors } from '../support/json-schema-check.js';
import { REPO_ROOT } from '../support/paths.js';
import { startStack, type Stack } from '../support/stack.js';
import { toolErrorOf } from '../support/mcp-result.js';

/** McpAgent is `latch mcp --agent NAME` as a child, with a tools/call function. */
class McpAgent {
  readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, (message: any) => void>();
  private ids = 1;

  constructor(agent: string, env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'mcp', '--agent', agent], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const message = JSON.parse(line);
      this.waiting.get(message.id)?.(message);
      this.waiting.delete(message.id);
    });
  }

  request(method: string, params: object): Promise<any> {
    const id = this.ids++;
    return new Promise<any>((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  async start(): Promise<void> {
    const init = await this.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'approvals-test', version: '1' } });
    assert.equal(init.result.protocolVersion, '2025-06-18');
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  }

  async call(name: string, args: object): Promise<any> {
    const response = await this.request('tools/call', { name, arguments: args });
    assert.ok(response.result, JSON.stringify(response.error));
    return response.result;
  }

  async stop(): Promise<void> {
    this.child.stdin.end();
    if (this.child.exitCode === null) await new Promise((resolve) => this.child.once('exit', resolve));
  }
}

const POLICY = { v: 1, default: 'allow', rules: [{ id: 'large', min_amount: '5.00', decision: 'ask' }] };

let stack: Stack;
let shopper: McpAgent;
let travel: McpAgent;
before(async () => {
  stack = await startStack();
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify(POLICY), { mode: 0o600 });
  addAgent(stack.home, 'shopper');
  addAgent(stack.home, 'travel');
  const env = { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` };
  shopper = new McpAgent('shopper', env);
  travel = new McpAgent('travel', env);
  await shopper.start();
  await travel.start();
});
after(async () => {
  await shopper.stop();
  await travel.stop();
  await stack.close();
});

const registered = () => stack.sandbox.state().authorizations.size;

/** asked makes the shopper's latch_authorize ask the owner and checks the result is no error. */
async function asked(amount: string, merchant: string): Promise<{ id: string; text: string }> {
  const before = registered();
  const result = await shopper.call('latch_authorize', { card_id: stack.cards[0].card_id, merchant_domain: merchant, amount });
  assert.equal(result.isError, false, JSON.stringify(result));
  const approval = result.structuredContent;
  assert.equal(approval.status, 'pending_approval');
  assert.match(approval.approval_id, /^ap_[a-z0-9]{24}$/);
  assert.equal(approval.agent, 'shopper');
  assert.equal(approval.request.amount, amount);
  assert.deepEqual(schemaErrors(OUTPUT_SCHEMAS.latch_authorize, approval), []);
  assert.equal(registered(), before, 'nothing reaches the cloud before the owner decides');
  return { id: approval.approval_id, text: result.content[0].text };
}

describe('an ask through MCP', () => {
  test('latch_authorize: a normal result saying the owner was asked, with the id, no retry with other terms, check back', async () => {
    const { id, text } = await asked('6.00', 'big.example.com');
    assert.match(text, /The owner has been asked to approve this request/);
    assert.ok(text.includes(`approval ${id}`), text);
    assert.match(text, /not an error/);
    assert.match(text, /Do not retry with other terms.*another merchant.*smaller or split amount.*another card/);
    assert.match(text, /latch_get_approval/);
  });

  test('latch_get_approval while pending says so and how to keep waiting', async () => {
    const { id } = await asked('6.00', 'wait.example.com');
    const result = await shopper.call('latch_get_approval', { approval_id: id });
    assert.equal(result.isError, false);
    assert.equal(result.structuredContent.status, 'pending_approval');
    assert.match(result.content[0].text, /wait_seconds/);
  });

  test('the owner approves over HTTP; latch_get_approval with wait_seconds reports approved with the authorization', async () => {
    const { id } = await asked('7.00', 'approved.example.com');
    const waiting = shopper.call('latch_get_approval', { approval_id: id, wait_seconds: 30 });
    const approved = await stack.a.post(`/approvals/${id}/approve`, {});
    assert.equal(approved.status, 200, approved.text);
    const result = await waiting;
    assert.equal(result.isError, false, JSON.stringify(result));
    const approval = result.structuredContent;
    assert.equal(approval.status, 'approved');
    assert.equal(approval.authorization.policy_id, approved.body.authorization.policy_id);
    assert.equal(approval.authorization.amount, '7.00');
    assert.equal(approval.authorization.merchant_name, 'approved.example.com');
    assert.ok(result.content[0].text.includes(`authorization ${approval.authorization.policy_id}`), result.content[0].text);
    assert.deepEqual(schemaErrors(OUTPUT_SCHEMAS.latch_get_approval, approval), []);
  });

  test('a denied approval is a tool error approval_denied with the owner\'s reason and no retry', async () => {
    const { id } = await asked('8.00', 'denied.example.com');
    const denied = await stack.a.post(`/approvals/${id}/deny`, { reason: 'not this shop' });
    assert.equal(denied.status, 200, denied.text);
    const result = await shopper.call('latch_get_approval', { approval_id: id, wait_seconds: 0 });
    assert.equal(result.isError, true);
    assert.equal(toolErrorOf(result).code, 'approval_denied');
    // The owner's reason and the policy's reasons are fields of the error object, not only words (issue 30 item 5).
    assert.equal(toolErrorOf(result).reason, 'not this shop');
    assert.ok(Array.isArray(toolErrorOf(result).reasons) && toolErrorOf(result).reasons.length > 0, JSON.stringify(toolErrorOf(result)));
    const text: string = result.content[0].text;
    assert.ok(text.includes('"not this shop"'), text);
    assert.match(text, /Do not retry with other terms/);
    assert.match(text, /Tell the user/);
  });

  test('an unknown approval id is a tool error approval_not_found', async () => {
    const result = await shopper.call('latch_get_approval', { approval_id: 'ap_000000000000000000000000' });
    assert.equal(result.isError, true);
    assert.equal(toolErrorOf(result).code, 'approval_not_found');
  });

  test("another agent's MCP cannot see the shopper's approval", async () => {
    const { id } = await asked('6.00', 'private.example.com');
    const result = await travel.call('latch_get_approval', { approval_id: id });
    assert.equal(result.isError, true);
    assert.equal(toolErrorOf(result).code, 'approval_not_found');
    assert.ok(!JSON.stringify(result).includes('private.example.com'));
  });

  test('a wait over 60 seconds is refused by the tool before any request', async () => {
    const result = await shopper.call('latch_get_approval', { approval_id: 'ap_000000000000000000000000', wait_seconds: 61 });
    assert.equal(result.isError, true);
    assert.equal(toolErrorOf(result).code, 'invalid_request');
    assert.equal(toolErrorOf(result).param, 'wait_seconds');
  });
});
