/**
 * Every MCP tool through the official MCP TypeScript SDK client (@modelcontextprotocol/sdk), over
 * stdio with `latch mcp` as a child process, against the real daemon and sandbox on ephemeral
 * ports: success and error paths, as the owner and as an agent.
 *
 * The client lists the tools first, as every real client does: from then on the SDK checks each
 * result's structuredContent against the tool's outputSchema and rejects the call (-32602) when it
 * does not match. A tool error that carried `structuredContent: {error}` failed here, so every
 * error path below runs after the listing (docs/decisions.md §18.1).
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { addAgent } from '../../src/datadir/agents.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { toolErrorOf } from '../support/mcp-result.js';
import { REPO_ROOT } from '../support/paths.js';
import { startStack, type Stack } from '../support/stack.js';

/** A connected SDK client with the child's stderr collected. */
interface Connected {
  client: Client;
  stderr(): string;
  close(): Promise<void>;
}

/** connect starts `latch mcp` (as `agent` when given) through the SDK's stdio transport and lists the tools. */
async function connect(env: Record<string, string>, agent?: string): Promise<Connected & { tools: Array<{ name: string; outputSchema?: object }> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp', ...(agent === undefined ? [] : ['--agent', agent])],
    cwd: REPO_ROOT,
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'sdk-test', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  return { client, tools, stderr: () => stderr, close: () => client.close() };
}

/** call runs a tool and returns its result; a rejection by the SDK fails the test with its message. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  return client.callTool({ name, arguments: args });
}

/** ok asserts a successful result with structuredContent and returns it. */
function ok(result: any, name: string): any {
  assert.equal(result.isError, false, `${name}: ${JSON.stringify(result.content)}`);
  assert.equal(typeof result.structuredContent, 'object', `${name} returns structuredContent`);
  return result.structuredContent;
}

/** latch_ap2_mandate's arguments: nested objects and arrays, checked against the schema built from the daemon's rules. */
const AP2_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
const AP2_ARGS = (cardId: string) => ({
  card_id: cardId,
  merchant: { name: 'Example Shop', website: 'https://shop.example' },
  amount_max: '3.00',
  items: [{ id: 'sku-1', title: 'Blue mug', quantity: 1, alternatives: [{ id: 'sku-2', title: 'Red mug' }] }],
  agent_key: { kty: 'EC', crv: 'P-256', x: AP2_KEY.x, y: AP2_KEY.y },
});

/** latch_x402_authorize's arguments: x402's ResourceInfo and one PaymentRequirements (Base Sepolia USDC counts by default). */
const X402_ARGS = { x402_version: 2, resource: { url: 'https://api.example.com/premium-data', description: 'Market data' }, requirements: { scheme: 'exact', network: 'eip155:84532', amount: '10000', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C', maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' } } };

