/**
 * Another local user holds the daemon's address (it bound the port while the daemon was down, or
 * relays to the real daemon from another address) and waits for a bearer token. The client, the
 * CLI and the MCP bridge must not send it one: they ask for the daemon proof first and stop with
 * daemon_not_verified when it is missing or wrong.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { LatchClientError } from '../../src/client/client-errors.js';
import { LatchClient } from '../../src/client/latch-client.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { createDaemon, type DaemonHandle } from '../../src/daemon/create-daemon.js';
import { ensureHome } from '../../src/datadir/home.js';
import { ensureToken, newToken, readToken } from '../../src/datadir/token.js';
import { daemonProof, proofAddress, PROOF_HEADER } from '../../src/http/daemon-proof.js';
import { createLogger } from '../../src/log/logger.js';
import { McpSession } from '../../src/mcp/mcp-session.js';
import { serveStdio } from '../../src/mcp/stdio-server.js';
import { runLatch } from '../support/stack.js';
import { toolErrorOf } from '../support/mcp-result.js';

/** What a squatter answers to every request it gets. */
type Answer = (request: http.IncomingMessage, port: number) => { status: number; headers?: Record<string, string>; body: unknown };

interface Squatter {
  url: string;
  port: number;
  /** Every Authorization header the squatter received. */
  authorizations: string[];
  requests: number;
  close(): Promise<void>;
}

async function startSquatter(answer: Answer): Promise<Squatter> {
  const squatter: Squatter = { url: '', port: 0, authorizations: [], requests: 0, close: async () => undefined };
  const server = http.createServer((request, response) => {
    squatter.requests++;
    for (let i = 0; i < request.rawHeaders.length; i += 2) {
      if ((request.rawHeaders[i] as string).toLowerCase() === 'authorization') squatter.authorizations.push(request.rawHeaders[i + 1] as string);
    }
    request.resume();
    request.on('end', () => {
      const { status, headers, body } = answer(request, squatter.port);
      response.writeHead(status, { 'content-type': 'application/json', ...headers });
      response.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  squatter.port = (server.address() as AddressInfo).port;
  squatter.url = `http://127.0.0.1:${squatter.port}`;
  squatter.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return squatter;
}

const HEALTH = { status: 'ok', version: '0.1.0', uptime_seconds: 1, signing_key: null };
const refusal = (code: string) => ({ status: 401, headers: { 'www-authenticate': 'Bearer' }, body: { error: { code, message: 'refused' } } });

/** The ways a squatter may answer; none of them holds the token of the victim's data directory. */
const SQUATTERS: Array<[string, Answer]> = [
  ['answers like a daemon, without a proof', () => ({ status: 200, body: HEALTH })],
  ['answers 401 invalid_bearer_token to everything', () => refusal('invalid_bearer_token')],
  ['answers 401 missing_bearer_token to everything', () => refusal('missing_bearer_token')],
  ['sends a proof made up of random bytes', () => ({ status: 200, headers: { [PROOF_HEADER]: newToken() }, body: HEALTH })],
  ['echoes the challenge as the proof', (request) => ({ status: 200, headers: { [PROOF_HEADER]: String(request.headers['latch-challenge']) }, body: HEALTH })],
  [
    'proves it holds its own token, not the victim\'s',
    (request, port) => ({ status: 200, headers: { [PROOF_HEADER]: daemonProof(newToken(), String(request.headers['latch-challenge']), proofAddress('127.0.0.1', port)) }, body: HEALTH }),
  ],
  ['answers 503 with a Latch error body', () => ({ status: 503, body: { error: { code: 'data_directory_unavailable', message: 'x' } } })],
];

let root: string;
let home: string;

before(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'latch-squatter-'));
  home = path.join(root, 'home');
  ensureHome(home);
  ensureToken(home);
});
after(() => rmSync(root, { recursive: true, force: true }));

/** refusedAsUnverified awaits a call and asserts it failed with daemon_not_verified. */
async function refusedAsUnverified(call: Promise<unknown>): Promise<LatchClientError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof LatchClientError, `expected a LatchClientError, got ${String(error)}`);
    assert.equal(error.code, 'daemon_not_verified', error.message);
    assert.match(error.message, /token was not sent/);
    return error;
  }
  assert.fail('the call succeeded against a squatter');
}

