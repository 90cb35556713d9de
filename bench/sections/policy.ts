/**
 * Section 7, the spending policy. Three cloned homes of the enrolled device (bench/policy-history.ts):
 *
 * - `history`: 10,000 authorizations in the state journal, no policy.json;
 * - `policy`: the same history and a policy of 100 rules and 20 budgets;
 * - `fresh`: the same policy and no history.
 *
 * p50 of POST /authorize at 1 client is measured on `policy` against `history` in alternating
 * rounds, so the difference is the policy's decision and reservation alone (the history's
 * authorizations are all inside the budget windows). Start is spawn() to the first GET /health
 * answered 200 (state.journal is replayed before the daemon serves), and then to the first POST
 * /policy/check answered 200 — the first decision, which builds the budgets from the history —
 * for `policy` against `fresh`, in alternation.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { BenchStack, LatchUnderTest } from '../bench-stack.js';
import { cloneHome } from '../bench-stack.js';
import { freePort, spawnNode, wrap } from '../child-process.js';
import { figure, labelled, type Figure } from '../figures.js';
import { send, type LoadRequest } from '../load-generator.js';
import { HISTORY_AUTHORIZATIONS, POLICY_BUDGETS, POLICY_RULES, historyHome, seedHistory, writeBenchPolicy } from '../policy-history.js';
import { BENCH_MERCHANT, roundRobin, windowRequest } from '../requests.js';
import { measureAlternating, type RunShape } from '../rounds.js';
import { median } from '../stats.js';

const START_TIMEOUT_MS = 60_000;
const POLL_INTERVAL_MS = 2;

export interface PolicyTargets {
  stack: BenchStack;
  latch: LatchUnderTest;
  /** How many starts of each (10 in a full run). */
  starts: number;
}

/** prepareHomes makes the three homes; the history is written once and copied by seeding twice. */
async function prepareHomes(stack: BenchStack): Promise<{ history: string; policy: string; fresh: string }> {
  const homes = { history: historyHome(stack.root, 'history'), policy: historyHome(stack.root, 'on'), fresh: historyHome(stack.root, 'fresh') };
  for (const home of Object.values(homes)) cloneHome(stack.home, home);
  await seedHistory(homes.history, stack.cardIds);
  await seedHistory(homes.policy, stack.cardIds);
  writeBenchPolicy(homes.policy);
  writeBenchPolicy(homes.fresh);
  return homes;
}

/** tokenOf reads a home's daemon token: each daemon start replaces it, so it is read after the start. */
function tokenOf(home: string): string {
  return readFileSync(path.join(home, 'daemon_token'), 'utf8').trim();
}

function checkRequest(token: string, cardId: string): LoadRequest {
  return {
    method: 'POST',
    path: '/policy/check',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ card_id: cardId, amount: '1.00', merchant_name: BENCH_MERCHANT })),
  };
}

/**
 * startToFirstDecision spawns the daemon on home and returns the ms until GET /health answered
 * 200 (the daemon's start: state.journal is replayed before it serves) and until the first POST
 * /policy/check answered 200 (which also builds the budgets from the history).
 */
async function startToFirstDecision(targets: PolicyTargets, home: string, name: string): Promise<{ healthMs: number; decisionMs: number }> {
  const port = await freePort();
  const spawnedMs = performance.now();
  const child = spawnNode({
    root: targets.latch.root,
    entry: 'src/cli/main.ts',
    args: ['daemon', '--port-a', String(port), '--no-variant-b'],
    env: { ...targets.stack.env, LATCH_HOME: home },
    stderrFile: targets.stack.logFile(`policy-start-${name}`),
  });
  child.stdout?.resume();
  const server = wrap(child, {});
  try {
    let healthMs: number | undefined;
    while (healthMs === undefined) {
      const answer = await send(false, port, { method: 'GET', path: '/health', headers: {} });
      if (answer.status === 200) healthMs = performance.now() - spawnedMs;
      else if (child.exitCode !== null) throw new Error(`policy ${name}: the daemon exited with ${child.exitCode}`);
      else if (performance.now() - spawnedMs > START_TIMEOUT_MS) throw new Error(`policy ${name}: no /health within ${START_TIMEOUT_MS} ms`);
      else await sleep(POLL_INTERVAL_MS);
    }
    for (;;) {
      // Until the daemon serves, the token file may still hold the previous start's token: 401, poll again.
      const answer = await send(false, port, checkRequest(tokenOf(home), targets.stack.cardIds[0] as string));
      if (answer.status === 200) return { healthMs, decisionMs: performance.now() - spawnedMs };
      if (child.exitCode !== null) throw new Error(`policy ${name}: the daemon exited with ${child.exitCode}`);
      if (answer.status !== 0 && answer.status !== 401) throw new Error(`policy ${name}: /policy/check answered ${answer.status}: ${answer.text.slice(0, 200)}`);
      if (performance.now() - spawnedMs > START_TIMEOUT_MS) throw new Error(`policy ${name}: no decision within ${START_TIMEOUT_MS} ms`);
      await sleep(POLL_INTERVAL_MS);
    }
  } finally {
    await server.stop();
  }
}

