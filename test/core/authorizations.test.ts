import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CloudClient, CloudRequest, CloudResponse } from '../../src/cloud/cloud-client.js';
import { authorize, createRecurring, merchantBind, signAccountPolicyWindow, RECURRING_DEFAULT_SECONDS } from '../../src/core/authorizations.js';
import type { CoreDeps, OperationContext, SignatureAudit } from '../../src/core/core-deps.js';
import { SignedWindowCache } from '../../src/core/signed-window-cache.js';
import { generateSecretKey, publicKeyOf } from '../../src/crypto/ed25519.js';
import { keyIdOf } from '../../src/crypto/jwk.js';
import { verifyJwsCompact } from '../../src/crypto/jws.js';
import { LatchError } from '../../src/errors/latch-error.js';

const NOW = 1_800_000_000;
const secretKey = generateSecretKey();
const key = { secretKey, publicKey: publicKeyOf(secretKey), keyId: keyIdOf(publicKeyOf(secretKey)) };

interface Fake {
  deps: CoreDeps;
  sent: CloudRequest[];
  /** What happened, in order: `audit:<operation>` and `send:<path>`. */
  events: string[];
  audits: SignatureAudit[];
}

/** fakeDeps answers every cloud request with the authorization the window describes, or with `answer`. */
function fakeDeps(options: { cache?: boolean; answer?: (request: CloudRequest) => CloudResponse } = {}): Fake {
  const sent: CloudRequest[] = [];
  const events: string[] = [];
  const audits: SignatureAudit[] = [];
  const cloud = {
    async send(request: CloudRequest): Promise<CloudResponse> {
      sent.push(request);
      events.push(`send:${request.pathAndQuery}`);
      if (options.answer !== undefined) return options.answer(request);
      const jws = (JSON.parse(Buffer.from(request.body ?? new Uint8Array()).toString('utf8')) as { jws: string }).jws;
      const verified = verifyJwsCompact(jws, key.publicKey);
      assert.ok(typeof verified !== 'string', 'the cloud receives a valid window');
      const p = verified.payload as Record<string, any>;
      const body = {
        policy_id: p['policy_id'],
        card_id: p['card_id'] ?? null,
        merchant_name: p['merchant'],
        amount: p['amount'],
        currency: p['currency'],
        authorization_type: p['authorization_type'],
        kind: p['kind'],
        not_before: p['not_before'],
        expires_at: p['not_after'],
        status: 'active',
        created_at: NOW,
        transaction_id: 'tx_abc',
        ...(p['kind'] === 'recurring' ? { interval: p['interval'], interval_count: p['interval_count'] } : {}),
      };
      return { status: 201, headers: new Headers(), rawBody: Buffer.from(JSON.stringify(body)) };
    },
  } as unknown as CloudClient;
  const deps: CoreDeps = {
    cloud: () => cloud,
    device: () => ({ key, deviceId: 'dev_test' }),
    audit: async (record) => {
      audits.push(record);
      events.push(`audit:${record.operation}`);
    },
    nowSeconds: () => NOW,
    ...(options.cache === false ? {} : { signedWindows: new SignedWindowCache() }),
  };
  return { deps, sent, events, audits };
}

const context = (idempotencyKey?: string): OperationContext => ({ caller: { requestId: 'req_1', userAgent: 'test' }, idempotencyKey });
const oneTime = { cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 1250, currency: 'USD', authorizationType: 'exact' as const, ttlSeconds: 1800 };

test('authorize: the signature is audited before anything is sent; a key is generated when absent', async () => {
  const fake = fakeDeps();
  const created = await authorize(fake.deps, oneTime, context());
  assert.deepEqual(fake.events, ['audit:authorize', 'send:/v1/authorizations']);
  assert.equal(created.authorization.amountMinor, 1250);
  assert.equal(created.authorization.expiresAt, NOW + 1800);
  assert.equal(fake.audits[0]?.policyId, created.window.payload.policy_id);
  assert.match(fake.sent[0]?.idempotencyKey ?? '', /^idem_/);
});

