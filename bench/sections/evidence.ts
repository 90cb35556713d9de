/**
 * Section 9, evidence packs (docs/evidence.md): how long GET /authorizations/:policy_id/evidence
 * takes for one authorization when the device has a history — 10,000 authorizations in the
 * ledger (state.journal, bench/policy-history.ts) and 30,000 lines of audit.log before it (three
 * lines an authorization, bench/history-builder.ts) — against the same daemon with no history.
 *
 * Each side makes one real authorization first (POST /authorize, registered with the sandbox), and
 * its pack is then asked for by one client in alternating rounds. A pack reads the ledger entry
 * (a map lookup), scans audit.log once for the authorization's lines, asks the cloud for the
 * authorization and the card's newest transactions (two signed requests, each with its audit
 * line), writes its own audit line, and makes two Ed25519 signatures (the window's, again, and the
 * pack's); the history side's difference is what the history costs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchStack, LatchUnderTest } from '../bench-stack.js';
import { cloneHome } from '../bench-stack.js';
import { figure, labelled, type Figure } from '../figures.js';
import { buildAuditHistory } from '../history-builder.js';
import { send } from '../load-generator.js';
import { HISTORY_AUTHORIZATIONS, seedHistory } from '../policy-history.js';
import { windowRequest } from '../requests.js';
import { measureAlternating, type RunShape } from '../rounds.js';

/** Audit lines written before the measured authorization in the history home. */
export const EVIDENCE_HISTORY_AUDIT_LINES = 3 * HISTORY_AUTHORIZATIONS;
/** The evidence pack goal of issue 27: a pack with 10,000 authorizations in the ledger in at most 50 ms (p50). */
export const EVIDENCE_P50_MS_MAX = 50;

export interface EvidenceTargets {
  stack: BenchStack;
  latch: LatchUnderTest;
}

/** tokenOf reads a home's daemon token: each daemon start replaces it, so it is read after the start. */
function tokenOf(home: string): string {
  return readFileSync(path.join(home, 'daemon_token'), 'utf8').trim();
}

/** oneAuthorization registers one window through the daemon and returns its policy id. */
async function oneAuthorization(port: number, token: string, cardId: string): Promise<string> {
  const answer = await send(false, port, windowRequest('/authorize', token, cardId));
  if (answer.status !== 200) throw new Error(`evidence: /authorize answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  return (JSON.parse(answer.text) as { policy_id: string }).policy_id;
}

/** measureEvidence returns section 9's row: the pack's p50 at 1 client, with and without history. */
export async function measureEvidence(shape: RunShape, targets: EvidenceTargets): Promise<Figure[]> {
  const { stack, latch } = targets;
  const homes = { history: path.join(stack.root, 'home-evidence-history'), fresh: path.join(stack.root, 'home-evidence-fresh') };
  for (const home of Object.values(homes)) cloneHome(stack.home, home);
  await seedHistory(homes.history, stack.cardIds);
  const audit = buildAuditHistory(homes.history, EVIDENCE_HISTORY_AUDIT_LINES);
  const history = await stack.startDaemon({ ...latch, home: homes.history });
  const fresh = await stack.startDaemon({ ...latch, home: homes.fresh });
  let loads;
  try {
    const card = stack.cardIds[0] as string;
    const request = (port: number, token: string, policyId: string) => () => ({
      method: 'GET' as const,
      path: `/authorizations/${policyId}/evidence`,
      headers: { authorization: `Bearer ${token}`, 'user-agent': 'latch-bench/1' },
    });
    const historyToken = tokenOf(homes.history);
    const freshToken = tokenOf(homes.fresh);
    const historyId = await oneAuthorization(history.port, historyToken, card);
    const freshId = await oneAuthorization(fresh.port, freshToken, card);
    loads = await measureAlternating(shape, {
      fresh: { port: fresh.port, concurrency: 1, expectStatus: 200, request: request(fresh.port, freshToken, freshId) },
      history: { port: history.port, concurrency: 1, expectStatus: 200, request: request(history.port, historyToken, historyId) },
    });
  } finally {
    await history.server.stop();
    await fresh.server.stop();
  }
  const withHistory = loads['history'];
  const without = loads['fresh'];
  if (withHistory === undefined || without === undefined) throw new Error('evidence: missing result');
  return [
    figure({
      section: 9,
      name: labelled(`GET /authorizations/:id/evidence p50, 1 client, ${HISTORY_AUTHORIZATIONS} authorizations of history`, latch.label),
      unit: 'ms',
      value: withHistory.p50Ms,
      baseline: without.p50Ms,
      baselineName: 'same daemon, no history',
      goal: { kind: 'value_at_most', limit: EVIDENCE_P50_MS_MAX },
      note: `${HISTORY_AUTHORIZATIONS} ledger entries and ${EVIDENCE_HISTORY_AUDIT_LINES} audit lines (${(audit.bytes / 1e6).toFixed(1)} MB) before the authorization; p99 ${withHistory.p99Ms.toFixed(1)} ms against ${without.p99Ms.toFixed(1)} ms; each pack makes two cloud requests and three audit appends`,
    }),
  ];
}
