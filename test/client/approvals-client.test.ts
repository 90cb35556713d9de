/**
 * The client's approval calls against a scripted daemon: the 202 pending answer as a typed result,
 * Prefer: wait, the approval list and decisions, and every approval error by its code.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { LatchClientError } from '../../src/client/client-errors.js';
import { LatchClient } from '../../src/client/latch-client.js';
import { isPendingApproval } from '../../src/client/pending-approval.js';
import { ensureHome } from '../../src/datadir/home.js';
import { ensureToken, readToken } from '../../src/datadir/token.js';
import { errorBody, pinStubKey, startStubDaemon, type StubDaemon } from './stub-daemon.js';

let stub: StubDaemon;
let client: LatchClient;
let root: string;

beforeEach(async () => {
  stub = await startStubDaemon();
  root = mkdtempSync(path.join(os.tmpdir(), 'latch-approvals-client-'));
  const home = path.join(root, 'home');
  ensureHome(home);
  ensureToken(home);
  stub.proofToken = () => readToken(home);
  pinStubKey(stub, home);
  client = new LatchClient({ home, baseUrl: stub.url, env: {} });
});
afterEach(async () => {
  client.close();
  await stub.close();
  rmSync(root, { recursive: true, force: true });
});

async function rejection(call: Promise<unknown>): Promise<LatchClientError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof LatchClientError, `expected a LatchClientError, got ${String(error)}`);
    return error;
  }
  assert.fail('the call succeeded');
}

const REQUEST = { kind: 'one_time', card_id: 'card_a', merchant_name: 'shop.example.com', amount: '80.00', currency: 'USD', authorization_type: 'exact', ttl_seconds: 1800 };
const PENDING = { approval_id: 'ap_1', status: 'pending_approval', agent: 'buyer', request: REQUEST, rule: 'big', reasons: ['amount above 50.00 USD'], created_at: '2026-01-01T00:00:00Z', expires_at: '2026-01-01T00:15:00Z' };
const AUTHORIZATION = { policy_id: 'pw_a', amount: '80.00', status: 'active' };
const INPUT = { card_id: 'card_a', amount: '80.00', merchant_name: 'shop.example.com' };

describe('a 202 is a pending approval, not an error', () => {
  const calls: Array<[string, string, (c: LatchClient) => Promise<unknown>]> = [
    ['authorize', '/authorize', (c) => c.authorize(INPUT)],
    ['merchantBind', '/merchant-bind', (c) => c.merchantBind({ card_id: 'card_a', merchant_name: 'shop.example.com' })],
    ['recurring', '/recurring', (c) => c.recurring({ ...INPUT, interval: 'month' })],
  ];
  for (const [name, target, call] of calls) {
    test(`${name}: 202 → PendingApproval; 201 → Authorization`, async () => {
      stub.script.push({ status: 202, body: PENDING }, { status: 201, body: AUTHORIZATION });
      const pending = await call(client);
      assert.ok(isPendingApproval(pending));
      assert.equal(pending.approval_id, 'ap_1');
      const made = await call(client);
      assert.equal(isPendingApproval(made), false);
      assert.deepEqual(made, AUTHORIZATION);
      assert.deepEqual(stub.seen.map((r) => `${r.method} ${r.url}`), [`POST ${target}`, `POST ${target}`]);
      assert.equal(stub.seen[0]?.headers['prefer'], undefined, 'no wait unless asked');
    });
  }

  const malformed: Array<[string, unknown]> = [
    ['a 202 with an authorization body', AUTHORIZATION],
    ['a 202 whose status is not pending', { ...PENDING, status: 'approved' }],
    ['a 202 without the request', { ...PENDING, request: undefined }],
  ];
  for (const [name, body] of malformed) {
    test(`${name} is invalid_response`, async () => {
      stub.script.push({ status: 202, body });
      assert.equal((await rejection(client.authorize(INPUT))).code, 'invalid_response');
    });
  }

  test('waitSeconds sends Prefer: wait=N with the one Idempotency-Key', async () => {
    stub.script.push({ status: 201, body: AUTHORIZATION });
    await client.authorize(INPUT, { waitSeconds: 45, idempotencyKey: 'idem_fixed' });
    assert.equal(stub.seen[0]?.headers['prefer'], 'wait=45');
    assert.equal(stub.seen[0]?.headers['idempotency-key'], 'idem_fixed');
  });

  for (const wait of [0, 61, 1.5, -1, Number.NaN]) {
    test(`waitSeconds ${wait} is refused before anything is sent`, async () => {
      const error = await rejection(client.authorize(INPUT, { waitSeconds: wait }));
      assert.equal(error.code, 'invalid_request');
      assert.equal(error.param, 'waitSeconds');
      assert.equal(stub.seen.length, 0);
    });
  }

  test('a held answer that ends in a denial is approval_denied (403)', async () => {
    stub.script.push({ status: 403, body: errorBody('approval_denied', 'The owner denied the request.') });
    const error = await rejection(client.authorize(INPUT, { waitSeconds: 5 }));
    assert.equal(error.code, 'approval_denied');
    assert.equal(error.status, 403);
  });
});

describe('the approval calls', () => {
  test('approvals() sends the filter and the cursor; approval(id) encodes the id', async () => {
    stub.script.push({ status: 200, body: { approvals: [PENDING], has_more: false } }, { status: 200, body: { approvals: [], has_more: false } }, { status: 200, body: PENDING });
    const list = await client.approvals({ status: 'pending_approval', limit: 10, starting_after: 'ap_0' });
    assert.equal(list.approvals[0]?.approval_id, 'ap_1');
    await client.approvals();
    await client.approval('ap_1/../x');
    assert.deepEqual(stub.seen.map((r) => r.url), ['/approvals?status=pending_approval&limit=10&starting_after=ap_0', '/approvals', '/approvals/ap_1%2F..%2Fx']);
  });

  test('approval(id, {waitSeconds}) sends Prefer: wait=N; 0 or none sends no Prefer', async () => {
    stub.script.push({ status: 200, body: PENDING }, { status: 200, body: PENDING }, { status: 200, body: PENDING });
    await client.approval('ap_1', { waitSeconds: 60 });
    await client.approval('ap_1', { waitSeconds: 0 });
    await client.approval('ap_1');
    assert.deepEqual(stub.seen.map((r) => r.headers['prefer']), ['wait=60', undefined, undefined]);
  });

  for (const wait of [61, 1.5, -1, Number.NaN]) {
    test(`approval(id, {waitSeconds: ${wait}}) is refused before anything is sent`, async () => {
      const error = await rejection(client.approval('ap_1', { waitSeconds: wait }));
      assert.equal(error.code, 'invalid_request');
      assert.equal(error.param, 'waitSeconds');
      assert.equal(stub.seen.length, 0);
    });
  }

  test('approve sends the passphrase only in the body; deny sends the reason; both carry an Idempotency-Key', async () => {
    stub.script.push({ status: 200, body: { ...PENDING, status: 'approved' } }, { status: 200, body: { ...PENDING, status: 'approved' } }, { status: 200, body: { ...PENDING, status: 'denied' } }, { status: 200, body: { ...PENDING, status: 'denied' } });
    assert.equal((await client.approve('ap_1', { passphrase: 'correct horse' })).status, 'approved');
    await client.approve('ap_1');
    assert.equal((await client.deny('ap_1', { reason: 'too much' })).status, 'denied');
    await client.deny('ap_1');
    assert.deepEqual(stub.seen.map((r) => [r.method, r.url, JSON.parse(r.body)]), [
      ['POST', '/approvals/ap_1/approve', { passphrase: 'correct horse' }],
      ['POST', '/approvals/ap_1/approve', {}],
      ['POST', '/approvals/ap_1/deny', { reason: 'too much' }],
      ['POST', '/approvals/ap_1/deny', {}],
    ]);
    for (const request of stub.seen) assert.match(String(request.headers['idempotency-key']), /^idem_/);
    assert.ok(!stub.seen[0]?.url.includes('correct'));
  });

  const errors: Array<[string, number, (c: LatchClient) => Promise<unknown>]> = [
    ['approval_not_found', 404, (c) => c.approval('ap_nope')],
    ['approval_not_pending', 409, (c) => c.deny('ap_1')],
    ['invalid_passphrase', 401, (c) => c.approve('ap_1', { passphrase: 'wrong passphrase' })],
    ['too_many_attempts', 429, (c) => c.approve('ap_1', { passphrase: 'wrong passphrase' })],
    ['agent_not_permitted', 403, (c) => c.approve('ap_1')],
  ];
  for (const [code, status, call] of errors) {
    test(`${status} ${code} is a LatchClientError with that code, sent once, without the passphrase in it`, async () => {
      stub.script.push({ status, body: errorBody(code) });
      const error = await rejection(call(client));
      assert.equal(error.code, code);
      assert.equal(error.status, status);
      assert.equal(stub.seen.length, 1, 'an approval error is never retried (only a bearer refusal is)');
      assert.ok(!JSON.stringify(error.toJSON()).includes('wrong passphrase'));
      assert.ok(!error.message.includes('wrong passphrase'));
    });
  }

  test('an approval answer without its fields is invalid_response', async () => {
    stub.script.push({ status: 200, body: { approval_id: 'ap_1' } });
    assert.equal((await rejection(client.approval('ap_1'))).code, 'invalid_response');
  });
});
