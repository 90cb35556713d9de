/**
 * Issue 43 item 4 on a real daemon (both listeners) before a stand-in cloud that sends card
 * numbers: in an error message, in a card's label, in a refusal of an approved request. None
 * reaches an agent, the /v1 proxy's answer or state.journal; the fixed message stands there
 * (src/cloud/cloud-card-data.ts, docs/decisions.md §35).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { createDaemon, type DaemonHandle } from '../../src/daemon/create-daemon.js';
import { addAgent, readAgentToken } from '../../src/datadir/agents.js';
import { readToken } from '../../src/datadir/token.js';
import { CLOUD_CARD_DATA_MESSAGE } from '../../src/cloud/cloud-card-data.js';
import { jsonAnswer, startRecordingServer, type RecordingServer } from '../support/recording-server.js';
import { JsonClient, startStack, type Stack } from '../support/stack.js';

const PAN_TEXT = '4111 1111 1111 1111 cvv 123';
/**
 * holdsThePan reports whether text holds the stand-in cloud's card number in any spacing. Not the
 * general scan: hex hashes in answers and logs (request_sha256, prev) hold Luhn-valid digit runs by
 * chance, and what is asserted here is that the cloud's number went nowhere.
 */
const holdsThePan = (text: string): boolean => text.replace(/[\s-]/g, '').includes('4111111111111111');
const POLICY = { v: 1, default: 'allow', rules: [{ id: 'large', min_amount: '5.00', decision: 'ask' }] };

let stack: Stack;
let cloud: RecordingServer;
let daemon: DaemonHandle;
let ownerA: JsonClient;
let agentA: JsonClient;
let agentB: JsonClient;

before(async () => {
  stack = await startStack();
  cloud = await startRecordingServer();
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify(POLICY), { mode: 0o600 });
  addAgent(stack.home, 'shopper');
  // The stack's enrolled home, pointed at a stand-in cloud, with both listeners.
  daemon = createDaemon({ home: stack.home, portA: 0, portB: 0, env: { LATCH_HOME: stack.home, LATCH_CLOUD_URL: cloud.url }, logStream: new PassThrough() });
  const ports = await daemon.listen();
  ownerA = new JsonClient(`http://127.0.0.1:${ports.portA as number}`, () => readToken(stack.home));
  agentA = new JsonClient(`http://127.0.0.1:${ports.portA as number}`, () => readAgentToken(stack.home, 'shopper'));
  agentB = new JsonClient(`http://127.0.0.1:${ports.portB as number}`, () => readAgentToken(stack.home, 'shopper'));
});
after(async () => {
  await daemon.close({ deadlineMs: 1000 });
  await cloud.close();
  await stack.close();
});

const card = () => stack.cards[0].card_id;
const refusal = jsonAnswer(400, { error: { code: 'invalid_request', message: `card ${PAN_TEXT} refused`, param: 'amount' } });

test('a cloud error message carrying a card number reaches agents on neither listener', async () => {
  cloud.respondWith(refusal);
  const a = await agentA.post('/authorize', { card_id: card(), amount: '1.00', merchant_name: 'shop.example' });
  const b = await agentB.post('/authorize', { card_id: card(), amount: '1.00', merchant: 'shop.example' });
  for (const [name, answer] of [['A', a], ['B', b]] as const) {
    assert.ok(answer.status >= 400, `${name}: ${answer.text}`);
    assert.ok(!holdsThePan(answer.text), `${name}: ${answer.text}`);
  }
  assert.equal(a.body.error.message, CLOUD_CARD_DATA_MESSAGE);
});

test("a card's label carrying a card number is the fixed message on both listeners, and the /v1 proxy relays no number", async () => {
  const view = { card_id: card(), label: '4111-1111-1111-1111', last4: '1111', status: 'active', balance: '100.00', currency: 'USD', daily_limit: '500.00', daily_spent: '0.00' };
  cloud.respondWith(jsonAnswer(200, { cards: [view] }));
  for (const [name, answer] of [['A', await agentA.get('/cards')], ['B', await agentB.get('/cards')], ['proxy', await ownerA.get('/v1/cards')]] as const) {
    assert.equal(answer.status, 200, `${name}: ${answer.text}`);
    assert.ok(!holdsThePan(answer.text), `${name}: ${answer.text}`);
    assert.ok(answer.text.includes(CLOUD_CARD_DATA_MESSAGE), `${name}: ${answer.text}`);
  }
});

test('an approval the cloud refuses with a card number keeps none in state.journal or the audit log', async () => {
  cloud.respondWith(refusal);
  const asked = await agentA.post('/authorize', { card_id: card(), amount: '9.00', merchant_name: 'big.example' });
  assert.equal(asked.status, 202, asked.text);
  const approved = await ownerA.post(`/approvals/${asked.body.approval_id as string}/approve`, {});
  assert.equal(approved.body.status, 'failed', approved.text);
  assert.equal(approved.body.error.message, CLOUD_CARD_DATA_MESSAGE);
  assert.ok(!holdsThePan(approved.text), approved.text);
  const shown = await ownerA.get(`/approvals/${asked.body.approval_id as string}`);
  assert.ok(!holdsThePan(shown.text), shown.text);
  for (const name of readdirSync(stack.home).filter((file) => file.endsWith('.journal') || file === 'audit.log')) {
    assert.ok(!holdsThePan(readFileSync(path.join(stack.home, name), 'utf8')), `${name} holds a card number`);
  }
});
