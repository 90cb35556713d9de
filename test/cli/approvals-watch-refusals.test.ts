/**
 * `latch approvals watch` in a real pseudo-terminal (tmux) shows what is refused while it watches
 * (issue 44 item 3): an agent's request the policy denies appears as one line with the agent, the
 * amount, the merchant, the rule and its reason, and nothing is asked about it.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { addAgent } from '../../src/datadir/agents.js';
import { REPO_ROOT } from '../support/paths.js';
import { startStack, type Stack } from '../support/stack.js';
import { TmuxPane } from './tmux-pane.js';

const POLICY = { v: 1, default: 'allow', rules: [{ id: 'no-casinos', merchants: ['casino.example'], decision: 'deny' }] };

let stack: Stack;
let pane: TmuxPane | undefined;

before(async () => {
  stack = await startStack();
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify(POLICY), { mode: 0o600 });
  addAgent(stack.home, 'shopper');
});
after(async () => {
  pane?.close();
  await stack.close();
});

test('a refusal while the owner watches appears on the watch, with the agent, amount, merchant and rule', async () => {
  pane = new TmuxPane('watch-refusals');
  pane.start(`LATCH_HOME='${stack.home}' LATCH_URL='http://127.0.0.1:${stack.portA}' node --import tsx src/cli/main.ts approvals watch`, REPO_ROOT);
  await pane.waitFor(/Watching for requests that need your approval, and for what is refused/);
  const refused = await stack.agent('shopper').post('/authorize', { card_id: stack.cards[0].card_id, amount: '5.00', merchant_name: 'casino.example' });
  assert.equal(refused.status, 403, refused.text);
  const screen = await pane.waitFor(/Refused: shopper asked for 5\.00 USD at casino\.example: policy_denied \(rule no-casinos\)/);
  assert.doesNotMatch(screen, /Approve, deny or skip/, 'a refusal asks nothing');
  pane.press('C-c');
  await pane.waitFor(/Stopped watching\./);
});
