/**
 * The spending-policy benchmark's data directory contents: a policy of 100 rules and 20 budgets,
 * and a history of authorizations inside the budget windows. The history is written with the
 * daemon's own code — the authorization ledger over the state journal, exactly the records the
 * pipeline writes before signing — rather than by making 10,000 real registrations with the
 * cloud, which would take minutes. Appends go out together, so the journal's group commit writes
 * them in a few fsyncs; the daemon replays them at start like any other history.
 */
import { renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { StoredAuthorizationLedger } from '../src/core/authorization-ledger.js';
import { DATA_FILES, dataFilePath } from '../src/datadir/home.js';
import { randomId } from '../src/ids/random-id.js';
import { StateStore } from '../src/datadir/state-store.js';
import { BENCH_MERCHANT } from './requests.js';

export const POLICY_RULES = 100;
export const POLICY_BUDGETS = 20;
export const HISTORY_AUTHORIZATIONS = 10_000;
/** The history spans the last 20 hours: inside every budget window (a day at least). */
export const HISTORY_SPAN_SECONDS = 20 * 3600;

/**
 * benchPolicyText is a policy the benchmark's requests (1.00 at the benchmark merchant, as the
 * owner) pass: 99 rules about other merchants, with every decision, one rule that allows the
 * benchmark merchant, and budgets of every period, half covering the benchmark's requests, with
 * limits far above what any run spends.
 */
export function benchPolicyText(): string {
  const decisions = ['allow', 'ask', 'deny'] as const;
  const rules: object[] = Array.from({ length: POLICY_RULES - 1 }, (_, i) => ({
    id: `rule-${i}`,
    merchants: [`m${i}.example`, `*.m${i}.example`],
    ...(i % 2 === 0 ? { max_amount: '500.00' } : { min_amount: '20.00' }),
    decision: decisions[i % 3],
  }));
  rules.push({ id: 'bench-merchant', merchants: [BENCH_MERCHANT], max_amount: '100.00', decision: 'allow' });
  const periods = ['day', 'week', 'month'] as const;
  const budgets = Array.from({ length: POLICY_BUDGETS }, (_, i) => ({
    id: `budget-${i}`,
    ...(i % 2 === 0 ? { merchants: [BENCH_MERCHANT] } : { merchants: [`m${i}.example`] }),
    ...(i % 4 === 0 ? { agents: ['owner'] } : {}),
    per: periods[i % 3],
    limit: '10000000.00',
    over: 'deny',
  }));
  return JSON.stringify({ v: 1, default: 'allow', rules, budgets }, null, 1);
}

/** writeBenchPolicy writes policy.json into home at 0600, atomically. */
export function writeBenchPolicy(home: string): void {
  const file = dataFilePath(home, DATA_FILES.policy);
  writeFileSync(`${file}.tmp`, benchPolicyText(), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

/**
 * seedHistory records HISTORY_AUTHORIZATIONS active authorizations of the owner in home's state
 * journal, signed over the last HISTORY_SPAN_SECONDS, most at the benchmark merchant (so the
 * budgets that cover the benchmark's requests hold them), the rest spread over the rules'
 * merchants, on the given cards.
 */
export async function seedHistory(home: string, cardIds: readonly string[]): Promise<void> {
  const store = new StateStore(dataFilePath(home, DATA_FILES.stateJournal));
  const ledger = new StoredAuthorizationLedger(store);
  await store.open();
  try {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const records = Array.from({ length: HISTORY_AUTHORIZATIONS }, (_, i) => {
      const signedAtSeconds = nowSeconds - HISTORY_SPAN_SECONDS + Math.floor((i * HISTORY_SPAN_SECONDS) / HISTORY_AUTHORIZATIONS);
      return ledger.record({
        policyId: randomId('pw'),
        agent: 'owner',
        cardId: cardIds[i % cardIds.length] ?? null,
        merchant: i % 4 === 3 ? `m${i % (POLICY_RULES - 1)}.example` : BENCH_MERCHANT,
        currency: 'USD',
        amountMinor: 100,
        kind: 'one_time',
        authorizationType: 'exact',
        signedAtSeconds,
        notAfterSeconds: signedAtSeconds + 3600,
        state: 'active',
        usedMinor: null,
      });
    });
    await Promise.all(records);
  } finally {
    await store.close();
  }
}

/** historyHome is the path of a cloned home for the policy section. */
export function historyHome(root: string, name: string): string {
  return path.join(root, `home-policy-${name}`);
}
