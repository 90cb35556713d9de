/**
 * `latch approvals watch` in a real pseudo-terminal (tmux) against the real daemon and sandbox:
 * an agent's request that the policy asks about appears with its full terms, `a` and the
 * passphrase (never on the screen) approve it, the daemon then holds the authorization and the
 * card network's charge of exactly those terms is approved; `d` and a reason deny the next one;
 * the owner session the first approval opened approves the third without asking again, and it
 * ends when the watch stops (docs/decisions.md §21.8).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { addAgent } from '../../src/datadir/agents.js';
import { setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { REPO_ROOT } from '../support/paths.js';
import { JsonClient, startStack, type Stack } from '../support/stack.js';
import { TmuxPane } from './tmux-pane.js';

const POLICY = { v: 1, default: 'allow', rules: [{ id: 'large-purchases', min_amount: '50.00', decision: 'ask' }] };
const PASSPHRASE = 'watch real staple battery';

let stack: Stack;
let shopper: JsonClient;
let pane: TmuxPane | undefined;

before(async () => {
  stack = await startStack();
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify(POLICY), { mode: 0o600 });
  addAgent(stack.home, 'shopper');
  setApprovalPassphrase(stack.home, PASSPHRASE);
  shopper = stack.agent('shopper');
});
after(async () => {
  pane?.close();
  await stack.close();
});

/** escaped makes text a literal part of a RegExp. */
const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('watch against the real daemon: the full terms, a + passphrase approves (unseen), the charge passes; d + reason denies', async () => {
  const card = stack.cards[0];
  pane = new TmuxPane('watch-real');
  pane.start(`LATCH_HOME='${stack.home}' LATCH_URL='http://127.0.0.1:${stack.portA}' node --import tsx src/cli/main.ts approvals watch`, REPO_ROOT);

  const asked = await shopper.post('/authorize', { card_id: card.card_id, amount: '60.00', merchant_name: 'shop.example.com' }, { 'idempotency-key': 'watch-real-1' });
  assert.equal(asked.status, 202, asked.text);
  const id: string = asked.body.approval_id;
  const reason: string = asked.body.reasons[0];
  assert.ok(typeof reason === 'string' && reason.length > 0);

  let screen = await pane.waitFor(new RegExp(`${escaped(id)}[^]*Approve, deny or skip\\? \\[a/d/s\\]\\s*$`));
  for (const shown of ['shopper', `${card.label} (${card.card_id})`, 'shop.example.com', 'exactly 60.00 USD', 'large-purchases', reason]) {
    assert.ok(screen.includes(shown), `the screen shows ${shown}:\n${screen}`);
  }

  pane.type('a');
  await pane.waitFor(/Approval passphrase \(not shown\):/);
  pane.type(PASSPHRASE);
  pane.press('Enter');
  screen = await pane.waitFor(new RegExp(`Approved ${escaped(id)}: authorization (pw_[A-Za-z0-9]+) created\\.`));
  assert.ok(!screen.includes(PASSPHRASE) && !screen.includes('staple'), 'the passphrase never appears on the screen');
  const shownPolicy = new RegExp(`Approved ${escaped(id)}: authorization (pw_[A-Za-z0-9]+)`).exec(screen)?.[1];
  assert.match(screen, /Owner session open for this watch/);

  const decided = await stack.a.get(`/approvals/${id}`);
  assert.equal(decided.body.status, 'approved', decided.text);
  assert.equal(decided.body.authorization.policy_id, shownPolicy);
  assert.equal(decided.body.authorization.amount, '60.00');
  const charged = await stack.charge(card.card_id, 'shop.example.com', '60.00');
  assert.equal(charged.status, 200, charged.text);
  assert.equal(charged.body.decision, 'approved', charged.text);
  assert.equal(charged.body.transaction.policy_id, shownPolicy, charged.text);

  const second = await shopper.post('/authorize', { card_id: card.card_id, amount: '75.00', merchant_name: 'gadgets.example.net' });
  assert.equal(second.status, 202, second.text);
  const secondId: string = second.body.approval_id;
  await pane.waitFor(new RegExp(`${escaped(secondId)}[^]*exactly 75\\.00 USD[^]*gadgets\\.example\\.net[^]*Approve, deny or skip\\? \\[a/d/s\\]\\s*$|${escaped(secondId)}[^]*gadgets\\.example\\.net[^]*exactly 75\\.00 USD[^]*Approve, deny or skip\\? \\[a/d/s\\]\\s*$`));
  pane.type('d');
  await pane.waitFor(/Reason \(optional, Enter for none\):/);
  pane.type('not this shop');
  pane.press('Enter');
  await pane.waitFor(new RegExp(`Denied ${escaped(secondId)} \\(reason: not this shop\\)\\.`));
  const denied = await stack.a.get(`/approvals/${secondId}`);
  assert.equal(denied.body.status, 'denied', denied.text);
  assert.equal(denied.body.reason, 'not this shop');

  // The session the first approval opened approves the next one: no passphrase asked again.
  const third = await shopper.post('/authorize', { card_id: stack.cards[1].card_id, amount: '50.00', merchant_name: 'books.example.org' });
  assert.equal(third.status, 202, third.text);
  const thirdId: string = third.body.approval_id;
  await pane.waitFor(new RegExp(`${escaped(thirdId)}[^]*books\\.example\\.org[^]*Approve, deny or skip\\? \\[a/d/s\\]\\s*$`));
  pane.type('a');
  screen = await pane.waitFor(new RegExp(`Approved ${escaped(thirdId)}: authorization pw_[A-Za-z0-9]+ created\\.`));
  assert.equal(screen.split('Approval passphrase (not shown):').length - 1, 1, `the passphrase was asked for once, at the first approval:\n${screen}`);
  const approvedThird = await stack.a.get(`/approvals/${thirdId}`);
  assert.equal(approvedThird.body.status, 'approved', approvedThird.text);

  pane.press('C-c');
  screen = await pane.waitFor(/EXIT=\d+/);
  assert.match(screen, /Stopped watching\.\s+EXIT=0/);
  // The watch ended its owner session as it stopped.
  const ended = stack
    .logs()
    .split('\n')
    .filter((line) => line.includes('"method":"DELETE","route":"/owner/sessions/current"'));
  assert.equal(ended.length, 1, `one DELETE /owner/sessions/current in the daemon's log:\n${ended.join('\n')}`);
  assert.match(ended[0] as string, /"status":20\d/);
});

