/**
 * Who may call what, on both listeners, with a credential list that holds an agent's token
 * beside the daemon token: an agent on every owner-only route is 403 agent_not_permitted and
 * reaches no handler; on every other route it is admitted, and the core sees it as the caller.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Approval } from '../../src/core/approval.js';
import type { CoreOperations } from '../../src/core/operations.js';
import { OWNER, type Principal } from '../../src/core/principal.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { DEFAULT_POLICY } from '../../src/policy/policy-file.js';
import { createFrontDoor } from '../../src/http/front-door.js';
import { createLocalServer, type LocalServer } from '../../src/http/local-server.js';
import type { Route } from '../../src/http/route.js';
import { Router } from '../../src/http/router.js';
import { createLogger } from '../../src/log/logger.js';
import { variantARoutes } from '../../src/variant-a/routes.js';
import { variantBRoutes } from '../../src/variant-b/routes.js';

const OWNER_TOKEN = 'O'.repeat(43);
const AGENT_TOKEN = 'G'.repeat(43);
const SHOPPER: Principal = { kind: 'agent', name: 'shopper' };
const NOW = 1_800_000_000;

const card = { cardId: 'card_a', label: 'A', last4: '4242', status: 'active', balanceMinor: 100, heldMinor: 0, availableMinor: 100, currency: 'USD', dailyLimitMinor: 100, dailySpentMinor: 0 } as const;
const authorization = {
  policyId: 'pw_a', cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 100, currency: 'USD', authorizationType: 'exact', kind: 'one_time',
  notBefore: NOW, expiresAt: NOW + 60, status: 'active', createdAt: NOW, transactionId: 'tx_a', recurring: null,
} as const;
const payload = {
  v: 1, typ: 'card_policy_window', policy_id: 'pw_a', device_id: 'dev_a', merchant: 'shop.example.com', amount: '1.00', currency: 'USD',
  authorization_type: 'exact', kind: 'one_time', not_before: NOW, not_after: NOW + 60, nonce: 'n', iat: NOW,
} as const;
const approval: Approval = {
  id: 'ap_abc123', status: 'pending_approval', principal: { kind: 'agent', name: 'shopper' },
  request: { kind: 'one_time', cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 100, currency: 'USD', authorizationType: 'exact', ttlSeconds: 60 },
  rule: 'large', reasons: ['amount at least 0.50'], createdAtSeconds: NOW, expiresAtSeconds: NOW + 900, decidedAtSeconds: null, reason: null,
  authorization: null, window: null, error: null, requestSha256: '0'.repeat(64), idempotencyKey: 'k', callerKey: false, fingerprintSha256: '0'.repeat(64),
};
const transaction = { id: 'tx_a', cardId: 'card_a', amountMinor: 100, currency: 'USD', merchant: 'shop.example.com', status: 'settled', createdAt: NOW, policyId: 'pw_a', declineCode: null } as const;

/** fakeOperations answers every core operation with a model value and records who called it. */
function fakeOperations(callers: Principal[]): CoreOperations {
  const seen = <T>(value: T) => (...args: unknown[]) => {
    const context = args[args.length - 1] as { principal: Principal };
    callers.push(context.principal);
    return Promise.resolve(value);
  };
  return {
    requestAuthorization: seen({ outcome: 'created' as const, authorization, window: { payload, jws: 'a.b.c', keyId: 'k' } }),
    signCardWindow: seen({ payload, jws: 'a.b.c', keyId: 'k' }),
    signAccountWindow: seen({ payload: { ...payload, typ: 'policy_window' as const }, jws: 'a.b.c', keyId: 'k' }),
    signRevocation: seen({ payload: { v: 1 as const, typ: 'revocation' as const, policy_id: 'pw_a', device_id: 'dev_a', nonce: 'n', iat: NOW }, jws: 'a.b.c', keyId: 'k' }),
    listCards: seen([card]),
    getCard: seen(card),
    listTransactions: seen({ transactions: [transaction], hasMore: false }),
    getTransaction: seen({ ...transaction, policyWindow: null }),
    getWallet: seen({ usdtMinor: 100, allocatedMinor: 0, availableMinor: 100 }),
    allocate: seen({ cardId: 'card_a', allocatedMinor: 100, newBalanceMinor: 200 }),
  };
}

/** seenCall records the caller of a listing operation and answers with value. */
function seenCall<T>(callers: Principal[], args: unknown[], value: T): Promise<T> {
  callers.push((args[args.length - 1] as { principal: Principal }).principal);
  return Promise.resolve(value);
}

