/**
 * Races through the real daemon on both listeners: many charges against one window, many
 * authorizations against one balance, many retries of one idempotent request, and a charge
 * racing its own revocation. The outcome is checked against the sandbox's ledger each time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startStack, type HttpAnswer, type Stack } from '../support/stack.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

const PARALLEL = 50;

interface CardState {
  balance: number;
  held: number;
}

/** card reads a card's balance and holds (in cents) from the sandbox's dump. */
async function card(cardId: string): Promise<CardState> {
  const dump = await stack.admin.get('/v1/sandbox/state');
  const found = (dump.body.cards as Array<Record<string, string>>).find((c) => c['card_id'] === cardId);
  assert.ok(found !== undefined);
  return { balance: cents(found['balance'] as string), held: cents(found['held'] as string) };
}

const cents = (text: string): number => Math.round(Number(text) * 100);
const times = <T>(n: number, make: (i: number) => Promise<T>): Promise<T[]> => Promise.all(Array.from({ length: n }, (_, i) => make(i)));

describe('charges racing one window', () => {
  for (const listener of ['a', 'b'] as const) {
    test(`${listener}: ${PARALLEL} parallel charges on one exact window → exactly one approval`, async () => {
      const cardId = stack.cards[0].card_id;
      const merchant = `race-${listener}.example`;
      const created = listener === 'a'
        ? await stack.a.post('/authorize', { card_id: cardId, amount: 4, merchant_name: merchant })
        : await stack.b.post('/authorize', { card_id: cardId, amount: 4, merchant });
      assert.equal(created.status, 200, created.text);
      const before = await card(cardId);
      const answers = await times(PARALLEL, () => stack.charge(cardId, merchant, '4.00'));
      assert.ok(answers.every((a) => a.status === 200), 'every charge gets a decision');
      const approved = answers.filter((a) => a.body.decision === 'approved');
      assert.equal(approved.length, 1, answers.map((a) => a.body.decision ?? a.status).join(','));
      assert.ok(answers.filter((a) => a.body.decision === 'declined').every((a) => typeof a.body.decline_code === 'string'));
      const after = await card(cardId);
      assert.equal(after.balance, before.balance - 400, 'charged exactly once');
      assert.equal(after.held, before.held - 400, 'the hold was captured once');
    });
  }
});

describe('authorizations racing one balance', () => {
  test(`${PARALLEL} parallel authorizations (half on A, half on B) totalling 3× the balance: holds never exceed it`, async () => {
    const cardId = stack.cards[1].card_id;
    const before = await card(cardId);
    const free = before.balance - before.held;
    const amount = 300;
    const answers = await times(PARALLEL, (i) =>
      i % 2 === 0
        ? stack.a.post('/authorize', { card_id: cardId, amount: amount / 100, merchant_name: `hold-${i}.example` })
        : stack.b.post('/authorize', { card_id: cardId, amount: amount / 100, merchant: `hold-${i}.example` }),
    );
    const succeeded = answers.filter((a) => a.status === 200).length;
    const refused = answers.filter((a) => a.status === 402 && a.body?.error?.code === 'insufficient_funds').length;
    assert.equal(succeeded + refused, PARALLEL, answers.filter((a) => a.status !== 200 && a.status !== 402).map((a) => a.text).join('\n'));
    assert.equal(succeeded, Math.floor(free / amount), 'every hold that fits, and no more');
    const after = await card(cardId);
    assert.ok(after.held <= after.balance, `held ${after.held} ≤ balance ${after.balance}`);
    assert.equal(after.held, before.held + succeeded * amount);
  });
});

