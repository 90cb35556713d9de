/**
 * `latch mcp` as a child process, driven over stdio line by line, against the real daemon and
 * sandbox: what the official SDK client (mcp-sdk-client.test.ts) never sends — requests before
 * initialize, malformed lines, old protocol revisions — and what stdout and stderr carry.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { readAudit } from '../../src/verify/audit-read.js';
import type { OutputSchema } from '../../src/mcp/output-schemas.js';
import { toolsFor } from '../../src/mcp/tools.js';
import { REPO_ROOT } from '../support/paths.js';
import { schemaErrors } from '../support/json-schema-check.js';
import { startStack, type Stack } from '../support/stack.js';
import { toolErrorOf } from '../support/mcp-result.js';

/** McpChild is a minimal MCP client over a child's stdin and stdout. */
class McpChild {
  readonly child: ChildProcessWithoutNullStreams;
  readonly stdoutLines: string[] = [];
  stderr = '';
  private readonly waiting = new Map<string, (message: any) => void>();
  readonly exited: Promise<number | null>;

  constructor(env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'mcp'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      this.stdoutLines.push(line);
      const message = JSON.parse(line);
      const key = JSON.stringify(message.id);
      this.waiting.get(key)?.(message);
      this.waiting.delete(key);
    });
  }

  /** send writes one raw line. */
  send(line: string | object): void {
    this.child.stdin.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
  }

  /** request sends a request and resolves with its response. */
  request(id: number | string | null, method: string, params?: object): Promise<any> {
    const answer = this.answer(id);
    this.send({ jsonrpc: '2.0', id, method, ...(params !== undefined && { params }) });
    return answer;
  }

  /** answer resolves with the next response carrying this id. */
  answer(id: number | string | null): Promise<any> {
    return new Promise((resolve) => this.waiting.set(JSON.stringify(id), resolve));
  }

  /** Every tool result so far, with the tool's name, so a test can check them against outputSchema. */
  readonly results: Array<[string, any]> = [];

  /** tool calls a tool and returns its result. */
  async tool(id: number, name: string, args: object = {}): Promise<any> {
    const response = await this.request(id, 'tools/call', { name, arguments: args });
    assert.ok(response.result, `${name}: ${JSON.stringify(response.error)}`);
    this.results.push([name, response.result]);
    return response.result;
  }

  async close(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }
}

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack.close();
});

