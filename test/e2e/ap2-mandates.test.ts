/**
 * POST /ap2/mandates on the real daemon and sandbox (shared/spec/ap2-mandates.md): an agent's open
 * mandates through the one pipeline. Every mandate is verified with @sd-jwt/core and jose under
 * GET /ap2/jwks; the card window that backs it declines more than the mandate allows; one ledger
 * entry, one audit line per signature; a policy deny and an ask are answered as /authorize's.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { calculateJwkThumbprint } from 'jose';
import { runLatch } from '../support/stack.js';
import { ap2World } from '../support/ap2-world.js';
import { loadDeviceKey } from '../../src/signer/device-key.js';
import { secretOf, signJwsCompactText } from '../support/raw-signing.js';
import { EVIDENCE_JWS_TYP } from '../../src/evidence/pack.js';
import { verifyEvidence } from '../../src/evidence/verify-pack.js';
import { requestValue } from '../../src/evidence/request-view.js';
import { requestSha256 } from '../../src/core/approval.js';
import { rawMandateSigner, stolenMandateSigner } from '../support/mandate-signing.js';
import { p256PublicKeyObject } from '../../src/ap2/p256.js';
import { generateP256Scalar } from '../../src/signer/p256-scalar.js';
import { verifyRootSdJwt } from '../../src/ap2/verify-sd-jwt.js';
import type { OpenPaymentClaims } from '../../src/ap2/open-mandates.js';

const POLICY = { v: 1, default: 'allow', rules: [{ id: 'mandates-over-20', kinds: ['ap2_mandate'], min_amount: '20.01', decision: 'ask' }, { id: 'no-evil', merchants: ['evil.example'], decision: 'deny' }] };

const world = ap2World(POLICY, 'ap2-e2e');
const { agentKey, post, auditLines, settledAuditLines, verified } = world;
/** A mandate request whose line has an alternative, for 10 minutes. */
const body = (over: Record<string, unknown> = {}): Record<string, unknown> =>
  world.body({ items: [{ id: 'sku-1', title: 'Blue mug', quantity: 1, alternatives: [{ id: 'sku-2', title: 'Red mug' }] }], ttl_minutes: 10, ...over });

