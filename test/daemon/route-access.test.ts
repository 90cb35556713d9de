/**
 * Who may call what, on every listener (A, B and the owner console), derived from the route tables:
 * for every principal (an agent, the owner's token, an owner session, a console session, a console
 * session with presence) every route is reached or refused exactly as its access says, by the one
 * front door (docs/decisions.md §29.2). With a credential list that holds an agent's token beside
 * the daemon token, the core sees the agent as the caller wherever it is admitted.
 */
import type { AuthorizationEntry } from '../../src/core/authorization-ledger.js';
import { noPresenceFactor, passphrasePresence } from '../support/owner-presence.js';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Approval } from '../../src/core/approval.js';
import type { CoreOperations } from '../../src/operations/operations.js';
import { OWNER, type Principal } from '../../src/core/principal.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { DEFAULT_POLICY } from '../../src/policy/policy-file.js';
import { createFrontDoor } from '../../src/http/front-door.js';
import { createLocalServer, type LocalServer } from '../../src/http/local-server.js';
import type { Route } from '../../src/http/route.js';
import type { OwnerOperations } from '../../src/variant-a/owner-routes.js';
import type { OwnerPresence } from '../../src/owner/owner-presence.js';
import { Router } from '../../src/http/router.js';
import { createLogger } from '../../src/log/logger.js';
import { variantARoutes } from '../../src/variant-a/routes.js';
import { variantBRoutes } from '../../src/variant-b/routes.js';
import { signingProxyRoutes } from '../../src/proxy/signing-proxy.js';
import { CONSOLE_A_ROUTES, consoleTable } from '../../src/console/console-table.js';
import type { ConsoleDeps } from '../../src/console/console-deps.js';
import { createConsoleSessions } from '../../src/console/console-sessions.js';
import { CONSOLE_SECURITY_HEADERS, consoleOrigin, cookieValues } from '../../src/console/console-headers.js';
import { errorCode, sendRaw } from '../http/raw-client.js';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../support/paths.js';

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
/** An x402 ledger entry the fake x402 operations answer with. */
const X402_ENTRY: AuthorizationEntry = {
  policyId: 'xa_a', agent: 'shopper', cardId: null, merchant: 'api.example.com', currency: 'USD', amountMinor: 1, kind: 'x402', authorizationType: 'exact',
  signedAtSeconds: NOW, notAfterSeconds: NOW + 120, state: 'active', usedMinor: null, jws: 'a.b.c',
  x402: {
    state: 'authorized', requirements: { scheme: 'exact', network: 'eip155:84532', amount: '10000', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C', maxTimeoutSeconds: 60 },
    requirementsSha256: '0'.repeat(64), resource: { url: 'https://api.example.com/data' }, reference: null, symbol: 'USDC', decimals: 6, requestSha256: '0'.repeat(64), receivedAtSeconds: NOW,
    decision: { decision: 'allow', rule: null, reasons: [], policySha256: null }, approvalId: null, keyId: 'k', idempotency: null, payloadSha256: null, boundAtSeconds: null,
    report: null, reportedAtSeconds: null, settledMinor: null, endedAtSeconds: null,
  },
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
  ...proxyRequests(),
  'POST /console/login-code': { path: '/console/login-code', body: {} },
  'GET /agents': { path: '/agents' },
  'GET /audit': { path: '/audit' },
  'GET /audit/verify': { path: '/audit/verify' },
  'POST /agents': { path: '/agents', body: { name: 'helper' } },
  'DELETE /agents/:name': { path: '/agents/helper' },
  'POST /agents/:name/rotate': { path: '/agents/helper/rotate', body: {} },
  'POST /owner/sessions': { path: '/owner/sessions', body: { passphrase: 'x' } },
  'DELETE /owner/sessions/current': { path: '/owner/sessions/current' },
  'POST /pause': { path: '/pause', body: {} },
  'POST /resume': { path: '/resume', body: {} },
  'PUT /policy': { path: '/policy', body: { v: 1, default: 'allow' } },
  'POST /wallet/allocate': { path: '/wallet/allocate', body: { card_id: 'card_a', amount: 1 } },
  'GET /wallet/balance': { path: '/wallet/balance' },
  'GET /web-bot-auth/directory': { path: '/web-bot-auth/directory' },
  'GET /web-bot-auth/keys/:name': { path: '/web-bot-auth/keys/helper' },
  'GET /ap2/jwks': { path: '/ap2/jwks' },
  'GET /ap2/mandates/:mandate_id/context': { path: '/ap2/mandates/md_a/context' },
  'POST /ap2/mandates': {
    path: '/ap2/mandates',
    body: {
      card_id: 'card_a',
      merchant: { name: 'Shop', website: 'https://shop.example.com' },
      amount_max: '1.00',
      items: [{ id: 'sku-1', title: 'Mug' }],
      agent_key: { kty: 'EC', crv: 'P-256', x: 'Y-j5IHETcpmQLoKziufmv18L5_5Iq9myQtNsiSG0gxg', y: 'lPoEalpMx0El1x3uKYcqJPb2LCQoa7Th6XtzdfHr1n0' },
    },
  },
  'POST /web-bot-auth/sign': { path: '/web-bot-auth/sign', body: { method: 'GET', url: 'https://shop.example.com/' } },
  'GET /x402/assets': { path: '/x402/assets' },
  'POST /x402/authorize': {
    path: '/x402/authorize',
    body: {
      x402_version: 2,
      resource: { url: 'https://api.example.com/data' },
      requirements: { scheme: 'exact', network: 'eip155:84532', amount: '10000', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C', maxTimeoutSeconds: 60 },
    },
  },
  'POST /x402/authorizations/:authorization_id/payload': { path: '/x402/authorizations/xa_abc123/payload', body: { accepted: {}, payload_sha256: 'a'.repeat(64) } },
  'POST /x402/authorizations/:authorization_id/release': { path: '/x402/authorizations/xa_abc123/release', body: {} },
  'POST /x402/authorizations/:authorization_id/settlement': { path: '/x402/authorizations/xa_abc123/settlement', body: { outcome: 'transport_error' } },
};

/** A request for each route of the /v1 proxy, from its one table; the catch-all refuses what no row names. */
function proxyRequests(): Record<string, { path: string; body?: unknown }> {
  const requests: Record<string, { path: string; body?: unknown }> = {};
  for (const route of signingProxyRoutes(() => { throw new Error('not called'); })) {
    const path = route.pattern === '/v1/*' ? '/v1/nothing' : route.pattern.replace(':policy_id', 'pw_a').replace(':card_id', 'card_a').replace(':transaction_id', 'tx_a');
    requests[`${route.method} ${route.pattern}`] = route.method === 'POST' ? { path, body: { jws: 'a.b.c' } } : { path };
  }
  return requests;
}

/** B's /authorize names its fields differently. */
const REQUESTS_B: Record<string, { path: string; body?: unknown }> = {
  ...REQUESTS,
  'POST /authorize': { path: '/authorize', body: { card_id: 'card_a', amount: 1, merchant: 'shop.example.com' } },
};

/** The owner-only routes of owner-control §1 that only stop money or read (owner-presence §1: 'owner'), per listener. */
const OWNER_ONLY = {
  a: ['DELETE /owner/sessions/current', 'GET /agents', 'GET /audit', 'GET /audit/verify', 'GET /policy', 'POST /approvals/:approval_id/deny', 'POST /console/login-code', 'POST /pause', 'POST /sign-revocation', 'GET /web-bot-auth/keys/:name', ...proxyNames('owner')].sort(),
  b: [] as string[],
};

/** The proxy's routes of one access level: its reads and revocations are 'owner', the rest 'owner_present'. */
function proxyNames(access: Route['access']): string[] {
  return signingProxyRoutes(() => { throw new Error('not called'); }).filter((route) => route.access === access).map((route) => `${route.method} ${route.pattern}`);
}

/** The routes that need the owner's presence once a factor is configured (owner-presence §1), per listener. */
const OWNER_PRESENT = {
  a: [
    'DELETE /agents/:name',
    'POST /agents',
    'POST /agents/:name/rotate',
    'POST /approvals/:approval_id/approve',
    'POST /resume',
    'POST /sign-card-policy-window',
    'POST /sign-policy-window',
    'POST /wallet/allocate',
    'PUT /policy',
    ...proxyNames('owner_present'),
  ].sort(),
  b: ['POST /wallet/allocate'],
};

/** fakeOwner answers the owner routes and records who called them (a session opens with no caller). */
function fakeOwner(callers: Principal[], presence?: OwnerPresence): OwnerOperations {
  const agent = { name: 'helper', createdAt: new Date(NOW * 1000), lastUsedAt: null, identityKeyId: null };
  return {
    openSession: async (passphrase) => (presence === undefined ? { token: 'los_fake', expiresAtSeconds: NOW + 300 } : presence.openSession(passphrase)),
    pause: (...args: unknown[]) => seenCall(callers, args, { since: '2027-01-15T08:00:00Z', reason: null }),
    resume: (...args: unknown[]) => seenCall(callers, args, true),
    replacePolicy: (...args: unknown[]) => seenCall(callers, args, { sha256: '0'.repeat(64), previousSha256: null, warnings: [] }),
    addAgent: (...args: unknown[]) => seenCall(callers, args, { agent, token: 'T'.repeat(43) }),
    listAgents: () => {
      callers.push(OWNER);
      return [agent];
    },
    rotateAgent: (...args: unknown[]) => seenCall(callers, args, { agent, token: 'T'.repeat(43) }),
    removeAgent: (...args: unknown[]) => seenCall(callers, args, undefined),
  };
}

function tablesWith(callers: Principal[], presence?: OwnerPresence): { a: Route[]; b: Route[] } {
  const operations = fakeOperations(callers);
  return {
    a: variantARoutes({
      operations,
      consoleLoginLink: () => {
        callers.push(OWNER);
        return { url: 'http://localhost:7724/login#code', expires_at: '2026-01-01T00:00:00Z' };
      },
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
      health: () => ({ version: '0.0.0', uptimeSeconds: 1, signingKey: null, paused: null, cloudClockSkewSeconds: null, ownerPresence: 'none', approvalsLockedSeconds: 0 }),
      policy: {
        effective: () => DEFAULT_POLICY,
        // The policy sees whom the check is for; an agent's check is always for itself.
        check: (_request, agent) => {
          callers.push(agent === 'owner' ? OWNER : { kind: 'agent', name: agent });
          return { decision: 'allow', rule: 'default', reasons: [], budgets: [] };
        },
      },
      owner: fakeOwner(callers, presence),
      proxyUpstream: () => {
        throw new LatchError('device_not_enrolled');
      },
      identity: {
        signWebRequest: (_request, caller) => {
          callers.push(caller.principal);
          return Promise.resolve({ headers: { 'signature-input': 'sig1=()', signature: 'sig1=::' }, keyId: 'k', created: NOW, expires: NOW + 60 });
        },
        directory: () => ({ body: new TextEncoder().encode('{"keys":[]}'), headers: { 'content-type': 'application/http-message-signatures-directory+json' } }),
        publicKey: (holder) => {
          callers.push(OWNER);
          return { holder, keyId: 'k', jwk: { kty: 'OKP', crv: 'Ed25519', kid: 'k', x: 'x', use: 'sig' } };
        },
      },
      audit: {
        recent: () => {
          callers.push(OWNER);
          return [];
        },
        verify: () => {
          callers.push(OWNER);
          return { ok: true, lines: 0 };
        },
      },
      x402: {
        assets: (context) => {
          callers.push(context.principal);
          return [];
        },
        authorize: (_input, context) => {
          callers.push(context.principal);
          return Promise.resolve({ outcome: 'authorized' as const, entry: X402_ENTRY });
        },
        bind: (_id, _accepted, _sha, context) => {
          callers.push(context.principal);
          return Promise.resolve(X402_ENTRY);
        },
        report: (_id, _report, context) => {
          callers.push(context.principal);
          return Promise.resolve(X402_ENTRY);
        },
        release: (_id, context) => {
          callers.push(context.principal);
          return Promise.resolve(X402_ENTRY);
        },
      },
      ap2: {
        jwks: () => ({ keys: [] }),
        requestMandates: (_request, context) => {
          callers.push(context.principal);
          const mandates = { mandateId: 'md_a', openCheckoutMandate: 'a~', openPaymentMandate: 'b~', openCheckoutHash: 'h', keyId: 'k', iat: NOW, exp: NOW + 600 };
          return Promise.resolve({ outcome: 'created' as const, authorization: { ...authorization, policyId: 'pw_a' }, mandates });
        },
        mandateContext: (mandateId, context) => {
          callers.push(context.principal);
          return Promise.resolve({ mandateId, policyId: 'pw_a', totalMinor: 0, currency: 'USD', occurrences: 0, lastAtSeconds: null });
        },
      },
    }),
    b: variantBRoutes({ operations, health: () => ({ version: '0.0.0', uptimeSeconds: 1 }) }),
  };
}

const routeName = (route: Route) => `${route.method} ${route.pattern}`;

/**
 * consoleCallsOfA reads every `api('METHOD', '/a/...' ...)` call in the console's script and names
 * it `METHOD /pattern`, each concatenated expression standing for one `:param` and the query cut.
 */
function consoleCallsOfA(script: string): string[] {
  const calls: string[] = [];
  const start = /api\('([A-Z]+)',\s*'\/a\//g;
  for (let found = start.exec(script); found !== null; found = start.exec(script)) {
    let index = found.index + found[0].length - "'/a/".length; // at the opening quote of the path
    let path = '';
    let depth = 0;
    // Literals are kept; anything between `+` signs outside a literal is one parameter.
    while (index < script.length) {
      const char = script[index] as string;
      if (char === "'") {
        const close = script.indexOf("'", index + 1);
        path += script.slice(index + 1, close);
        index = close + 1;
      } else if (depth === 0 && (char === ',' || char === ')')) {
        break;
      } else if (char === '+' || char === ' ') {
        index += 1;
      } else {
        // An expression: read to the next `+`, `,` or `)` at its own depth.
        while (index < script.length) {
          const inner = script[index] as string;
          if (inner === '(') depth += 1;
          else if (inner === ')') {
            if (depth === 0) break;
            depth -= 1;
          } else if (depth === 0 && (inner === '+' || inner === ',')) break;
          index += 1;
        }
        path += ':param';
      }
    }
    calls.push(`${found[1]} ${path.replace(/\?.*$/, '').replace(/^\/a/, '')}`);
  }
  return calls;
}

describe('route tables: declared access, order', () => {
  const tables = tablesWith([]);
  for (const [listener, routes] of Object.entries(tables)) {
    test(`Variant ${listener.toUpperCase()}: every route declares public, agents, owner or owner_present`, () => {
      for (const route of routes) assert.ok(['public', 'agents', 'owner', 'owner_present'].includes((route as { access?: unknown }).access as string), routeName(route));
    });
    test(`Variant ${listener.toUpperCase()}: the table is sorted by pattern, then method`, () => {
      const keys = routes.map((route) => [route.pattern, route.method] as const);
      const sorted = [...keys].sort((x, y) => (x[0] === y[0] ? (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0) : x[0] < y[0] ? -1 : 1));
      assert.deepEqual(keys, sorted);
    });
    test(`Variant ${listener.toUpperCase()}: the owner-only routes are exactly those of owner-control §1 that only stop money or read`, () => {
      assert.deepEqual(routes.filter((route) => route.access === 'owner').map(routeName).sort(), OWNER_ONLY[listener as 'a' | 'b']);
    });
    test(`Variant ${listener.toUpperCase()}: the owner_present routes are exactly those of owner-presence §1`, () => {
      assert.deepEqual(routes.filter((route) => route.access === 'owner_present').map(routeName).sort(), OWNER_PRESENT[listener as 'a' | 'b']);
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
      const frontDoor = createFrontDoor({ listener, router: new Router(routes), credentials, presence: noPresenceFactor(), log });
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
    const text = await response.text();
    return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, any> };
  };

  for (const listener of ['a', 'b'] as const) {
    for (const route of tablesWith([])[listener]) {
      const name = `${listener.toUpperCase()} ${routeName(route)}`;
      if (route.access === 'owner' || route.access === 'owner_present') {
        test(`${name}: the agent gets 403 agent_not_permitted and reaches no handler; the owner passes`, async () => {
          callers.length = 0;
          const refused = await call(listener, route, AGENT_TOKEN);
          assert.equal(refused.status, 403);
          // A HEAD answer has no body to name the code.
          if (route.method !== 'HEAD') assert.equal(refused.body['error']?.code, 'agent_not_permitted');
          assert.deepEqual(callers, []);
          const owner = await call(listener, route, OWNER_TOKEN);
          if (route.method === 'HEAD') return assert.equal(owner.status, 409, 'the owner reaches the proxy (device_not_enrolled)');
          assert.notEqual(owner.body['error']?.code, 'agent_not_permitted');
          // Admitted: an answer of the handler (the proxy's device_not_enrolled, DELETE /owner/sessions/current's not_found without a session).
          assert.ok((owner.status >= 200 && owner.status < 300) || ['device_not_enrolled', 'not_found', 'proxy_route_not_allowed'].includes(owner.body['error']?.code), `${name}: ${owner.status} ${JSON.stringify(owner.body)}`);
        });
      } else {
        test(`${name}: the agent is admitted, and the core sees the agent as the caller`, async () => {
          callers.length = 0;
          const admitted = await call(listener, route, AGENT_TOKEN);
          assert.ok(admitted.status >= 200 && admitted.status < 300, `${name}: ${JSON.stringify(admitted.body)}`);
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

describe('owner presence on both listeners, with a passphrase configured (owner-presence §1, §2)', () => {
  const PASSPHRASE = 'correct horse battery staple';
  const callers: Principal[] = [];
  const servers: Record<string, { server: LocalServer; port: number }> = {};
  const { presence } = passphrasePresence(PASSPHRASE);

  before(async () => {
    const tables = tablesWith(callers, presence);
    const log = createLogger({ level: 'silent' });
    const credentials = () => [
      { token: OWNER_TOKEN, principal: OWNER },
      { token: AGENT_TOKEN, principal: SHOPPER },
    ];
    for (const [listener, routes] of Object.entries(tables)) {
      const frontDoor = createFrontDoor({ listener, router: new Router(routes), credentials, presence, log });
      const server = createLocalServer({ listener, port: 0, frontDoor, log });
      servers[listener] = { server, port: await server.listen() };
    }
  });
  after(async () => {
    for (const { server } of Object.values(servers)) await server.close(0);
  });

  const send = async (listener: string, route: Route, headers: Record<string, string>, extraBody: Record<string, unknown> = {}) => {
    const { port } = servers[listener] as { port: number };
    const request = (listener === 'b' ? REQUESTS_B : REQUESTS)[routeName(route)];
    assert.ok(request !== undefined, `a request for ${routeName(route)}`);
    const body = request.body === undefined ? (Object.keys(extraBody).length > 0 ? extraBody : undefined) : { ...(request.body as object), ...extraBody };
    const response = await fetch(`http://127.0.0.1:${port}${request.path}`, {
      method: route.method,
      headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, code: text === '' ? undefined : (JSON.parse(text) as { error?: { code?: string } }).error?.code };
  };
  const admitted = (answer: { status: number; code: string | undefined }) => (answer.status >= 200 && answer.status < 300) || answer.code === 'device_not_enrolled';

  test('POST /owner/sessions needs no token: a wrong passphrase is 401, the right one a los_ session of at most an hour', async () => {
    const { port } = servers['a'] as { port: number };
    const open = (passphrase: string) => fetch(`http://127.0.0.1:${port}/owner/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ passphrase }) });
    const wrong = await open('not the passphrase');
    assert.equal(wrong.status, 401);
    assert.ok(!(await wrong.text()).includes('not the passphrase'), 'the wrong passphrase is not echoed');
    const right = await open(PASSPHRASE);
    assert.equal(right.status, 201);
    const body = (await right.json()) as { token: string; expires_at: string };
    assert.match(body.token, /^los_[A-Za-z0-9_-]{43}$/);
    const seconds = (Date.parse(body.expires_at) - Date.now()) / 1000;
    assert.ok(seconds > 3500 && seconds <= 3601, `expires in ${seconds} s`);
  });

  for (const listener of ['a', 'b'] as const) {
    for (const route of tablesWith([])[listener].filter((candidate) => candidate.access === 'owner_present')) {
      const name = `${listener.toUpperCase()} ${routeName(route)}`;
      test(`${name}: the owner token alone is 403 owner_presence_required and reaches no handler; a session passes; the passphrase inline passes`, async () => {
        callers.length = 0;
        const alone = await send(listener, route, { authorization: `Bearer ${OWNER_TOKEN}` });
        assert.equal(alone.status, 403, alone.text);
        assert.equal(alone.code, 'owner_presence_required');
        assert.deepEqual(callers, [], 'no handler ran');
        const agent = await send(listener, route, { authorization: `Bearer ${AGENT_TOKEN}`, 'latch-owner-passphrase': PASSPHRASE });
        assert.equal(agent.code, 'agent_not_permitted', 'an agent stays refused even with the passphrase');

        const session = (await presence.openSession(PASSPHRASE)).token;
        const withSession = await send(listener, route, { authorization: `Bearer ${session}` });
        assert.ok(admitted(withSession), `${name} with a session: ${withSession.status} ${withSession.text}`);

        const inline = route.forwardsBody === true || route.method === 'PUT' || route.method === 'DELETE'
          ? await send(listener, route, { authorization: `Bearer ${OWNER_TOKEN}`, 'latch-owner-passphrase': PASSPHRASE })
          : await send(listener, route, { authorization: `Bearer ${OWNER_TOKEN}` }, { passphrase: PASSPHRASE });
        assert.ok(admitted(inline), `${name} with the passphrase inline: ${inline.status} ${inline.text}`);
        assert.ok(!inline.text.includes(PASSPHRASE) && !withSession.text.includes(session), 'no secret is echoed');
      });
    }
  }

  test('on the /v1 proxy a passphrase in the body is refused (it would travel to the cloud); the header is not forwarded', async () => {
    const route = tablesWith([]).a.find((candidate) => routeName(candidate) === 'POST /v1/wallet/allocate') as Route;
    const inBody = await send('a', route, { authorization: `Bearer ${OWNER_TOKEN}` }, { passphrase: PASSPHRASE });
    assert.equal(inBody.status, 400, inBody.text);
    assert.equal(inBody.code, 'invalid_request');
  });

  test('an owner session is no agent: the routes that stop money take it, and ending it makes the next use 401', async () => {
    const { port } = servers['a'] as { port: number };
    const session = (await presence.openSession(PASSPHRASE)).token;
    const auth = { authorization: `Bearer ${session}` };
    assert.equal((await fetch(`http://127.0.0.1:${port}/agents`, { headers: auth })).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${port}/owner/sessions/current`, { method: 'DELETE', headers: auth })).status, 204);
    const after = await fetch(`http://127.0.0.1:${port}/agents`, { headers: auth });
    assert.equal(after.status, 401);
    assert.equal(((await after.json()) as { error: { code: string } }).error.code, 'invalid_bearer_token');
    const forged = await fetch(`http://127.0.0.1:${port}/agents`, { headers: { authorization: `Bearer los_${'A'.repeat(43)}` } });
    assert.equal(forged.status, 401, 'a made-up session token is refused');
  });
});

/**
 * Every route of every listener, for every kind of caller, derived from the route tables the
 * daemon builds (docs/decisions.md §29.2): the one front door alone decides who reaches which
 * handler. Each handler is replaced by one that only records that it was reached, so what is
 * tested is the door, and a refused request must reach no handler at all.
 */
describe('every route on every listener for every principal', () => {
  const PASSPHRASE = 'correct horse battery staple';
  type Listener = 'a' | 'b' | 'console';
  type Caller = 'agent' | 'owner token' | 'owner session' | 'console session' | 'console session with presence';
  const CALLERS: readonly Caller[] = ['agent', 'owner token', 'owner session', 'console session', 'console session with presence'];
  const reached: string[] = [];
  const servers: Partial<Record<Listener, { server: LocalServer; port: number; routes: Route[] }>> = {};
  const { presence } = passphrasePresence(PASSPHRASE);
  const consoleSessions = createConsoleSessions();
  let ownerSessionToken = '';
  let consoleCookie = '';
  let consoleCsrf = '';

  /** recorded replaces each handler with one that notes its route and answers 299. */
  const recorded = (routes: readonly Route[]): Route[] =>
    routes.map((route) => ({
      ...route,
      handler: () => {
        reached.push(routeName(route));
        return { status: 299, body: { reached: routeName(route) } };
      },
    }));

  before(async () => {
    const log = createLogger({ level: 'silent' });
    const tables = tablesWith([], presence);
    const consolePort = { value: 0 };
    const consoleRoutesTable = consoleTable({ port: () => consolePort.value } as ConsoleDeps, tables.a);
    const credentials = () => [
      { token: OWNER_TOKEN, principal: OWNER },
      { token: AGENT_TOKEN, principal: SHOPPER },
    ];
    for (const [listener, routes] of [['a', tables.a], ['b', tables.b], ['console', consoleRoutesTable]] as const) {
      const table = recorded(routes);
      const frontDoor = createFrontDoor({
        listener,
        router: new Router(table),
        credentials: listener === 'console' ? () => [] : credentials,
        presence,
        log,
        ...(listener === 'console' && {
          browser: {
            origin: consoleOrigin,
            sessions: consoleSessions,
            cookieValues,
            provePasskey: () => Promise.reject(new LatchError('passkey_not_verified')),
            answerHeaders: CONSOLE_SECURITY_HEADERS,
          },
        }),
      });
      const server = createLocalServer({ listener, port: 0, frontDoor, log });
      const port = await server.listen();
      if (listener === 'console') consolePort.value = port;
      servers[listener] = { server, port, routes: table };
    }
    ownerSessionToken = (await presence.openSession(PASSPHRASE)).token;
    const login = consoleSessions.login(consoleSessions.issueCode().code);
    assert.ok(login !== undefined);
    consoleCookie = login.cookie;
    consoleCsrf = login.csrf;
  });
  after(async () => {
    for (const entry of Object.values(servers)) await entry?.server.close(0);
  });

  /** The credential headers of a caller. */
  function credentialHeaders(caller: Caller): Record<string, string> {
    switch (caller) {
      case 'agent':
        return { authorization: `Bearer ${AGENT_TOKEN}` };
      case 'owner token':
        return { authorization: `Bearer ${OWNER_TOKEN}` };
      case 'owner session':
        return { authorization: `Bearer ${ownerSessionToken}` };
      case 'console session':
        return { cookie: `__Host-latch_console=${consoleCookie}`, 'x-latch-csrf': consoleCsrf };
      case 'console session with presence':
        return {
          cookie: `__Host-latch_console=${consoleCookie}`,
          'x-latch-csrf': consoleCsrf,
          'latch-owner-presence': Buffer.from(JSON.stringify({ passphrase: PASSPHRASE })).toString('base64url'),
        };
    }
  }

  /** What the door must do: let the caller reach the route's handler, or refuse with this code. */
  function expected(listener: Listener, route: Route, caller: Caller): 'reached' | { status: number; code: string } {
    if (route.access === 'public') return 'reached';
    if (listener === 'console') {
      if (caller === 'console session with presence') return 'reached';
      if (caller !== 'console session') return { status: 401, code: 'console_login_required' };
      return route.access === 'owner_present' ? { status: 403, code: 'owner_presence_required' } : 'reached';
    }
    if (caller === 'console session' || caller === 'console session with presence') return { status: 401, code: 'missing_bearer_token' };
    if (caller === 'owner session') return 'reached';
    if (caller === 'agent') return route.access === 'agents' ? 'reached' : { status: 403, code: 'agent_not_permitted' };
    return route.access === 'owner_present' ? { status: 403, code: 'owner_presence_required' } : 'reached';
  }

  /** A path that matches the route's pattern. */
  const samplePath = (pattern: string): string =>
    pattern
      .split('/')
      .map((segment) => (segment === '*' ? 'nothing' : segment.startsWith(':') ? `${segment.slice(1).replace(/_id$/, '')}_abc` : segment))
      .join('/');

  test("no module calls a route's handler but the front door (the sandbox's server serves only the sandbox)", () => {
    const callers: string[] = [];
    const walk = (folder: string): void => {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        const full = path.join(folder, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith('.ts') && /\.handler\(|\.handler\.(?:call|apply)\(/.test(readFileSync(full, 'utf8'))) callers.push(path.relative(REPO_ROOT, full));
      }
    };
    walk(path.join(REPO_ROOT, 'src'));
    assert.deepEqual(callers.sort(), ['src/http/front-door.ts', 'src/sandbox/http/sandbox-server.ts']);
  });

  test("the console mounts exactly the routes of A its page calls (read from console.js), and no other", () => {
    const names = new Set((servers.console?.routes ?? []).map(routeName));
    const mounted = [...names].filter((name) => name.split(' ')[1]?.startsWith('/console/api/a/')).map((name) => name.replace(' /console/api/a/', ' /'));
    assert.deepEqual([...mounted].sort(), [...CONSOLE_A_ROUTES].sort(), 'the console mounts what CONSOLE_A_ROUTES names');
    // Each call console.js makes to /console/api/a, as `METHOD /pattern` with its parameters named like A's table.
    const called = consoleCallsOfA(readFileSync(path.join(REPO_ROOT, 'src/console/assets/console.js'), 'utf8'));
    const tablePatterns = new Map(CONSOLE_A_ROUTES.map((name) => [name.replace(/:[a-z_]+/g, ':param'), name]));
    const unknown = called.filter((call) => !tablePatterns.has(call));
    assert.deepEqual(unknown, [], 'console.js calls routes of A the console does not mount');
    assert.deepEqual([...new Set(called.map((call) => tablePatterns.get(call)))].sort(), [...CONSOLE_A_ROUTES].sort(), 'the console mounts a route of A its page never calls');
    for (const route of servers.a?.routes ?? []) {
      const name = `${route.method} /console/api/a${route.pattern}`;
      assert.equal(names.has(name), CONSOLE_A_ROUTES.includes(routeName(route)), `${routeName(route)} on the console`);
    }
    for (const refused of ['POST /owner/sessions', 'POST /authorize', 'POST /sign-card-policy-window', 'POST /sign-policy-window', 'POST /wallet/allocate', 'POST /console/login-code']) {
      assert.ok(!names.has(refused.replace(' /', ' /console/api/a/')), `${refused} is mounted on the console`);
    }
    assert.ok(![...names].some((name) => name.includes('/console/api/a/v1/')), 'the /v1 proxy is mounted on the console');
    assert.ok([...names].some((name) => name.startsWith('GET /console/api/') && !name.startsWith('GET /console/api/a/')), 'the console has its own routes');
    assert.ok(names.has('GET /approvals') && names.has('GET /assets/console.js'), 'the console has its pages');
  });

  test('POST /console/api/a/owner/sessions is refused: a console session cannot open an owner session (no los_ bearer for page scripts)', async () => {
    const entry = servers.console;
    assert.ok(entry !== undefined);
    reached.length = 0;
    const headers = { host: `localhost:${entry.port}`, origin: consoleOrigin(entry.port), 'content-type': 'application/json', ...credentialHeaders('console session with presence') };
    const answer = await sendRaw(entry.port, { method: 'POST', target: '/console/api/a/owner/sessions', headers: Object.entries(headers), body: JSON.stringify({ passphrase: PASSPHRASE }) });
    assert.equal(answer.status, 404, answer.body);
    assert.equal(errorCode(answer), 'not_found');
    assert.deepEqual(reached, []);
    assert.ok(!answer.body.includes('los_'));
  });

  for (const listener of ['a', 'b', 'console'] as const) {
    for (const caller of CALLERS) {
      test(`${listener === 'console' ? 'the console' : `Variant ${listener.toUpperCase()}`}, as ${caller}: every route is reached or refused exactly as its access says`, async () => {
        const entry = servers[listener];
        assert.ok(entry !== undefined && entry.routes.length > 0);
        const problems: string[] = [];
        for (const route of entry.routes) {
          const method = route.method === '*' ? 'GET' : route.method;
          const hasBody = method === 'POST' || method === 'PUT' || method === 'PATCH';
          const headers: Record<string, string> = {
            host: `${listener === 'console' ? 'localhost' : '127.0.0.1'}:${entry.port}`,
            ...credentialHeaders(caller),
            ...(listener === 'console' && method !== 'GET' && method !== 'HEAD' && { origin: consoleOrigin(entry.port) }),
            ...(hasBody && { 'content-type': 'application/json' }),
          };
          reached.length = 0;
          const answer = await sendRaw(entry.port, { method, target: samplePath(route.pattern), headers: Object.entries(headers), ...(hasBody && { body: '{}' }) });
          const want = expected(listener, route, caller);
          const name = `${routeName(route)} → ${answer.status} ${answer.body.slice(0, 160)}`;
          if (want === 'reached') {
            if (answer.status !== 299 || reached.length !== 1 || reached[0] !== routeName(route)) problems.push(`${name}: should reach its handler (reached ${JSON.stringify(reached)})`);
          } else {
            if (reached.length !== 0) problems.push(`${name}: reached ${JSON.stringify(reached)} though it should be refused`);
            if (answer.status !== want.status) problems.push(`${name}: should be ${want.status} ${want.code}`);
            else if (method !== 'HEAD' && errorCode(answer) !== want.code) problems.push(`${name}: should be ${want.code}`);
          }
        }
        assert.deepEqual(problems, []);
      });
    }
  }
});
