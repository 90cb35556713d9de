/**
 * The MCP session and stdio transport driven in-process with a fake client: the lifecycle,
 * version negotiation, JSON-RPC errors, tool results and tool errors.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import { LatchClientError } from '../../src/client/client-errors.js';
import { createLogger } from '../../src/log/logger.js';
import { McpSession } from '../../src/mcp/mcp-session.js';
import { LATEST_PROTOCOL_VERSION } from '../../src/mcp/protocol-version.js';
import { serveStdio } from '../../src/mcp/stdio-server.js';
import { TOOLS, type ToolClient } from '../../src/mcp/tools.js';
import { CaptureStream } from '../daemon/daemon-fixture.js';
import { toolErrorOf } from '../support/mcp-result.js';

interface Call {
  method: string;
  args: unknown[];
}

/** The approvals the fake client knows, by id: one in each final state that is a tool error. */
const APPROVALS: Record<string, object> = {
  ap_expired: { status: 'expired' },
  ap_failed: { status: 'failed', error: { code: 'insufficient_funds', message: 'The card balance is too low.' } },
  ap_silent: { status: 'denied', reason: null },
};

/** fakeClient answers every tool with canned data and records what it was asked. */
function fakeClient(calls: Call[]): ToolClient {
  const record =
    (method: string, answer: (...args: any[]) => unknown) =>
    async (...args: unknown[]) => {
      calls.push({ method, args });
      return answer(...args);
    };
  const authorization = { policy_id: 'pw_a', amount: '12.50', status: 'active' };
  return {
    health: record('health', () => ({ status: 'ok', version: '0.1.0', uptime_seconds: 1, signing_key: null })),
    cards: record('cards', () => ({ cards: [{ card_id: 'card_a', balance: '1.00' }] })),
    card: record('card', (id: string) => {
      throw new LatchClientError({ code: 'card_not_found', status: 404, message: `no ${id}` });
    }),
    authorize: record('authorize', (input: { amount: string }) => {
      if (input.amount === '9999.00') throw new LatchClientError({ code: 'insufficient_funds', status: 402 });
      return authorization;
    }),
    merchantBind: record('merchantBind', () => authorization),
    recurring: record('recurring', () => authorization),
    revoke: record('revoke', () => ({ revocation: {}, authorization: { ...authorization, status: 'revoked' } })),
    wallet: record('wallet', () => {
      throw new TypeError('a bug');
    }),
    allocate: record('allocate', () => ({ card_id: 'card_a', allocated: '1.00', new_balance: '2.00' })),
    transactions: record('transactions', () => ({ transactions: [], has_more: false })),
    transaction: record('transaction', () => ({ id: 'tx_a' })),
    signWebRequest: record('signWebRequest', () => ({ headers: { 'signature-input': 'sig1=("@authority")', signature: 'sig1=:AA==:' }, key_id: 'k', created: 1, expires: 61 })),
    approval: record('approval', (id: string) => ({ ...APPROVALS[id], approval_id: id, agent: 'shopper', expires_at: '2026-01-01T00:15:00Z', request: { amount: '60.00', currency: 'USD', merchant_name: 'shop.example.com' } })),
  } as unknown as ToolClient;
}

interface Exchange {
  responses: any[];
  raw: string;
  calls: Call[];
  userAgents: string[];
  logs: string;
}

/** exchange feeds lines to a fresh session, ends the input, and returns every response. */
async function exchange(lines: Array<string | object>): Promise<Exchange> {
  const calls: Call[] = [];
  const userAgents: string[] = [];
  const logStream = new CaptureStream();
  const log = createLogger({ stream: logStream });
  const session = new McpSession({
    serverVersion: '0.1.0',
    log,
    caller: 'owner',
    makeClient: (userAgent) => {
      userAgents.push(userAgent);
      return fakeClient(calls);
    },
  });
  const input = new PassThrough();
  const output = new PassThrough();
  let raw = '';
  output.on('data', (chunk: Buffer) => (raw += chunk.toString()));
  const done = serveStdio({ input, output, session, log });
  for (const line of lines) input.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
  input.end();
  await done;
  const responses = raw
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line));
  return { responses, raw, calls, userAgents, logs: logStream.text() };
}

const init = (version = '2025-06-18', id: number | string = 0) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'test-agent', version: '9.9' } },
});
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
const call = (id: number, name: string, args?: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, ...(args !== undefined && { arguments: args }) } });
const byId = (responses: any[], id: unknown): any => responses.find((response) => response.id === id);

