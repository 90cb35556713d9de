/**
 * Approvals where the person already is (shared/spec/mcp-approvals.md): the official MCP SDK
 * client over `latch mcp` on stdio, against the real daemon, sandbox and console on ephemeral
 * ports. A client with URL-mode elicitation is asked once to open the console's page for the
 * approval (a URL with no secret), the call waits for the owner's decision taken from another
 * process, and notifications/elicitation/complete follows; decline, a client without URL mode, and
 * a wait that runs out each return the pending approval as before.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitationCompleteNotificationSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { addAgent } from '../../src/datadir/agents.js';
import { toolSuccessResult } from '../../src/mcp/tool-results.js';
import { toolErrorOf } from '../support/mcp-result.js';
import { REPO_ROOT } from '../support/paths.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitUntil } from '../support/wait.js';

type Action = 'accept' | 'decline' | 'cancel';

/** A connected SDK client that records the elicitations it is sent and the completions it hears. */
interface Connected {
  client: Client;
  elicitations: Array<Record<string, any>>;
  completed: string[];
  close(): Promise<void>;
}

/** connect starts `latch mcp --agent shopper` with the given elicitation capability and answer. */
async function connect(env: Record<string, string>, elicitation: Record<string, object> | undefined, onElicit: (params: Record<string, any>) => Action | Promise<Action> = () => 'accept'): Promise<Connected> {
  const transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp', '--agent', 'shopper'], cwd: REPO_ROOT, env, stderr: 'pipe' });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: 'url-elicitation-test', version: '1.0.0' }, { capabilities: elicitation === undefined ? {} : { elicitation } });
  const elicitations: Array<Record<string, any>> = [];
  const completed: string[] = [];
  if (elicitation !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitations.push(request.params as Record<string, any>);
      return { action: await onElicit(request.params as Record<string, any>) };
    });
  }
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => void completed.push(notification.params.elicitationId));
  await client.connect(transport);
  await client.listTools();
  return { client, elicitations, completed, close: () => client.close() };
}

let stack: Stack;
let env: Record<string, string>;
const CONFIG = () => path.join(stack.home, 'config.json');

/** setConfig merges settings into config.json, which `latch mcp` reads when it starts. */
function setConfig(settings: Record<string, unknown>): void {
  writeFileSync(CONFIG(), JSON.stringify({ ...JSON.parse(readFileSync(CONFIG(), 'utf8')), ...settings }), { mode: 0o600 });
}