/** measurePolicy returns section 7's rows: /authorize p50 with and without the policy, and start with and without the history. */
export async function measurePolicy(shape: RunShape, targets: PolicyTargets): Promise<Figure[]> {
  const { stack, latch } = targets;
  const homes = await prepareHomes(stack);
  const history = await stack.startDaemon({ ...latch, home: homes.history });
  const policy = await stack.startDaemon({ ...latch, home: homes.policy });
  const historyToken = tokenOf(homes.history);
  const policyToken = tokenOf(homes.policy);
  let loads;
  try {
    const card = roundRobin(stack.cardIds);
    const common = { concurrency: 1, expectStatus: 200 };
    loads = await measureAlternating(shape, {
      without: { ...common, port: history.port, request: () => windowRequest('/authorize', historyToken, card()) },
      with: { ...common, port: policy.port, request: () => windowRequest('/authorize', policyToken, card()) },
    });
  } finally {
    await history.server.stop();
    await policy.server.stop();
  }
  const starts = { fresh: [] as Array<{ healthMs: number; decisionMs: number }>, policy: [] as Array<{ healthMs: number; decisionMs: number }> };
  for (let n = 0; n < targets.starts; n += 1) {
    starts.fresh.push(await startToFirstDecision(targets, homes.fresh, 'fresh'));
    starts.policy.push(await startToFirstDecision(targets, homes.policy, 'history'));
  }
  const without = loads['without'];
  const withPolicy = loads['with'];
  if (without === undefined || withPolicy === undefined) throw new Error('policy: missing result');
  const shapeNote = `${POLICY_RULES} rules, ${POLICY_BUDGETS} budgets, ${HISTORY_AUTHORIZATIONS} authorizations in the budget windows (seeded into state.journal through the authorization ledger)`;
  return [
    figure({
      section: 7,
      name: labelled('POST /authorize p50, 1 client, with the spending policy', latch.label),
      unit: 'ms',
      value: withPolicy.p50Ms,
      baseline: without.p50Ms,
      baselineName: 'same daemon and history, no policy.json',
      goal: { kind: 'added_at_most', limit: 0.2 },
      note: `${shapeNote}; /sign-card-policy-window is a signing primitive the policy does not govern, so it is not measured here`,
    }),
    figure({
      section: 7,
      name: labelled(`Daemon start with the policy and ${HISTORY_AUTHORIZATIONS} authorizations of history (median of ${targets.starts})`, latch.label),
      unit: 'ms',
      value: median(starts.policy.map((start) => start.healthMs)),
      baseline: median(starts.fresh.map((start) => start.healthMs)),
      baselineName: 'same policy, no history',
      goal: { kind: 'ratio_at_most', limit: 1.2 },
      note: 'spawn() to the first GET /health answered 200; state.journal is replayed before the daemon serves',
    }),
    figure({
      section: 7,
      name: labelled(`Start to first policy decision, ${HISTORY_AUTHORIZATIONS} authorizations of history (median of ${targets.starts})`, latch.label),
      unit: 'ms',
      value: median(starts.policy.map((start) => start.decisionMs)),
      baseline: median(starts.fresh.map((start) => start.decisionMs)),
      baselineName: 'same policy, no history',
      note: 'spawn() to the first POST /policy/check answered 200: the start, then the budgets built from the history at the first decision (no goal; the goal is the start\'s, the row above)',
    }),
  ];
}
