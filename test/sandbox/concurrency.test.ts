import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { enrollDevice, startSandbox, type RunningSandbox, type SignedClient } from '../support/sandbox-client.js';

let run: RunningSandbox;
let device: SignedClient;

before(async () => {
  run = await startSandbox();
  device = await enrollDevice(run.admin);
});
after(() => run.stop());

test('50 concurrent charges on one exact window: exactly one approval', async () => {
  const { card_id } = await run.admin.card(device.accountId, '500.00');
  const created = await device.authorize({ card_id, amount: '25.00', merchant: 'race.example.com' });
  assert.equal(created.status, 201);
  const answers = await Promise.all(Array.from({ length: 50 }, () => run.admin.charge(card_id, 'race.example.com', '25.00')));
  assert.ok(answers.every((a) => a.status === 200));
  const approved = answers.filter((a) => a.body.decision === 'approved');
  assert.equal(approved.length, 1);
  assert.equal(approved[0]?.body.transaction.id, created.body.transaction_id);
  assert.ok(answers.filter((a) => a.body.decision === 'declined').every((a) => a.body.decline_code === 'card_frozen'));
  const card = (await device.request('GET', `/v1/cards/${card_id}`)).body;
  assert.deepEqual([card.balance, card.status], ['475.00', 'frozen']);
});

test('50 concurrent charges of different amounts on one ceiling window: exactly one approval, within the ceiling', async () => {
  const { card_id } = await run.admin.card(device.accountId, '500.00');
  await device.authorize({ card_id, amount: '30.00', authorization_type: 'ceiling', merchant: 'race.example.com' });
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => run.admin.charge(card_id, 'race.example.com', `${10 + i}.00`)));
  const approved = answers.filter((a) => a.body.decision === 'approved');
  assert.equal(approved.length, 1);
  assert.ok(Number(approved[0]?.body.transaction.amount) <= 30);
});

test('50 concurrent authorizations compete for one balance: holds never exceed it', async () => {
  const { card_id } = await run.admin.card(device.accountId, '100.00');
  const answers = await Promise.all(Array.from({ length: 50 }, () => device.authorize({ card_id, amount: '10.00' })));
  assert.equal(answers.filter((a) => a.status === 201).length, 10);
  assert.ok(answers.filter((a) => a.status !== 201).every((a) => a.body.error.code === 'insufficient_funds'));
  const dump = await run.admin.state();
  const card = (dump['cards'] as Array<{ card_id: string; held: string }>).find((c) => c.card_id === card_id);
  assert.equal(card?.held, '100.00');
});