before(async () => {
  stack = await startStack({ console: true });
  addAgent(stack.home, 'shopper');
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify({ v: 1, rules: [{ id: 'ask-here', merchants: ['ask.example.com'], decision: 'ask' }] }), { mode: 0o600 });
  setConfig({ console_port: stack.portConsole, mcp_approval_wait_seconds: 50 });
  env = { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` };
});
after(async () => {
  await stack.close();
});

const askArgs = (amount: string) => ({ card_id: stack.cards[0].card_id, merchant_domain: 'ask.example.com', amount });
const approvalIdIn = (url: string): string => decodeURIComponent(url.split('/').at(-1) as string);

/** latch runs the CLI in a child process: the owner deciding from another process than `latch mcp`. */
function latch(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, timeout: 30_000 }, (error, stdout, stderr) => (error ? reject(new Error(`latch ${args.join(' ')}: ${stderr}`)) : resolve(stdout)));
  });
}

describe('MCP URL-mode elicitation to the console', () => {
  test('accept: one question naming the console page and the exact terms, no secret; approved from the CLI, the open call returns the authorization; complete follows', async (t) => {
    const mcp = await connect(env, { url: {} });
    t.after(() => mcp.close());
    const call = mcp.client.callTool({ name: 'latch_authorize', arguments: askArgs('4.25') }, undefined, { timeout: 120_000 });
    const asked = await waitUntil(() => mcp.elicitations[0], 'the client is asked to open the console');
    assert.equal(asked.mode, 'url');
    const approvalId = approvalIdIn(asked.url);
    assert.match(approvalId, /^ap_[A-Za-z0-9_-]+$/);
    assert.equal(asked.url, `http://localhost:${stack.portConsole}/approvals/${approvalId}`, 'the console origin and the approval, nothing else');
    assert.equal(asked.elicitationId, `latch-approval-${approvalId}`, 'derived from the approval id');
    for (const secret of [stack.token(), readFileSync(path.join(stack.home, 'agents', 'shopper.token'), 'utf8').trim()]) assert.ok(!asked.url.includes(secret) && !asked.message.includes(secret));
    assert.match(asked.message, /shopper asks for exactly 4\.25 USD at ask\.example\.com on Groceries/);
    assert.match(asked.message, /one-time, rule ask-here/);
    // The owner decides from another process; the tool call was open all along.
    assert.match(await latch(['approve', approvalId, '--yes']), /approved/i);
    const result: any = await call;
    assert.equal(result.isError, false, JSON.stringify(result.content));
    assert.match(result.structuredContent.policy_id, /^pw_/, 'the authorization, as an allowed request returns it');
    assert.equal(result.structuredContent.amount, '4.25');
    await waitUntil(() => mcp.completed.includes(asked.elicitationId), 'notifications/elicitation/complete for the same id');
    assert.equal(mcp.elicitations.length, 1, 'one question');
  });

  test('accept, then the owner denies: the open call returns the tool error, and complete follows', async (t) => {
    const mcp = await connect(env, { url: {} });
    t.after(() => mcp.close());
    const call = mcp.client.callTool({ name: 'latch_authorize', arguments: askArgs('5.50') }, undefined, { timeout: 120_000 });
    const asked = await waitUntil(() => mcp.elicitations[0], 'the client is asked');
    const denied = await stack.a.post(`/approvals/${approvalIdIn(asked.url)}/deny`, { reason: 'not this week' });
    assert.equal(denied.status, 200, denied.text);
    const error = toolErrorOf(await call);
    assert.equal(error.code, 'approval_denied');
    assert.match(String(error.message), /not this week/);
    await waitUntil(() => mcp.completed.includes(asked.elicitationId), 'complete after the denial');
  });

  test('an AP2 mandate request approved through the console returns the mandates, as an allowed one does', async (t) => {
    const mcp = await connect(env, { url: {} });
    t.after(() => mcp.close());
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    const call = mcp.client.callTool({
      name: 'latch_ap2_mandate',
      arguments: {
        card_id: stack.cards[0].card_id,
        merchant: { name: 'Ask Shop', website: 'https://ask.example.com' },
        amount_max: '3.00',
        items: [{ id: 'sku-1', title: 'Blue mug' }],
        agent_key: { kty: 'EC', crv: 'P-256', x: key.x, y: key.y },
      },
    }, undefined, { timeout: 120_000 });
    const asked = await waitUntil(() => mcp.elicitations[0], 'the client is asked about the mandate');
    assert.match(asked.message, /AP2 mandate/);
    assert.equal((await stack.a.post(`/approvals/${approvalIdIn(asked.url)}/approve`, {})).status, 200);
    const result: any = await call;
    assert.equal(result.isError, false, JSON.stringify(result.content));
    assert.match(result.structuredContent.mandate_id, /^md_/);
    assert.ok(String(result.structuredContent.open_payment_mandate).endsWith('~'));
  });

  test('a call with a progressToken hears progress while it waits', async (t) => {
    const mcp = await connect(env, { url: {} });
    t.after(() => mcp.close());
    const progress: number[] = [];
    const call = mcp.client.callTool({ name: 'latch_authorize', arguments: askArgs('3.10') }, undefined, { timeout: 120_000, onprogress: (update) => void progress.push(update.progress) });
    const asked = await waitUntil(() => mcp.elicitations[0], 'the client is asked');
    await waitUntil(() => progress.length > 0, 'notifications/progress while the call waits');
    assert.equal((await stack.a.post(`/approvals/${approvalIdIn(asked.url)}/approve`, {})).status, 200);
    assert.match(((await call) as any).structuredContent.policy_id, /^pw_/);
  });

  test('decline and cancel: the pending approval at once, exactly as today', async (t) => {
    for (const action of ['decline', 'cancel'] as const) {
      const mcp = await connect(env, { url: {} }, () => action);
      t.after(() => mcp.close());
      const result: any = await mcp.client.callTool({ name: 'latch_authorize', arguments: askArgs('6.00') });
      assert.equal(result.structuredContent.status, 'pending_approval', action);
      assert.deepEqual(result, toolSuccessResult(result.structuredContent, true), `${action}: today's result, byte for byte`);
      assert.equal(mcp.elicitations.length, 1);
    }
  });

  test('a client without URL mode (form only, or no elicitation) is never asked and gets today\'s result', async (t) => {
    for (const capability of [{}, { form: {} }, undefined] as Array<Record<string, object> | undefined>) {
      const mcp = await connect(env, capability, () => assert.fail('a client without URL mode was asked'));
      t.after(() => mcp.close());
      const result: any = await mcp.client.callTool({ name: 'latch_authorize', arguments: askArgs('7.00') });
      assert.equal(result.structuredContent.status, 'pending_approval');
      assert.deepEqual(result, toolSuccessResult(result.structuredContent, true), JSON.stringify(capability));
      assert.equal(mcp.elicitations.length, 0);
    }
  });

  test('the wait runs out: the pending approval; the decision made later still sends complete', async (t) => {
    setConfig({ mcp_approval_wait_seconds: 1 });
    t.after(() => setConfig({ mcp_approval_wait_seconds: 50 }));
    const mcp = await connect(env, { url: {} });
    t.after(() => mcp.close());
    const result: any = await mcp.client.callTool({ name: 'latch_authorize', arguments: askArgs('8.00') });
    assert.equal(result.structuredContent.status, 'pending_approval');
    const asked = mcp.elicitations[0] as Record<string, any>;
    assert.equal(result.structuredContent.approval_id, approvalIdIn(asked.url));
    assert.equal(mcp.completed.length, 0);
    assert.equal((await stack.a.post(`/approvals/${result.structuredContent.approval_id}/approve`, {})).status, 200);
    await waitUntil(() => mcp.completed.includes(asked.elicitationId), 'complete after a decision made once the call had returned');
  });
});