test('a question on the screen is withdrawn when its request is decided elsewhere (latch deny), and the watch goes on', async () => {
  pane?.close();
  const card = stack.cards[0];
  pane = new TmuxPane('watch-stale');
  pane.start(`LATCH_HOME='${stack.home}' LATCH_URL='http://127.0.0.1:${stack.portA}' node --import tsx src/cli/main.ts approvals watch`, REPO_ROOT);
  await pane.waitFor(/Watching for requests/);

  const asked = await shopper.post('/authorize', { card_id: card.card_id, amount: '65.00', merchant_name: 'stale.example.com' });
  assert.equal(asked.status, 202, asked.text);
  const id: string = asked.body.approval_id;
  await pane.waitFor(new RegExp(`${escaped(id)}[^]*Approve, deny or skip\\? \\[a/d/s\\]\\s*$`));

  const denied = await stack.a.post(`/approvals/${id}/deny`, { reason: 'decided in the console' });
  assert.equal(denied.status, 200, denied.text);
  let screen = await pane.waitFor(new RegExp(`${escaped(id)} is no longer pending: it was denied elsewhere\\. Nothing to decide here\\.\\s*$`));
  assert.doesNotMatch(screen, /Approve, deny or skip\? \[a\/d\/s\]\s*$/, 'no stale question stays on the screen');

  // The watch goes on: the next request is asked about, and a key answers it, not the withdrawn one.
  const next = await shopper.post('/authorize', { card_id: card.card_id, amount: '70.00', merchant_name: 'fresh.example.com' });
  const nextId: string = next.body.approval_id;
  await pane.waitFor(new RegExp(`${escaped(nextId)}[^]*Approve, deny or skip\\? \\[a/d/s\\]\\s*$`));
  pane.type('s');
  screen = await pane.waitFor(new RegExp(`Skipped ${escaped(nextId)}`));
  assert.equal((await stack.a.get(`/approvals/${id}`)).body.status, 'denied');
  pane.press('C-c');
  await pane.waitFor(/EXIT=0/);
});
