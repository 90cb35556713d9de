/**
 * The client module against the real daemon and sandbox: the retry-once of docs/decisions.md §10, proven by a token
 * rotated between two calls and by a token file that does not exist yet at the first call.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LatchClientError } from '../../src/client/client-errors.js';
import { LatchClient } from '../../src/client/latch-client.js';
import { isPendingApproval } from '../../src/client/pending-approval.js';
import type { Authorization, PendingApproval } from '../../src/client/types.js';
import { rotateToken, tokenPath } from '../../src/datadir/token.js';
import { CHALLENGE_HEADER, PROOF_HEADER, proofForRequest } from '../../src/http/daemon-proof.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let client: LatchClient;

/** authorized asserts that a call made an authorization: no policy here asks the owner. */
function authorized(result: Authorization | PendingApproval): Authorization {
  assert.ok(!isPendingApproval(result), 'no policy is set, so nothing waits for approval');
  return result;
}

before(async () => {
  stack = await startStack();
  client = new LatchClient({ home: stack.home, baseUrl: `http://127.0.0.1:${stack.portA}`, env: {} });
});
after(async () => {
  client.close();
  await stack.close();
});

/** bearerRefusals counts the daemon's 401 answers for a bearer code so far. */
function bearerRefusals(code: string): number {
  return stack
    .logs()
    .split('\n')
    .filter((line) => line.includes('"event":"request"') && line.includes('"status":401') && line.includes(`"code":"${code}"`)).length;
}

