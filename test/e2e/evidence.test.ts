/**
 * The evidence pack end to end (shared/spec/evidence.md), on the real daemon and sandbox on
 * ephemeral ports: a pack for a charged authorization and for an approved one, checked by `jose`
 * (code we did not write) with the pack's own key, by verifyEvidence and by `latch evidence
 * verify`; tampering fails; agents see only their own packs; no secret is ever in one.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as jose from 'jose';
import { addAgent, readAgentToken } from '../../src/datadir/agents.js';
import { setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { loadDeviceKey } from '../../src/signer/device-key.js';
import { readToken } from '../../src/datadir/token.js';
import { verifyEvidence } from '../../src/index.js';
import { assertError } from '../support/e2e-assert.js';
import { JsonClient, runLatch, startStack, type Stack } from '../support/stack.js';
import { secretOf } from '../support/raw-signing.js';

// Amounts of 5.00 and above wait for the owner; below, the policy allows at once.
const POLICY = { v: 1, default: 'allow', rules: [{ id: 'large', min_amount: '5.00', decision: 'ask' }] };
const PASSPHRASE = 'evidence horse battery';

let stack: Stack;
let shopper: JsonClient;
let travel: JsonClient;
let charged: { policyId: string; text: string };
let approved: { policyId: string; approvalId: string; text: string };

before(async () => {
  stack = await startStack();
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify(POLICY), { mode: 0o600 });
  addAgent(stack.home, 'shopper');
  addAgent(stack.home, 'travel');
  shopper = stack.agent('shopper');
  travel = stack.agent('travel');

  // An agent's authorization, allowed by the policy, then charged by the card network.
  const created = await shopper.post('/authorize', { card_id: stack.cards[0].card_id, amount: '2.50', merchant_name: 'shop.example.com', reference: 'order-77' });
  assert.equal(created.status, 200, created.text);
  const charge = await stack.charge(stack.cards[0].card_id, 'shop.example.com', '2.50');
  assert.equal(charge.body.decision, 'approved', charge.text);
  const pack = await shopper.get(`/authorizations/${created.body.policy_id}/evidence`);
  assert.equal(pack.status, 200, pack.text);
  charged = { policyId: created.body.policy_id, text: pack.text };

  // An agent's request the policy asks the owner about, approved by the owner.
  const asked = await shopper.post('/authorize', { card_id: stack.cards[1].card_id, amount: '6.00', merchant_name: 'big.example.com' });
  assert.equal(asked.status, 202, asked.text);
  setApprovalPassphrase(stack.home, PASSPHRASE);
  const decided = await stack.a.post(`/approvals/${asked.body.approval_id}/approve`, { passphrase: PASSPHRASE });
  assert.equal(decided.status, 200, decided.text);
  const policyId = decided.body.authorization.policy_id as string;
  const approvedPack = await stack.a.get(`/authorizations/${policyId}/evidence`);
  assert.equal(approvedPack.status, 200, approvedPack.text);
  approved = { policyId, approvalId: asked.body.approval_id, text: approvedPack.text };
});
after(() => stack.close());

/** verifyWithJose checks a compact JWS with the pack's own JWKS, as a stranger with only jose would. */
async function verifyWithJose(pack: { jwks: jose.JSONWebKeySet }, jws: string): Promise<{ payload: Uint8Array; protectedHeader: jose.CompactJWSHeaderParameters }> {
  return jose.compactVerify(jws, jose.createLocalJWKSet(pack.jwks), { algorithms: ['EdDSA'] });
}

describe('a pack checked by jose with its own key', () => {
  for (const which of ['charged', 'approved'] as const) {
    test(`the ${which} authorization's pack: its JWS, its window's JWS and the key id`, async () => {
      const text = which === 'charged' ? charged.text : approved.text;
      const pack = JSON.parse(text);
      const key = pack.jwks.keys[0];
      assert.equal(key.kid, await jose.calculateJwkThumbprint({ kty: key.kty, crv: key.crv, x: key.x }, 'sha256'));
      const whole = await verifyWithJose(pack, pack.jws);
      assert.equal(whole.protectedHeader.typ, 'latch-evidence+jwt');
      assert.equal(whole.protectedHeader.kid, key.kid);
      const { jws: _jws, ...members } = pack;
      assert.equal(new TextDecoder().decode(whole.payload), JSON.stringify(members));
      const window = await verifyWithJose(pack, pack.window.jws);
      assert.deepEqual(JSON.parse(new TextDecoder().decode(window.payload)), pack.window.payload);
      assert.equal(window.protectedHeader.kid, key.kid);
      assert.deepEqual(verifyEvidence(text), { ok: true, policyId: pack.policy_id, keyId: key.kid, keyPinned: false });
    });
  }

  test('a JWKS holding another key verifies neither JWS (jose finds no key)', async () => {
    const pack = JSON.parse(charged.text);
    const { publicKey } = await jose.generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const other = await jose.exportJWK(publicKey);
    const kid = await jose.calculateJwkThumbprint(other);
    await assert.rejects(verifyWithJose({ jwks: { keys: [{ ...other, kid: pack.jwks.keys[0].kid }] } }, pack.jws));
    await assert.rejects(verifyWithJose({ jwks: { keys: [{ ...other, kid }] } }, pack.window.jws));
  });
});