test('the same Idempotency-Key and input re-send the first window; another input is refused unsent', async () => {
  const fake = fakeDeps();
  const first = await authorize(fake.deps, oneTime, context('k1'));
  const again = await authorize(fake.deps, oneTime, context('k1'));
  assert.equal(again.authorization.policyId, first.authorization.policyId);
  assert.deepEqual(fake.sent[1]?.body, fake.sent[0]?.body, 'byte-identical body');
  assert.equal(fake.sent[1]?.idempotencyKey, 'k1');
  assert.equal(fake.audits.length, 1, 'one signature, one audit line');
  for (const other of [{ ...oneTime, amountMinor: 1251 }, { ...oneTime, merchant: 'other.example.com' }]) {
    await assert.rejects(authorize(fake.deps, other, context('k1')), (error: unknown) => error instanceof LatchError && error.code === 'idempotency_key_reused');
  }
  await assert.rejects(
    merchantBind(fake.deps, { cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 0, currency: 'USD', ttlSeconds: 600 }, context('k1')),
    (error: unknown) => error instanceof LatchError && error.code === 'idempotency_key_reused',
    'the same key on another operation',
  );
  assert.equal(fake.sent.length, 2);
  const fresh = await authorize(fake.deps, oneTime, context('k2'));
  assert.notEqual(fresh.authorization.policyId, first.authorization.policyId);
});

test('without the cache every request signs afresh', async () => {
  const fake = fakeDeps({ cache: false });
  const first = await authorize(fake.deps, oneTime, context('k1'));
  const again = await authorize(fake.deps, oneTime, context('k1'));
  assert.notEqual(again.window.payload.policy_id, first.window.payload.policy_id);
});

test('merchant verification is a ceiling window of kind merchant_verification', async () => {
  const fake = fakeDeps();
  const created = await merchantBind(fake.deps, { cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 0, currency: 'USD', ttlSeconds: 600 }, context());
  assert.equal(created.window.payload.kind, 'merchant_verification');
  assert.equal(created.window.payload.authorization_type, 'ceiling');
  assert.equal(created.window.payload.amount, '0.00');
  assert.equal(created.window.payload.not_after - created.window.payload.not_before, 600);
  assert.equal(fake.audits[0]?.operation, 'merchant_bind');
});

test('recurring: starts now and runs a year unless told; the schedule is signed', async () => {
  const fake = fakeDeps();
  const base = { cardId: 'card_a', merchant: 'stream.example.com', amountMinor: 999, currency: 'USD', authorizationType: 'ceiling' as const, interval: 'month' as const, intervalCount: 1 };
  const plain = await createRecurring(fake.deps, { ...base, startsAt: null, endsAt: null, maxCharges: null }, context());
  assert.equal(plain.window.payload.not_before, NOW);
  assert.equal(plain.window.payload.not_after, NOW + RECURRING_DEFAULT_SECONDS);
  assert.equal(plain.window.payload.interval, 'month');
  assert.equal(plain.window.payload.max_charges, undefined);
  const bounded = await createRecurring(fake.deps, { ...base, startsAt: NOW + 60, endsAt: NOW + 86_400 * 90, maxCharges: 3 }, context());
  assert.equal(bounded.window.payload.not_before, NOW + 60);
  assert.equal(bounded.window.payload.not_after, NOW + 86_400 * 90);
  assert.equal(bounded.window.payload.max_charges, 3);
});

test('an account-wide window has no card_id and is typ policy_window', async () => {
  const fake = fakeDeps();
  const { cardId: _unused, ...input } = oneTime;
  const signed = await signAccountPolicyWindow(fake.deps, input, context());
  assert.equal(signed.payload.typ, 'policy_window');
  assert.ok(!('card_id' in signed.payload));
  assert.equal(fake.sent.length, 0, 'contacts nobody');
  assert.equal(fake.audits[0]?.cardId, null);
});

test("cloud refusals become our codes; the cloud's device_key_not_recognized carries the reconnect remedy", async () => {
  const answer = (status: number, code: string) => () => ({ status, headers: new Headers(), rawBody: Buffer.from(JSON.stringify({ error: { code, message: 'cloud says' } })) });
  const cases: Array<[number, string, string, number]> = [
    [404, 'card_not_found', 'card_not_found', 404],
    [402, 'insufficient_funds', 'insufficient_funds', 402],
    [401, 'device_key_not_recognized', 'local_key_not_recognized', 401],
    [500, 'internal_error', 'upstream_unavailable', 502],
    [418, 'not_a_code_of_ours', 'upstream_unavailable', 502],
  ];
  for (const [status, cloudCode, code, localStatus] of cases) {
    const fake = fakeDeps({ answer: answer(status, cloudCode) });
    await assert.rejects(authorize(fake.deps, oneTime, context()), (error: unknown) => {
      assert.ok(error instanceof LatchError);
      assert.equal(error.code, code);
      assert.equal(error.status, localStatus);
      if (code === 'local_key_not_recognized') assert.match(error.message, /latch setup --reconnect/);
      return true;
    });
  }
});