let stack: Stack;
let env: Record<string, string>;
before(async () => {
  stack = await startStack();
  addAgent(stack.home, 'shopper');
  env = { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` };
});
after(async () => {
  await stack.close();
});

describe('the official MCP SDK client', () => {
  test('as the owner: every tool succeeds, and every tool\'s refusal reaches the agent with its code and remedy', async (t) => {
    const mcp = await connect(env);
    t.after(() => mcp.close());
    const groceries = stack.cards[0].card_id;
    const subscriptions = stack.cards[1].card_id;
    assert.deepEqual(mcp.tools.map((tool) => tool.name), TOOLS.map((tool) => tool.name), 'the owner is offered every tool');
    for (const tool of mcp.tools) assert.equal(typeof tool.outputSchema, 'object', `${tool.name} has an outputSchema`);

    const used = new Set<string>();
    const success = async (name: string, args: Record<string, unknown> = {}): Promise<any> => {
      used.add(name);
      return ok(await call(mcp.client, name, args), name);
    };
    assert.equal((await success('latch_health')).status, 'ok');
    assert.equal((await success('latch_list_cards')).cards.length, 2);
    assert.equal((await success('latch_get_card', { card_id: groceries })).daily_limit, '500.00');
    const authorization = await success('latch_authorize', { card_id: groceries, merchant_domain: 'shop.example.com', amount: 12.5, ttl_minutes: 10 });
    assert.equal(authorization.amount, '12.50');
    assert.equal((await success('latch_get_transaction', { tx_id: authorization.transaction_id })).policy_window.policy_id, authorization.policy_id);
    const revoked = await success('latch_revoke', { policy_id: authorization.policy_id, reason: 'user asked' });
    assert.equal(revoked.status, 'revoked');
    assert.equal(revoked.agent, 'owner');
    assert.deepEqual(await success('latch_revoke', { policy_id: authorization.policy_id }), revoked, 'revoking again returns it as it is');
    const listed = await success('latch_list_transactions', { limit: 5, status: 'revoked' });
    assert.ok(listed.transactions.some((tx: { id: string }) => tx.id === authorization.transaction_id));
    assert.match((await success('latch_wallet_balance')).available, /^\d+\.\d{2}$/);
    assert.equal((await success('latch_allocate', { card_id: subscriptions, amount: '2.00' })).allocated, '2.00');
    assert.equal((await success('latch_merchant_bind', { card_id: subscriptions, merchant_domain: 'verify.example.com' })).kind, 'merchant_verification');
    assert.equal((await success('latch_recurring', { card_id: subscriptions, merchant_domain: 'video.example.com', amount: '9.99', interval: 'month' })).kind, 'recurring');
    assert.match((await success('latch_sign_web_request', { method: 'GET', url: 'https://shop.example.com/products?id=1' })).headers['signature-input'], /tag="web-bot-auth"/);
    const mandates = await success('latch_ap2_mandate', AP2_ARGS(groceries));
    const x402 = await success('latch_x402_authorize', X402_ARGS);
    assert.match(x402.authorization_id, /^xa_/);
    assert.equal(x402.amount, '0.01');
    assert.match(mandates.mandate_id, /^md_/);
    assert.ok(mandates.open_payment_mandate.endsWith('~'));

    const policyFile = path.join(stack.home, 'policy.json');
    writeFileSync(policyFile, JSON.stringify({ v: 1, rules: [{ id: 'ask-here', merchants: ['ask.example.com'], decision: 'ask' }, { id: 'no-casino', merchants: ['casino.example.com'], decision: 'deny' }] }), { mode: 0o600 });
    t.after(() => rmSync(policyFile, { force: true }));
    const pending = await success('latch_authorize', { card_id: groceries, merchant_domain: 'ask.example.com', amount: '1.00' });
    assert.equal(pending.status, 'pending_approval');
    assert.equal((await success('latch_get_approval', { approval_id: pending.approval_id })).status, 'pending_approval');
    assert.deepEqual(used, new Set(TOOLS.map((tool) => tool.name)), 'every tool succeeded once');

    // A used authorization cannot be revoked: charge one, then try.
    const spent = await success('latch_authorize', { card_id: groceries, merchant_domain: 'spent.example.com', amount: '1.00' });
    assert.equal((await stack.charge(groceries, 'spent.example.com', '1.00')).status, 200);

    const refusals: Array<[string, Record<string, unknown>, string, string?]> = [
      ['latch_get_card', { card_id: 'card_doesnotexist000000000' }, 'card_not_found'],
      ['latch_authorize', { card_id: groceries, merchant_domain: 'shop.example.com', amount: '9999.00' }, 'insufficient_funds'],
      ['latch_authorize', { card_id: groceries, merchant_domain: 'casino.example.com', amount: '1.00' }, 'policy_denied'],
      ['latch_authorize', { card_id: groceries, merchant_domain: 'shop.example.com', amount: '1.00', reference: 'card 4111 1111 1111 1111' }, 'card_data_not_accepted'],
      ['latch_merchant_bind', { card_id: groceries, merchant_domain: 'https://shop.example.com' }, 'invalid_request', 'merchant_domain'],
      ['latch_recurring', { card_id: 'card_doesnotexist000000000', merchant_domain: 'video.example.com', amount: '1.00', interval: 'month' }, 'card_not_found'],
      ['latch_get_approval', { approval_id: 'ap_doesnotexist00000000000' }, 'approval_not_found'],
      ['latch_revoke', { policy_id: 'pw_doesnotexist00000000000' }, 'authorization_not_found'],
      ['latch_revoke', { policy_id: spent.policy_id }, 'authorization_not_active'],
      ['latch_allocate', { card_id: subscriptions, amount: '100000.00' }, 'insufficient_funds'],
      ['latch_list_transactions', { status: 'lost' }, 'invalid_request', 'status'],
      ['latch_get_transaction', { tx_id: 'tx_doesnotexist00000000000' }, 'transaction_not_found'],
      ['latch_sign_web_request', { method: 'GET', url: 'http://shop.example.com/' }, 'invalid_request'],
    ];
    for (const [name, args, code, param] of refusals) {
      const result = await call(mcp.client, name, args);
      const error = toolErrorOf(result);
      assert.equal(error.code, code, `${name} ${JSON.stringify(args)}: ${result.content[0].text}`);
      if (param !== undefined) assert.equal(error.param, param, name);
      assert.match(result.content[0].text, new RegExp(`^Error ${code} \\(`), name);
      assert.match(result.content[0].text, /\nRemedy: \S/, `${name} tells the agent what to do`);
      assert.equal(error.remedy.length > 0, true, name);
    }
    assert.ok(!mcp.stderr().includes(stack.token()), 'the token appears nowhere');
  });

  test('as an agent: the tools it may use all work, latch_revoke included, and the owner-only tool is not offered', async (t) => {
    const mcp = await connect(env, 'shopper');
    t.after(() => mcp.close());
    const card = stack.cards[0].card_id;
    const offered = mcp.tools.map((tool) => tool.name);
    assert.deepEqual(offered, TOOLS.filter((tool) => tool.access === 'agents').map((tool) => tool.name));
    assert.ok(!offered.includes('latch_allocate'), 'wallet allocation is the owner\'s');

    assert.equal(ok(await call(mcp.client, 'latch_health'), 'latch_health').status, 'ok');
    assert.equal(ok(await call(mcp.client, 'latch_list_cards'), 'latch_list_cards').cards.length, 2);
    assert.equal(ok(await call(mcp.client, 'latch_get_card', { card_id: card }), 'latch_get_card').card_id, card);
    ok(await call(mcp.client, 'latch_wallet_balance'), 'latch_wallet_balance');
    const mine = ok(await call(mcp.client, 'latch_authorize', { card_id: card, merchant_domain: 'agent.example.com', amount: '2.00' }), 'latch_authorize');
    ok(await call(mcp.client, 'latch_get_transaction', { tx_id: mine.transaction_id }), 'latch_get_transaction');
    ok(await call(mcp.client, 'latch_list_transactions', { limit: 3 }), 'latch_list_transactions');
    const revoked = ok(await call(mcp.client, 'latch_revoke', { policy_id: mine.policy_id }), 'latch_revoke');
    assert.equal(revoked.status, 'revoked');
    assert.equal(revoked.agent, 'shopper');
    assert.equal(ok(await call(mcp.client, 'latch_merchant_bind', { card_id: card, merchant_domain: 'verify2.example.com' }), 'latch_merchant_bind').kind, 'merchant_verification');
    assert.equal(ok(await call(mcp.client, 'latch_recurring', { card_id: card, merchant_domain: 'news.example.com', amount: '1.00', interval: 'month' }), 'latch_recurring').kind, 'recurring');
    ok(await call(mcp.client, 'latch_sign_web_request', { method: 'GET', url: 'https://shop.example.com/' }), 'latch_sign_web_request');

    // The owner's authorization is not the agent's to revoke, nor even to see.
    const owners = await stack.a.post('/authorize', { card_id: card, merchant_name: 'owner.example.com', amount: '1.00' }, { 'idempotency-key': 'owner-auth-for-agent-test' });
    assert.equal(owners.status, 200, owners.text);
    assert.equal(toolErrorOf(await call(mcp.client, 'latch_revoke', { policy_id: owners.body.policy_id })).code, 'authorization_not_found');
    assert.equal(toolErrorOf(await call(mcp.client, 'latch_get_approval', { approval_id: 'ap_doesnotexist00000000000' })).code, 'approval_not_found');

    // A tool not offered is an unknown tool: the SDK rejects the call with the JSON-RPC error.
    await assert.rejects(call(mcp.client, 'latch_allocate', { card_id: card, amount: '1.00' }), (error: Error & { code?: number }) => error.code === -32602);
    assert.ok(!mcp.stderr().includes(stack.token()), 'the owner\'s token appears nowhere');
  });

  test('with no daemon, every tool answers daemon_unreachable as a tool error the SDK passes on', async (t) => {
    const mcp = await connect({ LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${await closedPort()}` });
    t.after(() => mcp.close());
    const card = stack.cards[0].card_id;
    const args: Record<string, Record<string, unknown>> = {
      latch_get_card: { card_id: card },
      latch_authorize: { card_id: card, merchant_domain: 'shop.example.com', amount: '1.00' },
      latch_merchant_bind: { card_id: card, merchant_domain: 'shop.example.com' },
      latch_recurring: { card_id: card, merchant_domain: 'shop.example.com', amount: '1.00', interval: 'month' },
      latch_get_approval: { approval_id: 'ap_doesnotexist00000000000' },
      latch_revoke: { policy_id: 'pw_doesnotexist00000000000' },
      latch_allocate: { card_id: card, amount: '1.00' },
      latch_get_transaction: { tx_id: 'tx_doesnotexist00000000000' },
      latch_sign_web_request: { method: 'GET', url: 'https://shop.example.com/' },
      latch_ap2_mandate: AP2_ARGS(card),
      latch_x402_authorize: X402_ARGS,
    };
    for (const tool of TOOLS) {
      const result = await call(mcp.client, tool.name, args[tool.name] ?? {});
      assert.equal(toolErrorOf(result).code, 'daemon_unreachable', tool.name);
      assert.match(result.content[0].text, /^Error daemon_unreachable \(Local daemon unavailable\)/, tool.name);
    }
  });
});

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