describe('initialize', () => {
  const versions: Array<[string, string]> = [
    ['2025-11-25', '2025-11-25'],
    ['2025-06-18', '2025-06-18'],
    ['2025-03-26', '2025-03-26'],
    ['2024-11-05', '2024-11-05'],
    ['2099-01-01', LATEST_PROTOCOL_VERSION],
    ['1.0', LATEST_PROTOCOL_VERSION],
  ];
  for (const [requested, answered] of versions) {
    test(`a client asking for ${requested} gets ${answered}`, async () => {
      const { responses } = await exchange([init(requested)]);
      const result = byId(responses, 0).result;
      assert.equal(result.protocolVersion, answered);
      assert.deepEqual(result.capabilities, { tools: { listChanged: false } });
      assert.equal(result.serverInfo.name, 'latch');
      assert.match(result.instructions, /never retry with a larger amount/);
    });
  }

  test('features follow the negotiated revision: annotations from 2025-03-26, titles and structuredContent from 2025-06-18', async () => {
    const lines = (version: string) => [init(version), initialized, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, call(2, 'latch_list_cards')];
    const old = await exchange(lines('2024-11-05'));
    const mid = await exchange(lines('2025-03-26'));
    const current = await exchange(lines('2025-06-18'));
    const tool = (x: Exchange) => byId(x.responses, 1).result.tools[0];
    assert.equal(tool(old).annotations, undefined);
    assert.equal(tool(old).title, undefined);
    assert.deepEqual(tool(mid).annotations.readOnlyHint, true);
    assert.equal(tool(mid).title, undefined);
    assert.equal(typeof tool(current).title, 'string');
    assert.equal(byId(old.responses, 2).result.structuredContent, undefined);
    assert.deepEqual(byId(current.responses, 2).result.structuredContent, { cards: [{ card_id: 'card_a', balance: '1.00' }] });
  });

  test('without protocolVersion: invalid params', async () => {
    const { responses } = await exchange([{ jsonrpc: '2.0', id: 0, method: 'initialize', params: {} }]);
    assert.equal(byId(responses, 0).error.code, -32602);
  });

  test('a second initialize is refused', async () => {
    const { responses } = await exchange([init('2025-06-18', 0), init('2025-06-18', 1)]);
    assert.equal(byId(responses, 0).result.protocolVersion, '2025-06-18');
    assert.equal(byId(responses, 1).error.code, -32600);
  });

  test('before initialize only ping is answered', async () => {
    const { responses, calls } = await exchange([
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      call(2, 'latch_list_cards'),
      { jsonrpc: '2.0', id: 3, method: 'ping' },
    ]);
    assert.equal(byId(responses, 1).error.code, -32600);
    assert.match(byId(responses, 1).error.message, /not initialized/);
    assert.equal(byId(responses, 2).error.code, -32600);
    assert.deepEqual(byId(responses, 3).result, {});
    assert.equal(calls.length, 0);
  });
});

describe('tools', () => {
  const start = [init(), initialized];

  test('tools/list: every tool with a closed input schema', async () => {
    const { responses } = await exchange([...start, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }]);
    const tools = byId(responses, 1).result.tools;
    assert.equal(tools.length, TOOLS.length, 'every tool of the catalog, 15 with latch_x402_authorize');
    for (const tool of tools) {
      assert.match(tool.name, /^latch_[a-z0-9_]+$/);
      assert.equal(tool.inputSchema.additionalProperties, false);
    }
  });

  test('tools/call success: the daemon object as text and structuredContent; merchant_domain becomes merchant_name; the amount stays exact', async () => {
    const { responses, calls, userAgents } = await exchange([
      ...start,
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"latch_authorize","arguments":{"card_id":"card_a","merchant_domain":"shop.example.com","amount":12.50,"ttl_minutes":5}}}',
    ]);
    const result = byId(responses, 1).result;
    assert.equal(result.isError, false);
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
    assert.equal(result.structuredContent.policy_id, 'pw_a');
    assert.deepEqual(calls, [{ method: 'authorize', args: [{ card_id: 'card_a', merchant_name: 'shop.example.com', amount: '12.50', ttl_minutes: 5 }] }]);
    assert.deepEqual(userAgents, ['latch-mcp/0.1.0 (test-agent/9.9)']);
  });

  test('a refusal is a tool error carrying the code, class and remedy, with no second call', async () => {
    const { responses, calls } = await exchange([...start, call(1, 'latch_authorize', { card_id: 'card_a', merchant_domain: 'shop.example.com', amount: '9999.00' })]);
    const result = byId(responses, 1).result;
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /^Error insufficient_funds \(Insufficient funds\)/);
    assert.match(result.content[0].text, /Remedy: Check the wallet balance\. Ask the user/);
    assert.equal(toolErrorOf(result).code, 'insufficient_funds');
    assert.equal(toolErrorOf(result).status, 402);
    assert.equal(calls.length, 1);
  });

  test('arguments that do not fit the schema are a tool error naming the field; the daemon is not called', async () => {
    const { responses, calls } = await exchange([...start, call(1, 'latch_authorize', { card_id: 'card_a', merchant_domain: 'shop.example.com', amount: '5', card_number: '4111111111111111' })]);
    const result = byId(responses, 1).result;
    assert.equal(result.isError, true);
    assert.equal(toolErrorOf(result).code, 'invalid_request');
    // A card-data name is not repeated either (displayName); the error names where it was.
    assert.equal(toolErrorOf(result).param, 'arguments');
    assert.ok(!JSON.stringify(result).includes('card_number'), 'the card-data name is not echoed');
    assert.ok(!JSON.stringify(result).includes('4111111111111111'), 'the value is not echoed');
    assert.equal(calls.length, 0);
  });

  const protocolErrors: Array<[string, object, number]> = [
    ['an unknown tool', call(1, 'latch_pay_anything', {}), -32602],
    ['a tool name that is not a string', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 5 } }, -32602],
    ['no params at all', { jsonrpc: '2.0', id: 1, method: 'tools/call' }, -32602],
    ['arguments as an array', call(1, 'latch_list_cards', []), -32602],
    ['arguments as a string', call(1, 'latch_list_cards', 'x'), -32602],
    ['params as an array', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: [] }, -32602],
    ['an unknown method', { jsonrpc: '2.0', id: 1, method: 'resources/list' }, -32601],
    ['a bug in a tool', call(1, 'latch_wallet_balance'), -32603],
  ];
  for (const [name, message, code] of protocolErrors) {
    test(`${name}: JSON-RPC error ${code}`, async () => {
      const { responses } = await exchange([...start, message]);
      assert.equal(byId(responses, 1).error.code, code);
    });
  }

  test('a not-found is a tool error whose remedy says to list and ask', async () => {
    const { responses } = await exchange([...start, call(1, 'latch_get_card', { card_id: 'card_zz' })]);
    const result = byId(responses, 1).result;
    assert.equal(result.isError, true);
    assert.equal(toolErrorOf(result).code, 'card_not_found');
    assert.match(toolErrorOf(result).remedy, /ask the user/);
  });
});