describe('an allowed mandate request', () => {
  let answer: Record<string, any>;
  before(async () => {
    const created = await post(body());
    assert.equal(created.status, 201, created.text);
    answer = created.body;
  });

  test('201 with the policy id, the mandate id, both open mandates, the checkout hash, the key id and expires_at', () => {
    assert.deepEqual(Object.keys(answer).sort(), ['expires_at', 'key_id', 'mandate_id', 'open_checkout_hash', 'open_checkout_mandate', 'open_payment_mandate', 'policy_id']);
    assert.match(answer['policy_id'], /^pw_/);
    assert.match(answer['mandate_id'], /^md_/);
    assert.equal(answer['key_id'], (world.jwks.keys[0] as { kid: string }).kid);
    assert.equal(answer['open_checkout_hash'], createHash('sha256').update(answer['open_checkout_mandate'], 'ascii').digest('base64url'));
  });

  test('both mandates verify with @sd-jwt/core and jose under GET /ap2/jwks and carry exactly the asked terms, bound to the agent key', async () => {
    const checkout = await verified(answer['open_checkout_mandate']);
    const payment = await verified(answer['open_payment_mandate']);
    const cnf = { jwk: { kty: 'EC', crv: 'P-256', x: agentKey['x'], y: agentKey['y'] } };
    const iat = checkout.delegate['iat'] as number;
    assert.equal(checkout.delegate['exp'], iat + 600);
    assert.equal(new Date(answer['expires_at']).getTime() / 1000, iat + 600);
    const merchant = { id: 'shop.example', name: 'Example Shop', website: 'https://shop.example' };
    assert.deepEqual(checkout.delegate, {
      vct: 'mandate.checkout.open.1',
      constraints: [
        { type: 'checkout.line_items', items: [{ id: 'line_1', acceptable_items: [{ id: 'sku-1', title: 'Blue mug' }, { id: 'sku-2', title: 'Red mug' }], quantity: 1 }] },
        { type: 'checkout.allowed_merchants', allowed: [merchant] },
      ],
      cnf,
      iat,
      exp: iat + 600,
    });
    assert.equal(checkout.disclosures, 4);
    assert.deepEqual(payment.delegate, {
      vct: 'mandate.payment.open.1',
      constraints: [
        { type: 'payment.amount_range', currency: 'USD', max: 1500, min: 0 },
        { type: 'payment.allowed_payees', allowed: [merchant] },
        { type: 'payment.allowed_payment_instruments', allowed: [{ id: world.stack.cards[0].card_id, type: 'card', description: 'Groceries' }] },
        { type: 'payment.reference', conditional_transaction_id: answer['open_checkout_hash'] },
      ],
      cnf,
      iat,
      exp: iat + 600,
    });
    assert.equal(payment.disclosures, 3);
    assert.equal(checkout.header?.['kid'], await calculateJwkThumbprint(world.jwks.keys[0] as never));
  });

  test('the card window declines more than the mandate allows, and takes a charge within it', async () => {
    const over = await world.stack.charge(world.stack.cards[0].card_id, 'shop.example', '15.01');
    assert.equal(over.body?.decision, 'declined', over.text);
    const elsewhere = await world.stack.charge(world.stack.cards[0].card_id, 'other.example', '1.00');
    assert.equal(elsewhere.body?.decision, 'declined', elsewhere.text);
    const within = await world.stack.charge(world.stack.cards[0].card_id, 'shop.example', '12.00');
    assert.equal(within.body?.decision, 'approved', within.text);
  });

  test('one ledger entry: GET /authorizations lists it as kind ap2_mandate with its mandate id, for this agent', async () => {
    const listed = await world.shopper.get('/authorizations');
    const entries = (listed.body.authorizations as Record<string, unknown>[]).filter((entry) => entry['policy_id'] === answer['policy_id']);
    assert.equal(entries.length, 1);
    assert.equal(entries[0]?.['kind'], 'ap2_mandate');
    assert.equal(entries[0]?.['mandate_id'], answer['mandate_id']);
    assert.equal(entries[0]?.['authorization_type'], 'ceiling');
    assert.equal(entries[0]?.['amount'], '15.00');
  });

  test('the audit log has ap2_mandate_signed with each SD-JWT\'s hash, the agent key thumbprint, the kid and the caller', async () => {
    const line = auditLines().find((entry) => entry['operation'] === 'ap2_mandate_signed' && entry['policy_id'] === answer['policy_id']);
    assert.ok(line !== undefined);
    const sdHash = (token: string) => createHash('sha256').update(token, 'ascii').digest('base64url');
    assert.equal(line['open_checkout_sd_hash'], sdHash(answer['open_checkout_mandate']));
    assert.equal(line['open_payment_sd_hash'], sdHash(answer['open_payment_mandate']));
    assert.equal(line['agent_key_thumbprint'], await calculateJwkThumbprint({ kty: 'EC', crv: 'P-256', x: agentKey['x'] as string, y: agentKey['y'] as string }));
    assert.equal(line['key_id'], answer['key_id']);
    assert.equal(line['agent'], 'shopper');
    assert.equal(line['mandate_id'], answer['mandate_id']);
    const text = readFileSync(path.join(world.stack.home, 'audit.log'), 'utf8');
    assert.ok(!text.includes(answer['open_payment_mandate'].split('~')[0]), 'the audit log holds hashes, not the mandates');
  });
});

test('a retry with the same Idempotency-Key gets the same mandates; nothing is signed twice', async () => {
  const key = 'ap2-same-key';
  const first = await post(body({ amount_max: '2.00' }), { 'idempotency-key': key });
  const again = await post(body({ amount_max: '2.00' }), { 'idempotency-key': key });
  assert.equal(first.status, 201, first.text);
  assert.deepEqual(again.body, first.body);
  assert.equal(auditLines().filter((line) => line['operation'] === 'ap2_mandate_signed' && line['policy_id'] === first.body.policy_id).length, 1);
});

test('a policy deny is 403 policy_denied with the rule; nothing is signed or recorded', async () => {
  const before = (await settledAuditLines()).length;
  const denied = await post(body({ merchant: { name: 'Evil', website: 'https://evil.example' } }));
  assert.equal(denied.status, 403, denied.text);
  assert.equal(denied.body.error.code, 'policy_denied');
  assert.equal(denied.body.error.rule, 'no-evil');
  // The card's label is read before anything is decided (core/ap2-mandates.ts), kept a minute: under
  // a slow run that read is a signed GET with its own line. Nothing else may have been written.
  const added = auditLines().slice(before).filter((line) => !(line['operation'] === 'sign_request' && line['method'] === 'GET'));
  assert.deepEqual(added, []);
});

