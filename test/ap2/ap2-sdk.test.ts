/**
 * AP2's own SDK accepts Latch's chains, recurring ones included, with the context Latch reports
 * (shared/spec/ap2-mandates.md §5, §6; docs/ap2.md, "A credentials provider's check"). It runs
 * scripts/ap2-sdk-check.py against a real daemon and sandbox: the agent's key made by the SDK, a
 * one-time mandate and a recurring one from POST /ap2/mandates, a charge against the recurring
 * window, and GET /ap2/mandates/:id/context turned into AP2's MandateContext.
 *
 * The AP2 SDK is no npm package: this runs when LATCH_AP2_PYTHON names a Python with pydantic,
 * jwcrypto, cryptography and pyyaml, and LATCH_AP2_PYTHONPATH holds AP2's code/sdk/python (v0.2.0)
 * and sd-jwt-python's src (9181a0a), as docs/ap2.md shows; otherwise it is skipped, saying so.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { addAgent } from '../../src/datadir/agents.js';
import { startStack, type JsonClient, type Stack } from '../support/stack.js';

const run = promisify(execFile);
const PYTHON = process.env['LATCH_AP2_PYTHON'];
const PYTHONPATH = process.env['LATCH_AP2_PYTHONPATH'];
const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/ap2-sdk-check.py');
const skip = PYTHON === undefined || PYTHONPATH === undefined ? 'LATCH_AP2_PYTHON and LATCH_AP2_PYTHONPATH are not set (docs/ap2.md)' : false;

let stack: Stack;
let shopper: JsonClient;
let folder: string;

const sdk = (mode: string) => run(PYTHON as string, [SCRIPT, mode, folder], { env: { ...process.env, PYTHONPATH }, timeout: 120_000 });

before(async () => {
  if (skip !== false) return;
  folder = mkdtempSync(path.join(tmpdir(), 'latch-ap2-sdk-'));
  stack = await startStack();
  addAgent(stack.home, 'shopper');
  shopper = stack.agent('shopper');
});
after(async () => {
  if (skip !== false) return;
  await stack.close();
  rmSync(folder, { recursive: true, force: true });
});

test("AP2's SDK accepts a one-time and a recurring chain with Latch's context, and refuses every other case by its own words", { skip }, async () => {
  await sdk('agent-key');
  const agentKey = JSON.parse(readFileSync(path.join(folder, 'agent.pub.jwk'), 'utf8')) as Record<string, unknown>;
  const jwks = (await stack.a.get('/ap2/jwks')).body as { keys: Record<string, unknown>[] };
  writeFileSync(path.join(folder, 'latch.jwk'), JSON.stringify(jwks.keys[0]));
  const merchant = { name: 'Example Shop', website: 'https://shop.example' };
  const items = [{ id: 'sku-1', title: 'Blue mug', alternatives: [{ id: 'sku-2', title: 'Red mug' }] }];
  const once = await shopper.post('/ap2/mandates', { card_id: stack.cards[0].card_id, merchant, amount_max: '25.00', items, agent_key: agentKey });
  assert.equal(once.status, 201, once.text);
  writeFileSync(path.join(folder, 'mandates.json'), once.text);
  writeFileSync(path.join(folder, 'terms.json'), JSON.stringify({ card_id: stack.cards[0].card_id, merchant_id: 'shop.example', amount_max_minor: 2500, item: 'sku-1', alternative: 'sku-2' }));

  const card = stack.cards[1].card_id;
  const recurring = await shopper.post('/ap2/mandates', { card_id: card, merchant, amount_max: '20.00', items, agent_key: agentKey, recurrence: { frequency: 'WEEKLY', max_occurrences: 3 }, budget: '30.00' });
  assert.equal(recurring.status, 201, recurring.text);
  writeFileSync(path.join(folder, 'recurring.json'), recurring.text);
  const charged = await stack.charge(card, 'shop.example', '20.00');
  assert.equal(charged.body.decision, 'approved', charged.text);
  const context = await shopper.get(`/ap2/mandates/${recurring.body.mandate_id as string}/context`);
  assert.deepEqual([context.body.total_amount, context.body.occurrences], [2000, 1], context.text);
  writeFileSync(path.join(folder, 'context.json'), context.text);
  // The recurring chain's terms differ from the one-time chain's only in the card the script reads.
  const terms = JSON.parse(readFileSync(path.join(folder, 'terms.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(path.join(folder, 'terms.json'), JSON.stringify({ ...terms, recurring_card_id: card }));

  const result = await sdk('verify').then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: `${error.stdout}\n${error.stderr}` }),
  );
  assert.equal(result.code, 0, result.stdout);
  // 20.00 of a 30.00 budget spent: 10.00 more is accepted, 10.01 is past the budget and nothing else.
  assert.match(result.stdout, /ok +recurring: 1000 with Latch's context \(1 used\) +-> accepted/);
  assert.match(result.stdout, /ok +recurring: past the budget with that context +-> \['Cumulative spend 3001 exceeds budget limit 3000 \(past spend: 2000\)'\]\n/);
  assert.match(result.stdout, /ok +recurring: occurrences used up +-> \['Maximum occurrences exceeded/);
  assert.match(result.stdout, /ok +payment at the maximum +-> accepted/);
});