describe('what a pack holds', () => {
  test('the charged one: the window exactly as registered, the request, the decision, audit lines and the charge', () => {
    const pack = JSON.parse(charged.text);
    const registered = stack.sandbox.state().authorizations.get(charged.policyId);
    assert.equal(pack.window.jws, registered?.jws, 'the window JWS is byte for byte the one the cloud registered');
    assert.equal(pack.request.agent, 'shopper');
    assert.equal(pack.request.amount, '2.50');
    assert.equal(pack.request.reference, 'order-77');
    assert.equal(pack.request.ttl_seconds, 1800);
    assert.match(pack.request.sha256, /^[0-9a-f]{64}$/);
    assert.equal(pack.decision.decision, 'allow');
    assert.equal(pack.decision.rule, 'default');
    assert.match(pack.decision.sha256, /^[0-9a-f]{64}$/);
    assert.equal(pack.approval, null);
    const lines = pack.audit.lines.map((line: string) => JSON.parse(line));
    const windowLine = lines.find((line: Record<string, unknown>) => line['operation'] === 'authorize');
    assert.equal(windowLine.request_sha256, pack.request.sha256, 'the audit log records the request hash the pack shows');
    assert.ok(lines.some((line: Record<string, unknown>) => line['operation'] === 'export_evidence'));
    assert.equal(pack.cloud.registration.outcome, 'registered');
    assert.equal(pack.cloud.status, 'used');
    assert.equal(pack.cloud.transactions.length, 1);
    assert.equal(pack.cloud.transactions[0].amount, '2.50');
    assert.equal(pack.cloud.transactions[0].status, 'settled');
  });

  test('the approved one: the approval is bound to the same request hash, and its audit lines are there', () => {
    const pack = JSON.parse(approved.text);
    assert.equal(pack.decision.decision, 'ask');
    assert.equal(pack.decision.rule, 'large');
    assert.ok(pack.decision.reasons.length > 0);
    assert.equal(pack.approval.approval_id, approved.approvalId);
    assert.equal(pack.approval.status, 'approved');
    assert.equal(pack.approval.request_sha256, pack.request.sha256);
    const operations = pack.audit.lines.map((line: string) => JSON.parse(line).operation);
    for (const operation of ['approval_requested', 'approval_approved', 'authorize']) assert.ok(operations.includes(operation), `${operation} in ${operations.join(',')}`);
    assert.ok(Date.parse(pack.request.received_at) <= Date.parse(pack.approval.decided_at));
  });

  test('no token, passphrase or private key is in any pack', () => {
    const key = loadDeviceKey(stack.home);
    assert.ok(key !== undefined);
    const secrets = [
      readToken(stack.home),
      readAgentToken(stack.home, 'shopper'),
      readAgentToken(stack.home, 'travel'),
      PASSPHRASE,
      Buffer.from(secretOf(key)).toString('base64url'),
      Buffer.from(secretOf(key)).toString('base64'),
      Buffer.from(secretOf(key)).toString('hex'),
    ];
    for (const text of [charged.text, approved.text]) {
      for (const secret of secrets) assert.ok(!text.includes(secret), 'a secret is in a pack');
      assert.ok(!/"d":/.test(text), 'no private JWK member');
    }
  });
});

describe('every kind of authorization', () => {
  test('a merchant verification and recurring authorizations (defaults, and every term) have packs that hold', async () => {
    const startsAt = Math.floor(Date.now() / 1000) + 3600;
    const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
    const requests: Array<[string, Record<string, unknown>]> = [
      ['/merchant-bind', { card_id: stack.cards[0].card_id, merchant_name: 'verify.example.com' }],
      ['/recurring', { card_id: stack.cards[1].card_id, merchant_name: 'stream.example.com', amount: '1.99', interval: 'month' }],
      ['/recurring', { card_id: stack.cards[1].card_id, merchant_name: 'gym.example.com', amount: 2, authorization_type: 'ceiling', interval: 'week', interval_count: 2, starts_at: iso(startsAt), ends_at: iso(startsAt + 90 * 86_400), max_charges: 6, reference: 'plan-7' }],
    ];
    for (const [route, body] of requests) {
      const created = await shopper.post(route, body);
      assert.equal(created.status, 200, created.text);
      const pack = await shopper.get(`/authorizations/${created.body.policy_id}/evidence`);
      assert.equal(pack.status, 200, pack.text);
      assert.deepEqual(verifyEvidence(pack.text), { ok: true, policyId: created.body.policy_id, keyId: pack.body.jwks.keys[0].kid, keyPinned: false }, `${route} ${JSON.stringify(body)}`);
      assert.equal(pack.body.request.kind, route === '/merchant-bind' ? 'merchant_verification' : 'recurring');
    }
  });
});