test('an ask is 202 with the approval bound to the whole request; approved, it carries the same fields', async () => {
  const asked = await post(body({ amount_max: '25.00' }));
  assert.equal(asked.status, 202, asked.text);
  assert.equal(asked.body.rule, 'mandates-over-20');
  assert.equal(asked.body.request.kind, 'ap2_mandate');
  assert.equal(asked.body.request.ap2.agent_key_thumbprint, await calculateJwkThumbprint({ kty: 'EC', crv: 'P-256', x: agentKey['x'] as string, y: agentKey['y'] as string }));
  const approved = await world.stack.a.post(`/approvals/${asked.body.approval_id}/approve`, {});
  assert.equal(approved.status, 200, approved.text);
  const polled = await world.shopper.get(`/approvals/${asked.body.approval_id}`);
  assert.equal(polled.body.status, 'approved');
  const mandates = polled.body.ap2_mandates as Record<string, string>;
  assert.equal(mandates['policy_id'], polled.body.authorization.policy_id);
  const payment = await verified(mandates['open_payment_mandate'] as string);
  assert.equal(payment.delegate['constraints'][0].max, 2500);
});

test('bad input changes nothing: invalid_agent_key, a card number in a title, an http website', async () => {
  const before = (await settledAuditLines()).length;
  const withPrivate = await post(body({ agent_key: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }) }));
  assert.deepEqual([withPrivate.status, withPrivate.body.error.code, withPrivate.body.error.param], [400, 'invalid_agent_key', 'agent_key']);
  const cardNumber = await post(body({ items: [{ id: 'sku-1', title: 'mug 4111 1111 1111 1111' }] }));
  assert.deepEqual([cardNumber.status, cardNumber.body.error.code], [400, 'card_data_not_accepted']);
  const http = await post(body({ merchant: { name: 'S', website: 'http://shop.example' } }));
  assert.deepEqual([http.status, http.body.error.param], [400, 'merchant.website']);
  assert.equal(auditLines().length, before);
});

test('cancel revokes the card window and frees the budget, and says the mandates themselves stay valid until exp', async () => {
  const created = await post(body({ amount_max: '3.00', merchant: { name: 'Cancel Shop', website: 'https://cancel.example' } }));
  assert.equal(created.status, 201, created.text);
  const cancelled = await world.shopper.post(`/authorizations/${created.body.policy_id}/cancel`, {});
  assert.equal(cancelled.status, 200, cancelled.text);
  assert.equal(cancelled.body.status, 'revoked');
  assert.equal(cancelled.body.kind, 'ap2_mandate');
  assert.equal(cancelled.body.mandate_revocable, false);
  const charge = await world.stack.charge(world.stack.cards[0].card_id, 'cancel.example', '1.00');
  assert.equal(charge.body?.decision, 'declined', charge.text);
  const plain = await world.shopper.get(`/authorizations/${created.body.policy_id}`);
  assert.equal(plain.body.mandate_id, created.body.mandate_id);
  assert.equal(plain.body.mandate_revocable, undefined, 'only the cancel answer says it');
});