describe('idempotent retries in parallel', () => {
  const allocate = (listener: 'a' | 'b', key: string): Promise<HttpAnswer> =>
    listener === 'a'
      ? stack.a.post('/wallet/allocate', { card_id: stack.cards[0].card_id, amount: '2.00' }, { 'idempotency-key': key })
      : stack.b.post('/wallet/allocate', { card_id: stack.cards[0].card_id, amount: 2 }, { 'idempotency-key': key });

  for (const listener of ['a', 'b'] as const) {
    test(`${listener}: ${PARALLEL} parallel /wallet/allocate with one Idempotency-Key → one effect`, async () => {
      const before = await card(stack.cards[0].card_id);
      const key = `adv-allocate-${listener}-${Date.now()}`;
      const answers = await times(PARALLEL, () => allocate(listener, key));
      const ok = answers.filter((a) => a.status === 200);
      const inUse = answers.filter((a) => a.status === 409 && a.body?.error?.code === 'idempotency_key_in_use');
      assert.equal(ok.length + inUse.length, PARALLEL, answers.filter((a) => a.status !== 200 && a.status !== 409).map((a) => a.text).join('\n'));
      assert.ok(ok.length >= 1);
      assert.equal(new Set(ok.map((a) => a.text)).size, 1, 'every success is the same answer');
      assert.equal((await card(stack.cards[0].card_id)).balance, before.balance + 200, 'allocated once');
      // A retry after the dust settles is answered from the record, with no second effect.
      const late = await allocate(listener, key);
      assert.equal(late.status, 200);
      assert.equal(late.text, ok[0]?.text);
      assert.equal((await card(stack.cards[0].card_id)).balance, before.balance + 200);
    });
  }

  for (const listener of ['a', 'b'] as const) {
    test(`${listener}: ${PARALLEL} parallel /authorize with one Idempotency-Key → one window, one hold`, async () => {
      const cardId = stack.cards[0].card_id;
      const before = await card(cardId);
      const key = `adv-authorize-${listener}-${Date.now()}`;
      const merchant = `idem-race-${listener}.example`;
      const send = (): Promise<HttpAnswer> =>
        listener === 'a'
          ? stack.a.post('/authorize', { card_id: cardId, amount: 1, merchant_name: merchant }, { 'idempotency-key': key })
          : stack.b.post('/authorize', { card_id: cardId, amount: 1, merchant }, { 'idempotency-key': key });
      const idOf = (answer: HttpAnswer): string => (listener === 'a' ? answer.body.policy_id : answer.body.tx_id) as string;
      const answers = await times(PARALLEL, send);
      const ok = answers.filter((a) => a.status === 200);
      const inUse = answers.filter((a) => a.status === 409 && a.body?.error?.code === 'idempotency_key_in_use');
      assert.equal(ok.length + inUse.length, PARALLEL, answers.filter((a) => a.status !== 200 && a.status !== 409).map((a) => `${a.status} ${a.text}`).join('\n'));
      assert.equal(new Set(ok.map(idOf)).size, 1, 'one authorization');
      assert.equal((await card(cardId)).held, before.held + 100, 'one hold');
      const late = await send();
      assert.equal(late.status, 200, late.text);
      assert.equal(idOf(late), idOf(ok[0] as HttpAnswer));
      assert.equal((await card(cardId)).held, before.held + 100, 'still one hold');
    });
  }
});

describe('a charge racing its revocation', () => {
  test('10 rounds: either the charge is approved and the revocation refused, or the window is revoked and the charge declined — never both', async () => {
    const cardId = stack.cards[0].card_id;
    for (let round = 0; round < 10; round++) {
      const merchant = `revoke-race-${round}.example`;
      const created = await stack.a.post('/authorize', { card_id: cardId, amount: 1, merchant_name: merchant });
      assert.equal(created.status, 200, created.text);
      const policyId = created.body.policy_id as string;
      const signed = await stack.a.post('/sign-revocation', { policy_id: policyId });
      assert.equal(signed.status, 200, signed.text);
      const before = await card(cardId);
      const [charge, revoke] = await Promise.all([stack.charge(cardId, merchant, '1.00'), stack.a.post(`/v1/authorizations/${policyId}/revoke`, { jws: signed.body.jws })]);
      const approved = charge.body.decision === 'approved';
      const revoked = revoke.status === 200;
      assert.notEqual(approved, revoked, `round ${round}: charge ${charge.text} / revoke ${revoke.status} ${revoke.text}`);
      if (!revoked) assert.equal(revoke.body.error.code, 'authorization_not_active');
      const after = await card(cardId);
      assert.equal(after.balance, before.balance - (approved ? 100 : 0));
      assert.equal(after.held, before.held - 100, 'the hold is gone either way');
    }
  });
});