/** A request that passes validation on each route, by `METHOD pattern`. */
const REQUESTS: Record<string, { path: string; body?: unknown }> = {
  'POST /authorize': { path: '/authorize', body: { card_id: 'card_a', amount: 1, merchant_name: 'shop.example.com' } },
  'GET /approvals': { path: '/approvals' },
  'GET /approvals/:approval_id': { path: '/approvals/ap_abc123' },
  'POST /approvals/:approval_id/approve': { path: '/approvals/ap_abc123/approve', body: {} },
  'POST /approvals/:approval_id/deny': { path: '/approvals/ap_abc123/deny', body: {} },
  'GET /authorizations': { path: '/authorizations' },
  'GET /authorizations/:policy_id': { path: '/authorizations/pw_abc123' },
  'POST /authorizations/:policy_id/cancel': { path: '/authorizations/pw_abc123/cancel', body: {} },
  'GET /authorizations/:policy_id/evidence': { path: '/authorizations/pw_abc123/evidence' },
  'GET /cards': { path: '/cards' },
  'GET /cards/:card_id': { path: '/cards/card_a' },
  'GET /health': { path: '/health' },
  'GET /policy': { path: '/policy' },
  'POST /policy/check': { path: '/policy/check', body: { card_id: 'card_a', amount: 1, merchant_name: 'shop.example.com', kind: 'recurring', interval: 'month' } },
  'POST /merchant-bind': { path: '/merchant-bind', body: { card_id: 'card_a', merchant_name: 'shop.example.com' } },
  'POST /recurring': { path: '/recurring', body: { card_id: 'card_a', merchant_name: 'shop.example.com', amount: 1, interval: 'month' } },
  'POST /sign-card-policy-window': { path: '/sign-card-policy-window', body: { card_id: 'card_a', amount: 1, merchant_name: 'shop.example.com' } },
  'POST /sign-policy-window': { path: '/sign-policy-window', body: { amount: 1, merchant_name: 'shop.example.com' } },
  'POST /sign-revocation': { path: '/sign-revocation', body: { policy_id: 'pw_abc123' } },
  'GET /transactions': { path: '/transactions' },
  'GET /transactions/:tx_id': { path: '/transactions/tx_a' },
  '* /v1/*': { path: '/v1/wallet' },
  'POST /wallet/allocate': { path: '/wallet/allocate', body: { card_id: 'card_a', amount: 1 } },
  'GET /wallet/balance': { path: '/wallet/balance' },
  'GET /web-bot-auth/directory': { path: '/web-bot-auth/directory' },
  'POST /web-bot-auth/sign': { path: '/web-bot-auth/sign', body: { method: 'GET', url: 'https://shop.example.com/' } },
};

/** B's /authorize names its fields differently. */
const REQUESTS_B: Record<string, { path: string; body?: unknown }> = {
  ...REQUESTS,
  'POST /authorize': { path: '/authorize', body: { card_id: 'card_a', amount: 1, merchant: 'shop.example.com' } },
};

/** The owner-only routes of docs/decisions.md §15.1, per listener. */
const OWNER_ONLY = {
  a: ['* /v1/*', 'GET /policy', 'POST /approvals/:approval_id/approve', 'POST /approvals/:approval_id/deny', 'POST /sign-card-policy-window', 'POST /sign-policy-window', 'POST /sign-revocation', 'POST /wallet/allocate'],
  b: ['POST /wallet/allocate'],
};

function tablesWith(callers: Principal[]): { a: Route[]; b: Route[] } {
  const operations = fakeOperations(callers);
  return {
    a: variantARoutes({
      operations,
      authorizations: {
        listAuthorizations: (...args: unknown[]) => seenCall(callers, args, { authorizations: [{ authorization, agent: 'shopper' }], hasMore: false }),
        getAuthorization: (...args: unknown[]) => seenCall(callers, args, { authorization, agent: 'shopper' }),
        cancelAuthorization: (...args: unknown[]) => seenCall(callers, args, { authorization: { ...authorization, status: 'revoked' as const }, agent: 'shopper' }),
      },
      approvals: {
        listApprovals: (...args: unknown[]) => seenCall(callers, args, { approvals: [], hasMore: false }),
        getApproval: (...args: unknown[]) => seenCall(callers, args, approval),
        approve: (...args: unknown[]) => seenCall(callers, args, { ...approval, status: 'denied' as const }),
        deny: (...args: unknown[]) => seenCall(callers, args, { ...approval, status: 'denied' as const }),
      },
      evidence: { exportEvidence: (...args: unknown[]) => seenCall(callers, args, '{}\n') },
      health: () => ({ version: '0.0.0', uptimeSeconds: 1, signingKey: null, paused: null, cloudClockSkewSeconds: null, approvalsLockedSeconds: 0 }),
      policy: {
        effective: () => DEFAULT_POLICY,
        // The policy sees whom the check is for; an agent's check is always for itself.
        check: (_request, agent) => {
          callers.push(agent === 'owner' ? OWNER : { kind: 'agent', name: agent });
          return { decision: 'allow', rule: 'default', reasons: [], budgets: [] };
        },
      },
      proxyUpstream: () => {
        throw new LatchError('device_not_enrolled');
      },
      identity: {
        signWebRequest: (_request, caller) => {
          callers.push(caller.principal);
          return Promise.resolve({ headers: { 'signature-input': 'sig1=()', signature: 'sig1=::' }, keyId: 'k', created: NOW, expires: NOW + 60 });
        },
        directory: () => ({ body: new TextEncoder().encode('{"keys":[]}'), headers: { 'content-type': 'application/http-message-signatures-directory+json' } }),
      },
    }),
    b: variantBRoutes({ operations, health: () => ({ version: '0.0.0', uptimeSeconds: 1 }) }),
  };
}