describe('retry once, against the daemon', () => {
  test('a token rotated (rotateToken) between two calls: the second call re-reads the file and succeeds', async () => {
    await client.cards();
    const refusedBefore = bearerRefusals('invalid_bearer_token');
    rotateToken(stack.home);
    const wallet = await client.wallet();
    assert.match(wallet.available, /^\d+\.\d{2}$/);
    assert.equal(bearerRefusals('invalid_bearer_token'), refusedBefore + 1, 'exactly one refusal, then success');
  });

  test('a token rotated with `latch token rotate` between two authorizations: the second is made once, with its own scope', async () => {
    const card = stack.cards[0].card_id;
    const first = authorized(await client.authorize({ card_id: card, amount: '3.00', merchant_name: 'one.example.com' }));
    const rotated = await runLatch(['token', 'rotate'], { LATCH_HOME: stack.home });
    assert.equal(rotated.code, 0);
    const refusedBefore = bearerRefusals('invalid_bearer_token');
    const second = authorized(await client.authorize({ card_id: card, amount: '4.00', merchant_name: 'two.example.com', ttl_minutes: 5 }));
    assert.equal(bearerRefusals('invalid_bearer_token'), refusedBefore + 1);
    assert.notEqual(second.policy_id, first.policy_id);
    assert.equal(second.amount, '4.00');
    assert.equal(second.merchant_name, 'two.example.com');
    const { transactions } = await client.transactions({ card_id: card });
    assert.equal(transactions.filter((t) => t.policy_id === second.policy_id).length, 1, 'the retried request had one effect');
  });

  test('a token file that does not exist at the first call: sent without a token, refused, read, retried once', async () => {
    // The client's data directory is empty until the forwarder sees the first request; then the
    // daemon's token appears there, as when a client starts before the daemon has created it.
    const clientHome = path.join(stack.root, 'late-home');
    mkdirSync(clientHome, { mode: 0o700 });
    const forwarder = await startForwarder(stack.portA, stack.token, () => copyFileSync(tokenPath(stack.home), tokenPath(clientHome)));
    const late = new LatchClient({ home: clientHome, baseUrl: forwarder.url, env: {} });
    try {
      const refusedBefore = bearerRefusals('missing_bearer_token');
      const { cards } = await late.cards();
      assert.equal(cards.length, 2);
      assert.equal(bearerRefusals('missing_bearer_token'), refusedBefore + 1);
      assert.deepEqual(forwarder.bearers, [false, true]);
    } finally {
      late.close();
      await forwarder.close();
      rmSync(clientHome, { recursive: true, force: true });
    }
  });

  test('a client of another data directory cannot verify the daemon: its token is never sent, and the remedy names the cause', async () => {
    const otherHome = path.join(stack.root, 'other-home');
    mkdirSync(otherHome, { mode: 0o700 });
    rotateToken(otherHome);
    const stranger = new LatchClient({ home: otherHome, baseUrl: `http://127.0.0.1:${stack.portA}`, env: {} });
    try {
      const refusedBefore = bearerRefusals('invalid_bearer_token');
      // The daemon proves it holds its own token, which is not the stranger's: the stranger sends nothing.
      await assert.rejects(stranger.cards(), (error: unknown) => error instanceof LatchClientError && error.code === 'daemon_not_verified' && /data directory/.test(error.remedy));
      assert.equal(bearerRefusals('invalid_bearer_token'), refusedBefore);
    } finally {
      stranger.close();
      rmSync(otherHome, { recursive: true, force: true });
    }
  });

  test('an agent token the daemon never made (made before the key was pinned, or by another daemon): daemon_not_verified says so, and nothing is sent', async () => {
    const ownHome = path.join(stack.root, 'owner-home-unknown-agent');
    mkdirSync(path.join(ownHome, 'agents'), { recursive: true, mode: 0o700 });
    writeFileSync(path.join(ownHome, 'agents', 'ghost.token'), `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
    const ghost = new LatchClient({ home: ownHome, baseUrl: `http://127.0.0.1:${stack.portA}`, env: {}, agent: 'ghost' });
    try {
      const refusedBefore = bearerRefusals('invalid_bearer_token');
      await assert.rejects(ghost.cards(), (error: unknown) => error instanceof LatchClientError && error.code === 'daemon_not_verified' && /does not know agent "ghost"/.test(error.message));
      assert.equal(bearerRefusals('invalid_bearer_token'), refusedBefore, 'the token was never sent');
    } finally {
      ghost.close();
      rmSync(ownHome, { recursive: true, force: true });
    }
  });
});

describe('client calls, against the daemon', () => {
  test('every Variant A endpoint answers in its documented shape, money as decimal strings', async () => {
    const card = stack.cards[1].card_id;
    const health = await client.health();
    assert.equal(health.status, 'ok');
    assert.ok(health.signing_key !== null);
    const detail = await client.card(card);
    assert.match(detail.daily_limit, /^\d+\.\d{2}$/);
    const bind = authorized(await client.merchantBind({ card_id: card, merchant_name: 'verify.example.com' }));
    assert.equal(bind.kind, 'merchant_verification');
    const recurring = authorized(await client.recurring({ card_id: card, merchant_name: 'video.example.com', amount: '9.99', interval: 'month' }));
    assert.equal(recurring.kind, 'recurring');
    const windowOnly = await client.signCardPolicyWindow({ card_id: card, merchant_name: 'shop.example.com', amount: 1.5 });
    assert.equal(windowOnly.policy_window['amount'], '1.50');
    const accountWindow = await client.signPolicyWindow({ merchant_name: 'shop.example.com', amount: '2.00' });
    assert.equal(typeof accountWindow.jws, 'string');
    const allocation = await client.allocate({ card_id: card, amount: '1.00' });
    assert.equal(allocation.allocated, '1.00');
    const cancelled = await client.revoke({ policy_id: recurring.policy_id, reason: 'user cancelled' });
    assert.equal(cancelled.status, 'revoked');
    assert.equal(cancelled.policy_id, recurring.policy_id);
    assert.equal(cancelled.agent, 'owner');
    const page = await client.transactions({ limit: 1 });
    assert.equal(page.transactions.length, 1);
    const one = await client.transaction(page.transactions[0]?.id ?? '');
    assert.ok('policy_window' in one);
    const raw = await client.proxy('GET', '/v1/wallet');
    assert.equal(raw.status, 200);
  });

  test('a refusal is a typed error with the table\'s remedy, and nothing is widened', async () => {
    const card = stack.cards[0].card_id;
    const before = (await client.transactions({ card_id: card, limit: 100 })).transactions.length;
    await assert.rejects(
      client.authorize({ card_id: card, amount: '9999.00', merchant_name: 'shop.example.com' }),
      (error: unknown) => error instanceof LatchClientError && error.code === 'insufficient_funds' && error.status === 402 && /Ask the user/.test(error.remedy),
    );
    const afterward = (await client.transactions({ card_id: card, limit: 100 })).transactions.length;
    assert.equal(afterward, before, 'no other authorization was attempted');
  });
});

/** startForwarder relays requests to the daemon's A port, running onFirst before relaying the first one. */
/**
 * startForwarder relays requests to the daemon. A relay at another address is exactly what the
 * daemon proof defeats, so this test stand-in holds the daemon's token and answers the identity
 * check itself, for its own address, as the daemon would; those checks are not counted.
 */
async function startForwarder(portA: number, daemonToken: () => string, onFirst: () => void): Promise<{ url: string; bearers: boolean[]; close(): Promise<void> }> {
  const bearers: boolean[] = [];
  const server = http.createServer((request, response) => {
    const proof = request.headers[CHALLENGE_HEADER] !== undefined ? proofForRequest(request, () => daemonToken()) : undefined;
    if (proof !== undefined) {
      response.writeHead(200, { 'content-type': 'application/json', [PROOF_HEADER]: proof });
      response.end('{"status":"ok","version":"0.0.0","uptime_seconds":0,"signing_key":null}');
      return;
    }
    if (bearers.length === 0) onFirst();
    bearers.push(request.headers['authorization'] !== undefined);
    const headers = { ...request.headers };
    // The daemon accepts only its own loopback Host; node sets it from the target.
    delete headers['host'];
    const relay = http.request({ hostname: '127.0.0.1', port: portA, method: request.method, path: request.url, headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    request.pipe(relay);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bearers,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