describe('latch mcp over stdio', () => {
  test('the lifecycle, every tool, a decline, an unknown tool, malformed JSON, and a clean exit', async () => {
    const mcp = new McpChild({ LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` });
    const groceries = stack.cards[0].card_id;
    const subscriptions = stack.cards[1].card_id;

    const early = await mcp.request('early', 'tools/list');
    assert.equal(early.error.code, -32600, 'a request before initialize is refused');

    const init = await mcp.request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test-client', version: '1.0' } });
    assert.equal(init.result.protocolVersion, '2025-06-18');
    assert.equal(init.result.serverInfo.name, 'latch');
    assert.ok(init.result.capabilities.tools);
    mcp.send({ jsonrpc: '2.0', method: 'notifications/initialized' });

    const listed = await mcp.request(2, 'tools/list', {});
    // The owner's tools, latch_ap2_mandate among them: derived, not counted by hand.
    assert.deepEqual(listed.result.tools.map((tool: { name: string }) => tool.name), toolsFor('owner').map((tool) => tool.name));

    const health = await mcp.tool(3, 'latch_health');
    assert.equal(health.isError, false);
    assert.equal(health.structuredContent.status, 'ok');

    const cards = await mcp.tool(4, 'latch_list_cards');
    assert.equal(cards.structuredContent.cards.length, 2);
    assert.equal((await mcp.tool(5, 'latch_get_card', { card_id: groceries })).structuredContent.daily_limit, '500.00');

    const authorized = await mcp.tool(6, 'latch_authorize', { card_id: groceries, merchant_domain: 'shop.example.com', amount: 12.5, ttl_minutes: 10 });
    assert.equal(authorized.isError, false);
    const authorization = authorized.structuredContent;
    assert.equal(authorization.amount, '12.50');
    assert.equal(authorization.merchant_name, 'shop.example.com');
    assert.equal(authorization.status, 'active');

    const declined = await mcp.tool(7, 'latch_authorize', { card_id: groceries, merchant_domain: 'shop.example.com', amount: '9999.00' });
    assert.equal(declined.isError, true);
    assert.equal(toolErrorOf(declined).code, 'insufficient_funds');
    assert.match(declined.content[0].text, /Remedy: Check the wallet balance/);

    const transaction = await mcp.tool(8, 'latch_get_transaction', { tx_id: authorization.transaction_id });
    assert.equal(transaction.structuredContent.policy_window.policy_id, authorization.policy_id);
    const cancelled = await mcp.tool(9, 'latch_revoke', { policy_id: authorization.policy_id, reason: 'user asked' });
    assert.equal(cancelled.structuredContent.status, 'revoked');
    const again = await mcp.tool(91, 'latch_revoke', { policy_id: authorization.policy_id });
    assert.equal(again.isError, false, 'latch_revoke is idempotent, as its idempotentHint says');
    assert.deepEqual(again.structuredContent, cancelled.structuredContent);
    const hint = listed.result.tools.find((tool: { name: string }) => tool.name === 'latch_revoke').annotations;
    assert.equal(hint.idempotentHint, true);
    const listedTx = await mcp.tool(10, 'latch_list_transactions', { limit: 5, status: 'revoked' });
    assert.ok(listedTx.structuredContent.transactions.some((t: { id: string }) => t.id === authorization.transaction_id));

    assert.match((await mcp.tool(11, 'latch_wallet_balance')).structuredContent.available, /^\d+\.\d{2}$/);
    assert.equal((await mcp.tool(12, 'latch_allocate', { card_id: subscriptions, amount: '2.00' })).structuredContent.allocated, '2.00');
    assert.equal((await mcp.tool(13, 'latch_merchant_bind', { card_id: subscriptions, merchant_domain: 'verify.example.com' })).structuredContent.kind, 'merchant_verification');
    assert.equal((await mcp.tool(14, 'latch_recurring', { card_id: subscriptions, merchant_domain: 'video.example.com', amount: '9.99', interval: 'month' })).structuredContent.kind, 'recurring');

    const webSigned = await mcp.tool(15, 'latch_sign_web_request', { method: 'GET', url: 'https://shop.example.com/products?id=1' });
    assert.equal(webSigned.isError, false, JSON.stringify(webSigned));
    assert.match(webSigned.structuredContent.headers['signature-input'], /^sig1=\("@authority"\);created=\d+;expires=\d+;keyid="[A-Za-z0-9_-]{43}";nonce="[^"]+";tag="web-bot-auth"$/);
    // AP2 open mandates bound to a P-256 key of the agent's (generated here, public half only).
    const agentKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
    const mandate = await mcp.tool(17, 'latch_ap2_mandate', {
      card_id: groceries, merchant: { name: 'Example Shop', website: 'https://shop.example' }, amount_max: '3.00',
      items: [{ id: 'sku-1', title: 'Blue mug' }], agent_key: { kty: 'EC', crv: 'P-256', x: agentKey.x, y: agentKey.y },
    });
    assert.equal(mandate.isError, false, JSON.stringify(mandate));
    assert.match(mandate.structuredContent.open_payment_mandate, /~/);
    // An x402 payment asked of the owner's policy (docs/x402.md): authorized, with its receipt.
    const x402 = await mcp.tool(18, 'latch_x402_authorize', { x402_version: 2, resource: { url: 'https://api.example.com/premium-data', description: 'Market data' }, requirements: { scheme: 'exact', network: 'eip155:84532', amount: '10000', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C', maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' } } });
    assert.equal(x402.isError, false, JSON.stringify(x402));
    assert.equal(x402.structuredContent.status, 'authorized');
    assert.equal(x402.structuredContent.amount, '0.01');
    const badUrl = await mcp.tool(16, 'latch_sign_web_request', { method: 'GET', url: 'http://shop.example.com/' });
    assert.equal(badUrl.isError, true);
    assert.equal(toolErrorOf(badUrl).code, 'invalid_request');

    // A rule that asks the owner: the ask is a result, and latch_get_approval reports it.
    writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify({ v: 1, rules: [{ id: 'ask-here', merchants: ['ask.example.com'], decision: 'ask' }] }), { mode: 0o600 });
    const pending = await mcp.tool(15, 'latch_authorize', { card_id: groceries, merchant_domain: 'ask.example.com', amount: '1.00' });
    assert.equal(pending.isError, false);
    assert.equal(pending.structuredContent.status, 'pending_approval');
    const looked = await mcp.tool(16, 'latch_get_approval', { approval_id: pending.structuredContent.approval_id });
    assert.equal(looked.structuredContent.approval_id, pending.structuredContent.approval_id);
    rmSync(path.join(stack.home, 'policy.json'));

    const outputSchemas = new Map(listed.result.tools.map((tool: { name: string; outputSchema: OutputSchema }) => [tool.name, tool.outputSchema]));
    const succeeded = mcp.results.filter(([, result]) => result.isError === false);
    assert.deepEqual(new Set(succeeded.map(([name]) => name)), new Set(outputSchemas.keys()), 'every tool returned a result to check');
    for (const [name, result] of succeeded) {
      const schema = outputSchemas.get(name) as OutputSchema;
      assert.deepEqual(schemaErrors(schema, result.structuredContent), [], `${name}'s structuredContent conforms to its outputSchema`);
    }

    const unknown = await mcp.request(15, 'tools/call', { name: 'latch_send_card_number', arguments: {} });
    assert.equal(unknown.error.code, -32602);

    const parseError = mcp.answer(null);
    mcp.send('{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{');
    assert.equal((await parseError).error.code, -32700);
    assert.deepEqual((await mcp.request(17, 'ping')).result, {}, 'the session survives a malformed line');

    assert.equal(await mcp.close(), 0);
    for (const line of mcp.stdoutLines) assert.equal(JSON.parse(line).jsonrpc, '2.0', 'stdout carries protocol messages only');
    for (const line of mcp.stderr.trim().split('\n')) assert.equal(typeof JSON.parse(line).event, 'string', 'stderr carries JSON log lines');
    const everything = mcp.stdoutLines.join('\n') + mcp.stderr;
    assert.ok(!everything.includes(stack.token()), 'the token appears nowhere');

    const signed = readAudit(stack.home, { limit: 200 }).filter((record) => record.policy_id === authorization.policy_id && record.operation === 'authorize');
    assert.equal(signed.length, 1);
    assert.equal(signed[0]?.user_agent, 'latch-mcp/0.1.0 (test-client/1.0)', 'audit.log names the agent');
  });

  test('a refusal names the tool\'s argument (merchant_domain), never the daemon\'s field', async (t) => {
    const mcp = new McpChild({ LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` });
    t.after(() => mcp.child.kill());
    await mcp.request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test-client', version: '1.0' } });
    mcp.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const cases: Array<[string, object]> = [
      ['latch_authorize', { card_id: stack.cards[0].card_id, merchant_domain: 'https://shop.example.com', amount: '1.00' }],
      ['latch_merchant_bind', { card_id: stack.cards[0].card_id, merchant_domain: 'shop.example.com:8443' }],
      ['latch_recurring', { card_id: stack.cards[0].card_id, merchant_domain: 'https://video.example.com/', amount: '1.00', interval: 'month' }],
    ];
    let id = 2;
    for (const [tool, args] of cases) {
      const refused = await mcp.tool(id++, tool, args);
      assert.equal(refused.isError, true, tool);
      assert.equal(toolErrorOf(refused).code, 'invalid_request', tool);
      assert.equal(toolErrorOf(refused).param, 'merchant_domain', tool);
      assert.match(refused.content[0].text, /^Error invalid_request \(Bad input\): merchant_domain must be a domain.*\[param: merchant_domain\]/, tool);
      assert.ok(!refused.content[0].text.includes('merchant_name'), refused.content[0].text);
    }
    assert.equal(await mcp.close(), 0);
  });

  test('with no daemon, tools answer with the local-availability error instead of failing the session', async () => {
    const mcp = new McpChild({ LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${await closedPort()}` });
    await mcp.request(1, 'initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'old-client', version: '0' } });
    mcp.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const health = await mcp.tool(2, 'latch_health');
    assert.equal(health.isError, true);
    assert.match(health.content[0].text, /^Error daemon_unreachable \(Local daemon unavailable\)/);
    assert.equal(health.structuredContent, undefined, '2024-11-05 has no structuredContent');
    assert.equal(await mcp.close(), 0);
  });

  test('an unusable LATCH_URL stops the server at start with exit 2', async () => {
    const mcp = new McpChild({ LATCH_HOME: stack.home, LATCH_URL: 'http://example.com' });
    assert.equal(await mcp.exited, 2);
    assert.equal(mcp.stdoutLines.length, 0);
    assert.match(mcp.stderr, /LATCH_URL/);
  });
});

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