describe('a revoked authorization', () => {
  test('its pack holds, shows the revocation line and the cloud status revoked', async () => {
    const created = await shopper.post('/authorize', { card_id: stack.cards[0].card_id, amount: '1.25', merchant_name: 'cancel.example.com' });
    assert.equal(created.status, 200, created.text);
    const cancelled = await shopper.post(`/authorizations/${created.body.policy_id}/cancel`, { reason: 'changed my mind' });
    assert.equal(cancelled.status, 200, cancelled.text);
    const pack = await shopper.get(`/authorizations/${created.body.policy_id}/evidence`);
    assert.equal(pack.status, 200, pack.text);
    assert.equal(verifyEvidence(pack.text).ok, true);
    assert.equal(pack.body.cloud.status, 'revoked');
    assert.ok(pack.body.audit.lines.some((line: string) => JSON.parse(line).operation === 'sign_revocation'));
  });
});

describe('who gets a pack', () => {
  test('another agent gets 404 authorization_not_found, as for an id that does not exist', async () => {
    assertError(await travel.get(`/authorizations/${charged.policyId}/evidence`), 404, 'authorization_not_found');
    assertError(await travel.get('/authorizations/pw_doesnotexist000000000000/evidence'), 404, 'authorization_not_found');
    assertError(await shopper.get('/authorizations/not-an-id/evidence'), 404, 'authorization_not_found');
  });

  test('the owner gets an agent\'s pack', async () => {
    const answer = await stack.a.get(`/authorizations/${charged.policyId}/evidence`);
    assert.equal(answer.status, 200);
    assert.equal(verifyEvidence(answer.text).ok, true);
  });

  test('while signing is paused, a pack is still made (it authorizes nothing)', async () => {
    const env = { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` };
    assert.equal((await runLatch(['pause', '--reason', 'disputed charge'], env)).code, 0);
    try {
      assertError(await stack.a.post('/authorize', { card_id: stack.cards[0].card_id, amount: '1.00', merchant_name: 'shop.example.com' }), 409, 'daemon_paused');
      const answer = await stack.a.get(`/authorizations/${charged.policyId}/evidence`);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(verifyEvidence(answer.text).ok, true);
    } finally {
      assert.equal((await runLatch(['resume'], env)).code, 0);
    }
  });

  test('an unknown query parameter is refused', async () => {
    assertError(await stack.a.get(`/authorizations/${charged.policyId}/evidence?x=1`), 400, 'invalid_request');
  });
});

describe('the command line', () => {
  test('latch evidence PW --out FILE, then latch evidence verify FILE offline: 0; tampered: 6 naming the problem', async () => {
    const file = path.join(stack.root, 'pack.json');
    const env = { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` };
    const exported = await runLatch(['evidence', charged.policyId, '--out', file], env);
    assert.equal(exported.code, 0, exported.stderr);
    // Offline: no data directory, no daemon address.
    const offline = { LATCH_HOME: path.join(stack.root, 'no-such-home') };
    const verified = await runLatch(['evidence', 'verify', file], offline);
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /consistent with itself/);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"amount":"2.50"', '"amount":"3.50"'));
    const tampered = await runLatch(['evidence', 'verify', file], offline);
    assert.equal(tampered.code, 6);
    assert.match(tampered.stderr + tampered.stdout, /jws payload is not the pack's members/);
  });

  test('latch evidence PW writes the pack to stdout, exactly as served; verify needs a file', async () => {
    const env = { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` };
    const printed = await runLatch(['evidence', charged.policyId, '--agent', 'shopper'], env);
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(verifyEvidence(printed.stdout).ok, true);
    const other = await runLatch(['evidence', charged.policyId, '--agent', 'travel'], env);
    assert.equal(other.code, 7);
    assert.match(other.stderr, /authorization_not_found/);
    const offline = { LATCH_HOME: path.join(stack.root, 'no-such-home') };
    assert.equal((await runLatch(['evidence', 'verify'], offline)).code, 2);
    assert.equal((await runLatch(['evidence', 'not-an-id'], env)).code, 2);
    const missing = await runLatch(['evidence', 'verify', path.join(stack.root, 'no-such-pack.json')], offline);
    assert.equal(missing.code, 1);
  });
});