describe('latch_get_approval', () => {
  const start = [init(), initialized];
  const cases: Array<[string, string, string, RegExp]> = [
    ['expired', 'ap_expired', 'approval_denied', /did not decide on approval ap_expired .* in time: it expired, and nothing was signed[\s\S]*Do not retry with other terms/],
    ['failed after approval', 'ap_failed', 'insufficient_funds', /approved ap_failed .*but it could not be created: The card balance is too low/],
    ['denied without a reason', 'ap_silent', 'approval_denied', /denied approval ap_silent .* without a reason; nothing was signed[\s\S]*Do not retry with other terms/],
  ];
  for (const [name, id, code, text] of cases) {
    test(`${name}: a tool error ${code}`, async () => {
      const { responses, calls } = await exchange([...start, call(1, 'latch_get_approval', { approval_id: id, wait_seconds: 5 })]);
      const result = byId(responses, 1).result;
      assert.equal(result.isError, true);
      assert.equal(toolErrorOf(result).code, code);
      assert.match(result.content[0].text, text);
      assert.deepEqual(calls, [{ method: 'approval', args: [id, { waitSeconds: 5 }] }]);
    });
  }
});

describe('the wire', () => {
  const start = [init(), initialized];

  test('malformed JSON is a parse error with a null id; the session continues', async () => {
    const { responses } = await exchange([...start, '{"jsonrpc":"2.0","id":1,', '{bad json}', { jsonrpc: '2.0', id: 2, method: 'ping' }]);
    const parseErrors = responses.filter((response) => response.error?.code === -32700);
    assert.equal(parseErrors.length, 2);
    for (const error of parseErrors) assert.equal(error.id, null);
    assert.deepEqual(byId(responses, 2).result, {});
  });

  test('invalid requests get -32600 with the id when it is readable', async () => {
    const { responses } = await exchange([...start, { jsonrpc: '1.0', id: 7, method: 'ping' }, { jsonrpc: '2.0', id: null, method: 'ping' }, '"just a string"']);
    assert.equal(byId(responses, 7).error.code, -32600);
    assert.equal(responses.filter((response) => response.id === null && response.error?.code === -32600).length, 2);
  });

  test('notifications and client responses get no answer', async () => {
    const { responses } = await exchange([...start, { jsonrpc: '2.0', method: 'notifications/anything' }, { jsonrpc: '2.0', id: 99, result: {} }]);
    assert.deepEqual(responses.map((response) => response.id), [0]);
  });

  test('a batch is answered with one array; initialize inside a batch is refused', async () => {
    const { raw } = await exchange([...start, [{ jsonrpc: '2.0', id: 1, method: 'ping' }, initialized, init('2025-06-18', 2)], []]);
    const lines = raw.trim().split('\n');
    const batch = JSON.parse(lines.find((line) => line.startsWith('[')) ?? '[]');
    assert.equal(batch.length, 2);
    assert.deepEqual(byId(batch, 1).result, {});
    assert.equal(byId(batch, 2).error.code, -32600);
    assert.ok(lines.some((line) => JSON.parse(line).error?.code === -32600 && JSON.parse(line).id === null), 'an empty batch is an invalid request');
  });

  test('a cancelled request gets no response', async () => {
    const { responses } = await exchange([...start, call(5, 'latch_list_cards'), { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } }]);
    assert.equal(byId(responses, 5), undefined);
  });

  test('every output line is one JSON-RPC message; logs never reach it', async () => {
    const { raw, logs } = await exchange([...start, call(1, 'latch_list_cards'), 'nonsense']);
    for (const line of raw.trim().split('\n')) assert.equal(JSON.parse(line).jsonrpc, '2.0');
    assert.match(logs, /"event":"mcp_initialized"/);
    assert.match(logs, /"event":"mcp_tool_call"/);
  });
});