describe('the client never sends the token to a peer that has not proven it is the daemon', () => {
  for (const [name, answer] of SQUATTERS) {
    test(`a squatter that ${name}`, async () => {
      const squatter = await startSquatter(answer);
      const client = new LatchClient({ home, baseUrl: squatter.url, env: {} });
      try {
        await refusedAsUnverified(client.cards());
        await refusedAsUnverified(client.authorize({ card_id: 'card_a', amount: '12.50', merchant_name: 'shop.example.com' }));
        await refusedAsUnverified(client.proxy('POST', '/v1/authorizations/pw_a/revoke', { jws: 'a.b.c' }));
        await refusedAsUnverified(client.verifyDaemon());
        assert.ok(squatter.requests >= 4, 'the squatter was asked (for a proof) each time');
        assert.deepEqual(squatter.authorizations, []);
      } finally {
        client.close();
        await squatter.close();
      }
    });
  }

  test('after a 401 from the squatter, the token re-read from the file is not sent either', async () => {
    // The token file does not exist at the first call, so that call goes without a token (there
    // is nothing to protect yet); the squatter refuses it, the file appears, and the client must
    // ask for a proof before it sends the token it now has.
    const lateHome = path.join(root, 'late-home');
    ensureHome(lateHome);
    const squatter = await startSquatter(() => {
      ensureToken(lateHome);
      return refusal('missing_bearer_token');
    });
    const client = new LatchClient({ home: lateHome, baseUrl: squatter.url, env: {} });
    try {
      await refusedAsUnverified(client.cards());
      assert.equal(squatter.requests, 2, 'the tokenless request, then the identity check; no retry with the token');
      assert.deepEqual(squatter.authorizations, []);
    } finally {
      client.close();
      await squatter.close();
    }
  });

  test('a relay at another address gets a proof bound to the daemon address, which does not match its own', async () => {
    const daemon: DaemonHandle = createDaemon({ home, portA: 0, variantB: false, env: {}, logStream: new PassThrough() });
    const { portA } = await daemon.listen();
    const authorizations: string[] = [];
    const relay = http.createServer((request, response) => {
      if (request.headers['authorization'] !== undefined) authorizations.push(request.headers['authorization']);
      // A careful squatter rewrites Host so that the daemon's Host check passes.
      const forwarded = http.request({ hostname: '127.0.0.1', port: portA, method: request.method, path: request.url, headers: { ...request.headers, host: `127.0.0.1:${portA}` } }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      request.pipe(forwarded);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const client = new LatchClient({ home, baseUrl: `http://127.0.0.1:${(relay.address() as AddressInfo).port}`, env: {} });
    const direct = new LatchClient({ home, baseUrl: `http://127.0.0.1:${portA}`, env: {} });
    try {
      await refusedAsUnverified(client.wallet());
      assert.deepEqual(authorizations, []);
      // The same data directory and the daemon itself: the proof checks out.
      await direct.verifyDaemon();
    } finally {
      client.close();
      direct.close();
      relay.closeAllConnections();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
      await daemon.close({ deadlineMs: 100 });
    }
  });
});

describe('the CLI and the MCP bridge pointed at a squatter', () => {
  let squatter: Squatter;
  before(async () => {
    squatter = await startSquatter(() => refusal('invalid_bearer_token'));
  });
  after(() => squatter.close());

  const commands: string[][] = [['cards', '--json'], ['wallet', '--json'], ['authorize', '--card', 'card_a', '--amount', '1.00', '--merchant', 'shop.example.com', '--json']];
  for (const args of commands) {
    test(`latch ${args.join(' ')} sends no token, reports daemon_not_verified and exits 8`, async () => {
      const before = squatter.authorizations.length;
      const run = await runLatch(args, { LATCH_HOME: home, LATCH_URL: squatter.url });
      assert.equal(run.code, EXIT.daemonUnreachable, run.stderr);
      assert.match(run.stdout + run.stderr, /daemon_not_verified/);
      assert.equal(squatter.authorizations.length, before);
      assert.deepEqual(squatter.authorizations, []);
      assert.doesNotMatch(run.stdout + run.stderr, new RegExp(readToken(home)));
    });
  }

  test('latch doctor names daemon_not_verified with its remedy and exits 8', async () => {
    const run = await runLatch(['doctor', '--json'], { LATCH_HOME: home, LATCH_URL: squatter.url });
    assert.equal(run.code, EXIT.daemonUnreachable, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.ok, false);
    assert.equal(report.problem.code, 'daemon_not_verified');
    assert.match(report.problem.remedy, /listening on the daemon's address/);
    assert.deepEqual(squatter.authorizations, []);
  });

  test('an MCP tool call reports daemon_not_verified as a tool error and sends no token', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let raw = '';
    output.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    const log = createLogger({ stream: new PassThrough() });
    let client: LatchClient | undefined;
    const session = new McpSession({ serverVersion: '0.1.0', log, caller: 'owner', makeClient: (userAgent) => (client = new LatchClient({ home, baseUrl: squatter.url, env: {}, userAgent })) });
    const done = serveStdio({ input, output, session, log });
    const lines = [
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agent', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'latch_list_cards', arguments: {} } },
    ];
    for (const line of lines) input.write(`${JSON.stringify(line)}\n`);
    input.end();
    await done;
    client?.close();
    const result = raw
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line))
      .find((message) => message.id === 1);
    assert.equal(result.result.isError, true);
    assert.equal(toolErrorOf(result.result).code, 'daemon_not_verified');
    assert.deepEqual(squatter.authorizations, []);
  });
});