describe('the evidence pack of a mandate', () => {
  let policyId: string;
  let file: string;
  const offline = () => ({ LATCH_HOME: path.join(world.stack.root, 'no-such-home') });
  before(async () => {
    const created = await post(body({ amount_max: '4.00', merchant: { name: 'Pack Shop', website: 'https://pack.example' } }));
    assert.equal(created.status, 201, created.text);
    policyId = created.body.policy_id;
    file = path.join(world.stack.root, 'ap2-pack.json');
    const exported = await runLatch(['evidence', policyId, '--out', file], { LATCH_HOME: world.stack.home, LATCH_URL: `http://127.0.0.1:${world.stack.portA}` });
    assert.equal(exported.code, 0, exported.stderr);
  });

  test('carries both SD-JWTs as answered and the mandate JWKS; latch evidence verify checks them offline', async () => {
    const pack = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual(Object.keys(pack.ap2), ['policy_id', 'mandate_id', 'open_checkout_mandate', 'open_payment_mandate', 'open_checkout_hash', 'key_id', 'expires_at', 'jwks']);
    assert.deepEqual(pack.ap2.jwks, { keys: [world.jwks.keys[0]] });
    assert.equal(pack.request.kind, 'ap2_mandate');
    await verified(pack.ap2.open_payment_mandate);
    const checked = await runLatch(['evidence', 'verify', file], offline());
    assert.equal(checked.code, 0, checked.stderr + checked.stdout);
  });

  test('a pack re-signed by the device key around changed mandates still fails: each AP2 check names its problem', async () => {
    const text = readFileSync(file, 'utf8');
    const device = loadDeviceKey(world.stack.home);
    assert.ok(device !== undefined);
    const other = rawMandateSigner(generateP256Scalar());
    const resigned = (change: (pack: Record<string, any>) => void): string => {
      const { jws: _old, ...pack } = JSON.parse(text);
      change(pack);
      const bodyText = JSON.stringify(pack);
      return `${bodyText.slice(0, -1)},"jws":${JSON.stringify(signJwsCompactText(bodyText, device.keyId, secretOf(device), EVIDENCE_JWS_TYP))}}\n`;
    };
    const cases: [string, (pack: Record<string, any>) => void, RegExp][] = [
      ['unchanged', () => undefined, /^$/],
      ['a disclosure dropped', (pack) => { pack.ap2.open_checkout_mandate = pack.ap2.open_checkout_mandate.replace(/~[^~]+~/, '~'); }, /open checkout mandate does not verify/],
      ['another key in the JWKS', (pack) => { pack.ap2.jwks.keys = [{ ...other.publicJwk, kid: other.kid, alg: 'ES256', use: 'sig' }]; pack.ap2.key_id = other.kid; }, /does not verify/],
      ['another checkout hash', (pack) => { pack.ap2.open_checkout_hash = 'x'; }, /open_checkout_hash/],
      ['another expiry', (pack) => { pack.ap2.expires_at = '2099-01-01T00:00:00Z'; }, /expires_at/],
      ['a payment mandate for more, signed by the mandate key itself', (pack) => { pack.ap2.open_payment_mandate = largerPayment(pack); }, /open payment mandate does not say exactly what was asked/],
      ['the request changed to match nothing else', (pack) => { pack.request.ap2.items[0].title = 'Gold mug'; pack.request.sha256 = requestSha256Of(pack.request); }, /another request's sha256/],
    ];
    for (const [name, change, problem] of cases) {
      const verdict = verifyEvidence(resigned(change));
      if (name === 'unchanged') assert.equal(verdict.ok, true, JSON.stringify(verdict));
      else assert.ok(!verdict.ok && problem.test(verdict.problem), `${name}: ${JSON.stringify(verdict)}`);
    }
  });
});

/** largerPayment is the pack's payment mandate re-signed by the real mandate key with a larger max. */
function largerPayment(pack: Record<string, any>): string {
  const signer = stolenMandateSigner(world.stack.home);
  const claims = verifyRootSdJwt(pack.ap2.open_payment_mandate, () => p256PublicKeyObject(signer.publicJwk)).delegate as unknown as OpenPaymentClaims;
  const range = claims.constraints[0];
  assert.ok(range?.type === 'payment.amount_range');
  range.max += 100;
  return signer.signOpenPaymentMandate(claims);
}

/** requestSha256Of recomputes a pack request's hash the way verify does, so only the mandate check can catch the change. */
function requestSha256Of(view: Record<string, unknown>): string {
  const value = requestValue(view);
  assert.ok(typeof value !== 'string', String(value));
  return requestSha256(value);
}

test('latch ap2 mandate --json as the agent prints the mandates; a key file with d is refused before anything is sent', async () => {
  const env = { LATCH_HOME: world.stack.home, LATCH_URL: `http://127.0.0.1:${world.stack.portA}` };
  const publicFile = path.join(world.stack.root, 'agent.pub.jwk');
  const privateFile = path.join(world.stack.root, 'agent.jwk');
  const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  writeFileSync(publicFile, JSON.stringify(pair.publicKey.export({ format: 'jwk' })));
  writeFileSync(privateFile, JSON.stringify(pair.privateKey.export({ format: 'jwk' })));
  const args = ['ap2', 'mandate', '--card', world.stack.cards[0].card_id, '--merchant-name', 'Cli Shop', '--website', 'https://cli.example', '--amount-max', '2.00', '--items', '[{"id":"sku-1","title":"Mug"}]', '--agent', 'shopper', '--json'];
  const made = await runLatch([...args, '--agent-key', publicFile], env);
  assert.equal(made.code, 0, made.stderr);
  const answer = JSON.parse(made.stdout);
  const payment = await verified(answer.open_payment_mandate);
  assert.equal(payment.delegate['cnf'].jwk.x, pair.publicKey.export({ format: 'jwk' }).x);
  const before = (await settledAuditLines()).length;
  const refused = await runLatch([...args, '--agent-key', privateFile], env);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr + refused.stdout, /private key \(d\)/);
  assert.ok(!(refused.stderr + refused.stdout).includes(String(pair.privateKey.export({ format: 'jwk' }).d)));
  assert.equal(auditLines().length, before);
});
