/**
 * The MCP server handles at most IN_FLIGHT_MAX requests at once. A JSON-RPC batch used to count as
 * one, so a batch of 32 slow tool calls ran 32 at once. Here each member counts: members past the
 * limit are answered "server busy" (-32000), exactly as single requests past it are.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { createLogger } from '../../src/log/logger.js';
import { McpSession } from '../../src/mcp/mcp-session.js';
import { BATCH_MESSAGES_MAX, IN_FLIGHT_MAX, serveStdio } from '../../src/mcp/stdio-server.js';
import type { ToolClient } from '../../src/mcp/tools.js';
import { CaptureStream } from '../daemon/daemon-fixture.js';

const SERVER_BUSY = -32000;

/** A server whose health tool blocks until released, counting how many calls reached the client. */
function blockingServer() {
  const releases: Array<() => void> = [];
  let started = 0;
  const client = {
    health: () => {
      started++;
      return new Promise((resolve) => releases.push(() => resolve({ status: 'ok', version: '0.1.0', uptime_seconds: 1, signing_key: null })));
    },
  } as unknown as ToolClient;
  const session = new McpSession({ serverVersion: '0.1.0', log: createLogger({ stream: new CaptureStream() }), caller: 'owner', makeClient: () => client });
  const input = new PassThrough();
  const output = new PassThrough();
  let raw = '';
  output.on('data', (chunk: Buffer) => (raw += chunk.toString()));
  const done = serveStdio({ input, output, session, log: createLogger({ stream: new CaptureStream() }) });
  const send = (message: unknown): void => void input.write(`${JSON.stringify(message)}\n`);
  send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    send,
    /** ready resolves once initialize is answered, so that it no longer counts as in flight. */
    async ready(): Promise<void> {
      for (let i = 0; i < 1000 && !raw.includes('"id":"init"'); i++) await new Promise(setImmediate);
      assert.ok(raw.includes('"id":"init"'), 'initialize was answered');
      await new Promise(setImmediate);
    },
    started: () => started,
    async finish(): Promise<any[]> {
      // Let every accepted call reach the client, then release them all and end the input.
      for (let i = 0; i < 20; i++) await new Promise(setImmediate);
      for (const release of releases.splice(0)) release();
      input.end();
      await done;
      return raw.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
    },
  };
}

const healthCall = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'latch_health' } });

test('a batch of 32 slow tool calls: only 16 run at once, the other 16 members are answered server busy', async () => {
  assert.equal(BATCH_MESSAGES_MAX, 2 * IN_FLIGHT_MAX);
  const server = blockingServer();
  await server.ready();
  server.send(Array.from({ length: BATCH_MESSAGES_MAX }, (_, i) => healthCall(i + 1)));
  const responses = await server.finish();
  assert.equal(server.started(), IN_FLIGHT_MAX, 'calls that reached the client');
  const batch = responses.find((response) => Array.isArray(response)) as any[];
  assert.equal(batch.length, BATCH_MESSAGES_MAX);
  const busy = batch.filter((member) => member.error?.code === SERVER_BUSY).map((member) => member.id);
  const served = batch.filter((member) => member.result !== undefined).map((member) => member.id);
  assert.deepEqual(served, Array.from({ length: IN_FLIGHT_MAX }, (_, i) => i + 1));
  assert.deepEqual(busy, Array.from({ length: IN_FLIGHT_MAX }, (_, i) => IN_FLIGHT_MAX + i + 1));
});

test('single requests and a batch share one limit: 10 in flight leave room for 6 batch members', async () => {
  const server = blockingServer();
  await server.ready();
  for (let id = 1; id <= 10; id++) server.send(healthCall(id));
  server.send(Array.from({ length: 10 }, (_, i) => healthCall(100 + i)));
  server.send(healthCall(200));
  const responses = await server.finish();
  assert.equal(server.started(), IN_FLIGHT_MAX);
  const batch = responses.find((response) => Array.isArray(response)) as any[];
  assert.equal(batch.filter((member) => member.result !== undefined).length, 6);
  assert.equal(batch.filter((member) => member.error?.code === SERVER_BUSY).length, 4);
  const late = responses.find((response) => !Array.isArray(response) && response.id === 200);
  assert.equal(late.error.code, SERVER_BUSY, 'a single request past the limit is refused too');
});

test('control: a batch of 16 within the limit is served in full', async () => {
  const server = blockingServer();
  await server.ready();
  server.send(Array.from({ length: IN_FLIGHT_MAX }, (_, i) => healthCall(i + 1)));
  const responses = await server.finish();
  const batch = responses.find((response) => Array.isArray(response)) as any[];
  assert.equal(batch.filter((member) => member.result !== undefined).length, IN_FLIGHT_MAX);
});
