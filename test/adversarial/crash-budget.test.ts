/**
 * kill -9 of a daemon (a child process) while budget reservations are in flight, then a restart:
 * the rebuilt exposure never undercounts what the cloud holds, and across both lives the budget is
 * never overspent. Each round kills at a seeded moment, after some requests were answered and
 * while others are still being decided, signed or registered.
 */
import assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { readToken } from '../../src/datadir/token.js';
import { startStack, type Stack } from '../support/stack.js';
import { killAll, killHard, startDaemonChild } from './child-process.js';
import { fuzzSeed, SeededRandom } from './seeded-random.js';

const MERCHANT = 'coffee.example.com';
const LIMIT_MINOR = 500;
const AMOUNT_MINOR = 25;
const ROUNDS = 3;

let stack: Stack;
before(async () => {
  stack = await startStack();
  await stack.daemon.close({ deadlineMs: 1_000 });
  const file = path.join(stack.home, 'policy.json');
  const policy = { v: 1, budgets: [{ id: 'coffee-daily', merchants: [MERCHANT], per: 'day', limit: '5.00', over: 'deny' }] };
  writeFileSync(`${file}.tmp`, JSON.stringify(policy), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
});
after(async () => {
  await killAll();
  await stack.close();
});

function post(portA: number, route: string, body: unknown): Promise<{ status: number; body: any }> {
  return fetch(`http://127.0.0.1:${portA}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${readToken(stack.home)}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (response) => ({ status: response.status, body: await response.json() }));
}

/** minorOf reads a two-decimal amount string as integer minor units, without floating point. */
const minorOf = (text: string): number => {
  assert.match(text, /^\d+\.\d{2}$/);
  return Number(text.replace('.', ''));
};

const coffee = { card_id: '', amount: '0.25', merchant_name: MERCHANT, ttl_minutes: 60 };
/** What the cloud holds at the merchant and could still be charged: what the budget must count. */
const heldAtCloudMinor = () => [...stack.sandbox.state().authorizations.values()].filter((a) => a.merchant === MERCHANT && a.status === 'active').reduce((sum, a) => sum + a.amount, 0);
const registeredAtCloud = () => [...stack.sandbox.state().authorizations.values()].filter((a) => a.merchant === MERCHANT).length;

test(`kill -9 with reservations in flight, ${ROUNDS} rounds: no undercount after restart, never overspent`, async () => {
  coffee.card_id = stack.cards[0].card_id;
  const random = new SeededRandom(fuzzSeed());
  for (let round = 0; round < ROUNDS; round++) {
    const { child, portA } = await startDaemonChild(stack.home);
    // After a restart the rebuilt exposure covers everything the cloud holds.
    const check = await post(portA, '/policy/check', coffee);
    assert.equal(check.status, 200, JSON.stringify(check.body));
    const exposureMinor = minorOf(check.body.budgets[0].exposure);
    assert.ok(exposureMinor >= heldAtCloudMinor(), `round ${round}: exposure ${exposureMinor} < held at the cloud ${heldAtCloudMinor()}`);

    let answered = 0;
    const killAfter = 1 + random.int(4);
    const inFlight = Array.from({ length: 12 }, () =>
      post(portA, '/authorize', coffee).then(
        (answer) => {
          answered++;
          if (answer.status !== 200) assert.equal(answer.body.error.code, 'policy_denied', JSON.stringify(answer.body));
        },
        () => undefined,
      ),
    );
    while (answered < killAfter && child.process.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 2));
    await killHard(child);
    await Promise.all(inFlight);
    assert.ok(registeredAtCloud() * AMOUNT_MINOR <= LIMIT_MINOR, `round ${round}: ${registeredAtCloud()} authorizations exceed the budget`);
  }

  // A last life fills the budget: across every crash the cloud never holds more than the limit.
  const { child, portA } = await startDaemonChild(stack.home);
  try {
    const answers = await Promise.all(Array.from({ length: 25 }, () => post(portA, '/authorize', coffee)));
    for (const answer of answers.filter((a) => a.status !== 200)) assert.equal(answer.body.error.rule, 'coffee-daily');
    assert.ok(registeredAtCloud() * AMOUNT_MINOR <= LIMIT_MINOR, `${registeredAtCloud()} authorizations exceed the budget`);
    const check = await post(portA, '/policy/check', coffee);
    assert.ok(minorOf(check.body.budgets[0].exposure) >= heldAtCloudMinor());
  } finally {
    await killHard(child);
  }
});
