/**
 * Agents end to end, with the real daemon, the real sandbox and real token files under
 * `$LATCH_HOME/agents/`: the two roles on every route of both listeners, audit lines that name
 * the agent, rotation and removal while requests flow, the client, CLI and daemon proof as an
 * agent, and no token in any output, log or audit line.
 */
import type { X402Operations } from '../../src/variant-a/x402-routes.js';
import type { OwnerOperations } from '../../src/variant-a/owner-routes.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LatchClient } from '../../src/client/latch-client.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { addAgent, readAgentToken, removeAgent, rotateAgent } from '../../src/datadir/agents.js';
import { LatchError } from '../../src/errors/latch-error.js';
import type { Route } from '../../src/http/route.js';
import { variantARoutes } from '../../src/variant-a/routes.js';
import { signingProxyRoutes } from '../../src/proxy/signing-proxy.js';
import { variantBRoutes } from '../../src/variant-b/routes.js';
import type { CoreOperations } from '../../src/operations/operations.js';
import type { EvidenceOperations } from '../../src/variant-a/evidence-routes.js';
import type { ApprovalOperations } from '../../src/operations/approval-operations.js';
import type { AuthorizationListOperations } from '../../src/operations/authorization-list.js';
import type { PolicyOperations } from '../../src/variant-a/policy-routes.js';
import type { IdentityOperations } from '../../src/identity/identity-operations.js';
import type { Ap2Operations } from '../../src/variant-a/ap2-routes.js';
import { JsonClient, runLatch, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let shopper: JsonClient;
let shopperB: JsonClient;
/** Every token any agent held during the run, to scan outputs for. */
const tokensSeen = new Set<string>();
const agentToken = (name: string) => {
  const token = readAgentToken(stack.home, name);
  tokensSeen.add(token);
  return token;
};

before(async () => {
  stack = await startStack();
  addAgent(stack.home, 'shopper');
  addAgent(stack.home, 'travel');
  shopper = new JsonClient(`http://127.0.0.1:${stack.portA}`, () => agentToken('shopper'));
  shopperB = new JsonClient(`http://127.0.0.1:${stack.portB}`, () => agentToken('shopper'));
});
after(() => stack.close());

/**
 * The owner-only surfaces of docs/decisions.md §15.1, by `METHOD pattern`, on either listener: a route
 * of that name must be owner-only, and every other route (but A's /health) must admit agents.
 * Routes added later by other parts (GET /policy, approval decisions) are covered once they exist.
 */
const PROXY_ROUTE_NAMES = signingProxyRoutes(() => { throw new Error('not called'); }).map((route) => `${route.method} ${route.pattern}`);
const OWNER_ONLY: ReadonlySet<string> = new Set([
  // Every route of the /v1 proxy, from its one table.
  ...PROXY_ROUTE_NAMES,
  // owner-presence §1, §4: the owner's controls through the API.
  'GET /agents',
  'POST /agents',
  'DELETE /agents/:name',
  'POST /agents/:name/rotate',
  'DELETE /owner/sessions/current',
  'POST /pause',
  'POST /console/login-code',
  'GET /audit',
  'GET /audit/verify',
  'GET /web-bot-auth/keys/:name',
  'POST /resume',
  'PUT /policy',
  'POST /sign-card-policy-window',
  'POST /sign-policy-window',
  'POST /sign-revocation',
  'POST /wallet/allocate',
  'GET /policy',
  'POST /approvals/:approval_id/approve',
  'POST /approvals/:approval_id/deny',
]);

/** The route tables as the daemon builds them (handlers are not called here). */
function tables(): { a: Route[]; b: Route[] } {
  const operations = {} as CoreOperations;
  return {
    a: variantARoutes({
      operations,
      consoleLoginLink: () => ({ url: 'http://localhost:7724/login#code', expires_at: '2026-01-01T00:00:00Z' }),
      authorizations: {} as AuthorizationListOperations,
      approvals: {} as ApprovalOperations,
      evidence: {} as EvidenceOperations,
      policy: {} as PolicyOperations,
      health: () => ({ version: '0', uptimeSeconds: 0, signingKey: null, paused: null, cloudClockSkewSeconds: null, ownerPresence: 'none', approvalsLockedSeconds: 0 }),
      owner: {} as OwnerOperations,
      proxyUpstream: () => {
        throw new LatchError('device_not_enrolled');
      },
      identity: {} as IdentityOperations,
      audit: { recent: () => [], verify: () => ({ ok: true, lines: 0 }) },
      ap2: {} as Ap2Operations,
      x402: {} as X402Operations,
    }),
    b: variantBRoutes({ operations, health: () => ({ version: '0', uptimeSeconds: 0 }) }),
  };
}

const routeName = (route: Route) => `${route.method} ${route.pattern}`;
/** A concrete target for a pattern: parameters filled with well-formed ids that do not exist. */
const targetOf = (pattern: string) => pattern.replace('/*', '/wallet').replace(/:([a-z_]+)/g, (_all, name: string) => `${name.split('_')[0]}_doesnotexist1`);

describe('roles on every route of both listeners, with a real agent token file', () => {
  for (const listener of ['a', 'b'] as const) {
    for (const route of tables()[listener]) {
      const name = `${listener.toUpperCase()} ${routeName(route)}`;
      test(`${name}: ${OWNER_ONLY.has(routeName(route)) ? 'owner only' : 'open to agents'}`, async () => {
        const client = listener === 'a' ? shopper : shopperB;
        const method = route.method === '*' ? 'GET' : route.method;
        const answer = await client.request(method, targetOf(route.pattern), method === 'POST' || method === 'PUT' ? {} : undefined);
        if (route.access === 'public') {
          assert.ok(['GET /ap2/jwks', 'GET /health', 'GET /web-bot-auth/directory', 'POST /owner/sessions'].includes(routeName(route)), 'only /health, the key directories and opening an owner session are public');
          assert.ok(answer.status < 500, answer.text);
          return;
        }
        if (OWNER_ONLY.has(routeName(route))) {
          assert.ok(route.access === 'owner' || route.access === 'owner_present', `${name} is the owner's`);
          assert.equal(answer.status, 403, answer.text);
          // A HEAD answer has no body to name the code.
          if (method !== 'HEAD') assert.equal(answer.body?.error?.code, 'agent_not_permitted');
        } else {
          assert.equal(route.access, 'agents', `${name} must admit agents (docs/decisions.md §15.1)`);
          assert.ok(answer.status !== 401 && answer.body?.error?.code !== 'agent_not_permitted', `${name}: ${answer.text}`);
          assert.ok(answer.status < 500, `${name}: ${answer.text}`);
        }
      });
    }
  }
});

describe('what an agent does is its own', () => {
  test('an authorization by the agent is audited under its name, and the owner under "owner"', async () => {
    const card = stack.cards[0].card_id;
    const mine = await shopper.post('/authorize', { card_id: card, amount: '2.00', merchant_name: 'shop.example.com' }, { 'idempotency-key': 'agent-audit-1' });
    assert.equal(mine.status, 200, mine.text);
    const owner = await stack.a.post('/authorize', { card_id: card, amount: '3.00', merchant_name: 'shop.example.com' });
    assert.equal(owner.status, 200, owner.text);
    const lines = readFileSync(path.join(stack.home, 'audit.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const of = (requestId: string | null) => lines.filter((line) => line['request_id'] === requestId).map((line) => line['agent']);
    const agentLines = of(mine.headers.get('x-request-id'));
    const ownerLines = of(owner.headers.get('x-request-id'));
    // One line records the window and the request that registers it.
    assert.ok(agentLines.length >= 1, 'the window and the request signature');
    assert.ok(agentLines.every((agent) => agent === 'shopper'), JSON.stringify(agentLines));
    assert.ok(ownerLines.length >= 1 && ownerLines.every((agent) => agent === 'owner'), JSON.stringify(ownerLines));
  });

  test('B: the agent authorizes, and the wallet allocation is refused', async () => {
    const answer = await shopperB.post('/authorize', { card_id: stack.cards[1].card_id, amount: '1.00', merchant: 'shop.example.com' });
    assert.equal(answer.status, 200, answer.text);
    const allocate = await shopperB.post('/wallet/allocate', { card_id: stack.cards[1].card_id, amount: '1.00' });
    assert.equal(allocate.status, 403);
    assert.equal(allocate.body.error.code, 'agent_not_permitted');
  });
});

describe('add, rotate and remove while the daemon runs', () => {
  test('rotating 20 times while requests flow: each request is accepted or refused 401, never a 5xx', async () => {
    addAgent(stack.home, 'rotor');
    const statuses: number[] = [];
    let rotating = true;
    const rotations = (async () => {
      for (let i = 0; i < 20; i++) {
        rotateAgent(stack.home, 'rotor');
        await new Promise((resolve) => setImmediate(resolve));
      }
      rotating = false;
    })();
    const rotor = new JsonClient(`http://127.0.0.1:${stack.portA}`, () => agentToken('rotor'));
    const flows = Array.from({ length: 4 }, async () => {
      while (rotating) {
        const answer = await rotor.get('/wallet/balance');
        statuses.push(answer.status);
        if (answer.status === 401) assert.equal(answer.body.error.code, 'invalid_bearer_token');
      }
    });
    await Promise.all([rotations, ...flows]);
    assert.ok(statuses.length > 0);
    assert.deepEqual([...new Set(statuses)].filter((status) => status !== 200 && status !== 401), [], statuses.join());
    const settled = await rotor.get('/wallet/balance');
    assert.equal(settled.status, 200, 'the current token works once rotation stops');
  });

  test('a removed agent is refused at its next request; a new one is accepted at its first', async () => {
    addAgent(stack.home, 'shortlived');
    const token = agentToken('shortlived');
    const client = new JsonClient(`http://127.0.0.1:${stack.portA}`, () => token);
    assert.equal((await client.get('/cards')).status, 200);
    removeAgent(stack.home, 'shortlived');
    const refused = await client.get('/cards');
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'invalid_bearer_token');
  });

  test('a rotated token: the old one is refused at once', async () => {
    const old = agentToken('travel');
    rotateAgent(stack.home, 'travel');
    const client = new JsonClient(`http://127.0.0.1:${stack.portA}`, () => old);
    const refused = await client.get('/cards');
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'invalid_bearer_token');
  });
});

describe('the client, CLI and daemon proof as an agent', () => {
  test('LatchClient {agent} verifies the daemon with the agent token and calls as the agent', async () => {
    const client = new LatchClient({ home: stack.home, baseUrl: `http://127.0.0.1:${stack.portA}`, agent: 'shopper' });
    try {
      await client.verifyDaemon();
      const cards = await client.cards();
      assert.equal(cards.cards.length, 2);
      await assert.rejects(client.allocate({ card_id: stack.cards[0].card_id, amount: '1.00' }), { code: 'agent_not_permitted' });
    } finally {
      client.close();
    }
  });

  test('an unknown agent gets a decoy proof it cannot check, told apart from nothing (docs/decisions.md §17.9)', async () => {
    const challenge = 'A'.repeat(43);
    const known = await fetch(`http://127.0.0.1:${stack.portA}/health`, { headers: { 'latch-challenge': challenge, 'latch-agent': 'shopper' } });
    const unknown = await fetch(`http://127.0.0.1:${stack.portA}/health`, { headers: { 'latch-challenge': challenge, 'latch-agent': 'ghost' } });
    const owner = await fetch(`http://127.0.0.1:${stack.portA}/health`, { headers: { 'latch-challenge': challenge } });
    assert.match(known.headers.get('latch-proof') ?? '', /^[A-Za-z0-9_-]{43}$/);
    // A decoy of the same form, so that names cannot be probed; it is not the proof a real agent gets.
    assert.match(unknown.headers.get('latch-proof') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(unknown.headers.get('latch-proof'), known.headers.get('latch-proof'));
    assert.notEqual(known.headers.get('latch-proof'), owner.headers.get('latch-proof'), 'the agent proof is keyed by the agent token');
  });

  const cliCases = [
    { name: '--agent flag', args: ['cards', '--agent', 'shopper', '--json'], env: {}, code: EXIT.ok },
    { name: 'LATCH_AGENT', args: ['cards', '--json'], env: { LATCH_AGENT: 'shopper' }, code: EXIT.ok },
    { name: 'owner-only surface', args: ['allocate', '--card', 'CARD', '--amount', '1.00', '--agent', 'shopper', '--json'], env: {}, code: 7, errorCode: 'agent_not_permitted' },
    { name: 'bad agent name', args: ['cards', '--agent', 'Not A Name'], env: {}, code: EXIT.usage },
  ];
  for (const { name, args, env, code, errorCode } of cliCases) {
    test(`CLI: ${name}`, async () => {
      const filled = args.map((arg) => (arg === 'CARD' ? stack.cards[0].card_id : arg));
      const result = await runLatch(filled, { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}`, ...env });
      assert.equal(result.code, code, result.stdout + result.stderr);
      if (errorCode !== undefined) assert.equal(JSON.parse(result.stdout).error.code, errorCode);
      for (const token of tokensSeen) assert.ok(!(result.stdout + result.stderr).includes(token));
    });
  }
});

describe('authorizations: each agent sees and cancels only its own', () => {
  test('list, get, cancel, filters: nothing of another agent leaks', async () => {
    addAgent(stack.home, 'buyer');
    const buyer = new JsonClient(`http://127.0.0.1:${stack.portA}`, () => agentToken('buyer'));
    const card = stack.cards[0].card_id;
    const mine = await shopper.post('/authorize', { card_id: card, amount: '1.50', merchant_name: 'list.example.com' });
    const theirs = await buyer.post('/authorize', { card_id: card, amount: '1.25', merchant_name: 'list.example.com' });
    assert.equal(mine.status, 200, mine.text);
    assert.equal(theirs.status, 200, theirs.text);
    const mineId = mine.body.policy_id as string;
    const theirId = theirs.body.policy_id as string;

    const shopperList = await shopper.get('/authorizations?limit=100');
    assert.equal(shopperList.status, 200, shopperList.text);
    const shopperIds = shopperList.body.authorizations.map((a: { policy_id: string }) => a.policy_id);
    assert.ok(shopperIds.includes(mineId));
    assert.ok(!shopperIds.includes(theirId));
    assert.ok(shopperList.body.authorizations.every((a: { agent: string }) => a.agent === 'shopper'));
    assert.equal(shopperList.body.authorizations[0].policy_id, mineId, 'newest first');
    assert.equal(shopperList.body.authorizations[0].status, 'active');

    const sneaky = await shopper.get('/authorizations?agent=buyer');
    assert.deepEqual(sneaky.body, { authorizations: [], has_more: false });
    for (const [method, target] of [['GET', `/authorizations/${theirId}`], ['POST', `/authorizations/${theirId}/cancel`]] as const) {
      const refused = await shopper.request(method, target, method === 'POST' ? {} : undefined);
      assert.equal(refused.status, 404, `${method} ${target}`);
      assert.equal(refused.body.error.code, 'authorization_not_found');
    }

    const ownerView = await stack.a.get('/authorizations?agent=buyer');
    assert.deepEqual(ownerView.body.authorizations.map((a: { policy_id: string; agent: string }) => [a.policy_id, a.agent]), [[theirId, 'buyer']]);
    const ownerGet = await stack.a.get(`/authorizations/${mineId}`);
    assert.equal(ownerGet.body.agent, 'shopper');

    const cancelled = await shopper.post(`/authorizations/${mineId}/cancel`, { reason: 'changed my mind' });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'revoked');
    const revoked = await shopper.get('/authorizations?status=revoked');
    assert.deepEqual(revoked.body.authorizations.map((a: { policy_id: string }) => a.policy_id), [mineId]);
    const stillActive = await stack.a.get(`/authorizations?status=active&agent=buyer`);
    assert.deepEqual(stillActive.body.authorizations.map((a: { policy_id: string }) => a.policy_id), [theirId]);
  });
});

describe('latch agent remove --revoke', () => {
  test('with the daemon down, the agent is not removed (exit 8)', async () => {
    addAgent(stack.home, 'stayer');
    const result = await runLatch(['agent', 'remove', 'stayer', '--revoke'], { LATCH_HOME: stack.home, LATCH_URL: 'http://127.0.0.1:1' });
    assert.equal(result.code, EXIT.daemonUnreachable, result.stderr);
    assert.doesNotThrow(() => readAgentToken(stack.home, 'stayer'), 'still there');
  });

  test("cancels the agent's active authorizations, then removes it", async () => {
    addAgent(stack.home, 'leaver');
    const leaver = new JsonClient(`http://127.0.0.1:${stack.portA}`, () => agentToken('leaver'));
    const made = await leaver.post('/authorize', { card_id: stack.cards[1].card_id, amount: '1.10', merchant_name: 'leave.example.com' });
    assert.equal(made.status, 200, made.text);
    const oldToken = agentToken('leaver');
    const result = await runLatch(['agent', 'remove', 'leaver', '--revoke'], { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` });
    assert.equal(result.code, EXIT.ok, result.stdout + result.stderr);
    assert.match(result.stdout, new RegExp(`Cancelled ${made.body.policy_id}`));
    // It says how many it revoked (issue 30 item 7).
    assert.match(result.stdout, /Removed agent leaver and revoked 1 active authorization it held\./);
    const after = await stack.a.get(`/authorizations/${made.body.policy_id}`);
    assert.equal(after.body.status, 'revoked');
    const refused = await new JsonClient(`http://127.0.0.1:${stack.portA}`, () => oldToken).get('/cards');
    assert.equal(refused.status, 401);
    // A removed agent's token is not told it is "not the daemon token": the message covers agents.
    assert.equal(refused.body.error.code, 'invalid_bearer_token');
    assert.doesNotMatch(refused.body.error.message, /not the daemon token/);
    assert.match(refused.body.error.message, /agent's token/);
  });

  test('--revoke --json lists what it revoked; with nothing held it says 0', async () => {
    addAgent(stack.home, 'idle');
    const result = await runLatch(['agent', 'remove', 'idle', '--revoke', '--json'], { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` });
    assert.equal(result.code, EXIT.ok, result.stdout + result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { agent: 'idle', removed: true, revoked: [], already_ended: [] });
    addAgent(stack.home, 'idle2');
    const human = await runLatch(['agent', 'remove', 'idle2', '--revoke'], { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` });
    assert.match(human.stdout, /revoked 0 active authorizations/);
  });
});

test('no token, owner or agent, appears in the log or the audit log', () => {
  tokensSeen.add(stack.token());
  const audit = readFileSync(path.join(stack.home, 'audit.log'), 'utf8');
  assert.ok(tokensSeen.size >= 4);
  for (const token of tokensSeen) {
    assert.ok(!stack.logs().includes(token), 'a token in the daemon log');
    assert.ok(!audit.includes(token), 'a token in the audit log');
  }
});