const routeName = (route: Route) => `${route.method} ${route.pattern}`;

describe('route tables: declared access, order', () => {
  const tables = tablesWith([]);
  for (const [listener, routes] of Object.entries(tables)) {
    test(`Variant ${listener.toUpperCase()}: every route declares public, owner or agents`, () => {
      for (const route of routes) assert.ok(['public', 'owner', 'agents'].includes((route as { access?: unknown }).access as string), routeName(route));
    });
    test(`Variant ${listener.toUpperCase()}: the table is sorted by pattern, then method`, () => {
      const keys = routes.map((route) => [route.pattern, route.method] as const);
      const sorted = [...keys].sort((x, y) => (x[0] === y[0] ? (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0) : x[0] < y[0] ? -1 : 1));
      assert.deepEqual(keys, sorted);
    });
    test(`Variant ${listener.toUpperCase()}: the owner-only routes are exactly those of docs/decisions.md §15.1`, () => {
      assert.deepEqual(routes.filter((route) => route.access === 'owner').map(routeName).sort(), OWNER_ONLY[listener as 'a' | 'b']);
    });
  }
});

describe('an agent token on both listeners', () => {
  const callers: Principal[] = [];
  const servers: Record<string, { server: LocalServer; port: number; routes: Route[] }> = {};

  before(async () => {
    const tables = tablesWith(callers);
    const log = createLogger({ level: 'silent' });
    const credentials = () => [
      { token: OWNER_TOKEN, principal: OWNER },
      { token: AGENT_TOKEN, principal: SHOPPER },
    ];
    for (const [listener, routes] of Object.entries(tables)) {
      const frontDoor = createFrontDoor({ listener, router: new Router(routes), credentials, log });
      const server = createLocalServer({ listener, port: 0, frontDoor, log });
      servers[listener] = { server, port: await server.listen(), routes };
    }
  });
  after(async () => {
    for (const { server } of Object.values(servers)) await server.close(0);
  });

  const call = async (listener: string, route: Route, token: string) => {
    const { port } = servers[listener] as { port: number };
    const request = (listener === 'b' ? REQUESTS_B : REQUESTS)[routeName(route)];
    assert.ok(request !== undefined, `a request for ${routeName(route)}`);
    const method = route.method === '*' ? 'GET' : route.method;
    const response = await fetch(`http://127.0.0.1:${port}${request.path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(request.body !== undefined && { 'content-type': 'application/json' }) },
      ...(request.body !== undefined && { body: JSON.stringify(request.body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  for (const listener of ['a', 'b'] as const) {
    for (const route of tablesWith([])[listener]) {
      const name = `${listener.toUpperCase()} ${routeName(route)}`;
      if (route.access === 'owner') {
        test(`${name}: the agent gets 403 agent_not_permitted and reaches no handler; the owner passes`, async () => {
          callers.length = 0;
          const refused = await call(listener, route, AGENT_TOKEN);
          assert.equal(refused.status, 403);
          assert.equal(refused.body['error']?.code, 'agent_not_permitted');
          assert.deepEqual(callers, []);
          const owner = await call(listener, route, OWNER_TOKEN);
          assert.notEqual(owner.body['error']?.code, 'agent_not_permitted');
          assert.ok(owner.status === 200 || owner.body['error']?.code === 'device_not_enrolled', `${name}: ${JSON.stringify(owner.body)}`);
        });
      } else {
        test(`${name}: the agent is admitted, and the core sees the agent as the caller`, async () => {
          callers.length = 0;
          const admitted = await call(listener, route, AGENT_TOKEN);
          assert.equal(admitted.status, 200, `${name}: ${JSON.stringify(admitted.body)}`);
          const expected = route.access === 'public' || route.pattern === '/health' ? [] : [SHOPPER];
          assert.deepEqual(callers, expected);
        });
      }
    }
  }

  test('a token that is neither the owner nor an agent is 401 invalid_bearer_token', async () => {
    const route = tablesWith([]).a.find((candidate) => candidate.pattern === '/cards') as Route;
    const answer = await call('a', route, 'X'.repeat(43));
    assert.equal(answer.status, 401);
    assert.equal(answer.body['error']?.code, 'invalid_bearer_token');
  });
});
