/**
 * kill -9 of a real daemon (a child process) at a seeded moment under concurrent load, a few
 * times, to prove group commit keeps "written before answered" (docs/decisions.md §26): eight
 * clients sign windows and authorize at once, so audit lines and state.journal records are
 * committed in shared fdatasyncs. After each kill, every operation the daemon acknowledged is on
 * disk — its audit line and, for an authorization, its ledger record — the audit chain verifies,
 * and the state journal holds only whole records (a torn last one is cut off at the restart,
 * never replayed). The daemon then starts on what the kill left and signs again.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { readAudit } from '../../src/verify/audit-read.js';
import { verifyAudit } from '../../src/verify/audit-verify.js';
import { readToken } from '../../src/datadir/token.js';
import { readFrames } from '../../src/store/journal.js';
import { startStack, type Stack } from '../support/stack.js';
import { killAll, killHard, startDaemonChild } from './child-process.js';
import { fuzzSeed, SeededRandom } from './seeded-random.js';
import { sleep } from './wire.js';

const ROUNDS = 3;
const CLIENTS = 8;
/** Acknowledgements to see before the kill can land, so that it lands in a stream of commits. */
const ACKS_BEFORE_KILL = 2 * CLIENTS;
const KILL_DELAY_MS_MAX = 250;
const STARTUP_MS = 30_000;
const LOAD_MS_MAX = 60_000;

let stack: Stack;
before(async () => {
  stack = await startStack();
  // The rounds run their own daemon as a child process on the same data directory.
  await stack.daemon.close({ deadlineMs: 1_000 });
});
after(async () => {
  await killAll();
  await stack.close();
});

/** What the daemon answered 200 to: the policy ids of its windows, by route. */
interface Acknowledged {
  windows: string[];
  authorizations: string[];
  refusals: string[];
}

/**
 * load runs CLIENTS loops against the daemon, alternating a local window and a cloud
 * authorization, until the daemon dies. A request whose connection broke was not acknowledged.
 */
function load(portA: number, round: number): { acknowledged: Acknowledged; done: Promise<void> } {
  const acknowledged: Acknowledged = { windows: [], authorizations: [], refusals: [] };
  const token = readToken(stack.home);
  const deadline = Date.now() + LOAD_MS_MAX;
  const client = async (index: number) => {
    for (let i = 0; Date.now() < deadline; i++) {
      const authorize = (i + index) % 2 === 1;
      const body = authorize
        ? { card_id: stack.cards[0].card_id, amount: 0.01, merchant_name: `crash-${round}-${index}-${i}.example`, ttl_minutes: 1 }
        : { amount: 1, merchant_name: `window-${round}-${index}-${i}.example` };
      let status: number;
      let text: string;
      try {
        const response = await fetch(`http://127.0.0.1:${portA}${authorize ? '/authorize' : '/sign-policy-window'}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        status = response.status;
        text = await response.text();
      } catch {
        return;
      }
      if (status !== 200) {
        acknowledged.refusals.push(`${status} ${text.slice(0, 200)}`);
        continue;
      }
      const answer = JSON.parse(text) as { policy_id?: unknown; policy_window?: { policy_id?: unknown } };
      const policyId = answer.policy_id ?? answer.policy_window?.policy_id;
      // A 200 answer without a policy id is counted as a refusal, which the checks report.
      if (typeof policyId !== 'string') {
        acknowledged.refusals.push(`200 without a policy id: ${text.slice(0, 200)}`);
        continue;
      }
      (authorize ? acknowledged.authorizations : acknowledged.windows).push(policyId);
    }
  };
  return { acknowledged, done: Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index))).then(() => undefined) };
}

/** journalRecords reads state.journal as the next start will: whole records, and the bytes of a torn tail. */
function journalRecords(): { records: Array<{ type: string; policy_id?: string }>; droppedBytes: number } {
  const file = path.join(stack.home, 'state.journal');
  const contents = readFrames(readFileSync(file), file);
  return { records: contents.payloads.map((payload) => JSON.parse(payload.toString('utf8')) as { type: string; policy_id?: string }), droppedBytes: contents.droppedBytes };
}

interface Aftermath {
  round: number;
  acknowledged: Acknowledged;
  auditVerified: ReturnType<typeof verifyAudit>;
  missingAuditLines: string[];
  missingLedgerRecords: string[];
}
const aftermaths: Aftermath[] = [];

test(`kill -9 under ${CLIENTS} concurrent clients, ${ROUNDS} times: every acknowledged operation is on disk, nothing half-written is replayed`, async () => {
  const random = new SeededRandom(fuzzSeed() ^ 0x27c0);
  for (let round = 1; round <= ROUNDS; round++) {
    const daemon = await startDaemonChild(stack.home);
    const running = load(daemon.portA, round);
    const acks = () => running.acknowledged.windows.length + running.acknowledged.authorizations.length;
    const deadline = Date.now() + STARTUP_MS;
    while (acks() < ACKS_BEFORE_KILL) {
      assert.ok(Date.now() < deadline, `round ${round}: only ${acks()} answers within ${STARTUP_MS} ms; refusals: ${running.acknowledged.refusals.slice(0, 3).join(' | ')}`);
      await sleep(10);
    }
    await sleep(random.int(KILL_DELAY_MS_MAX));
    await killHard(daemon.child);
    await running.done;

    // Read what the kill left, before a restart repairs anything.
    const { acknowledged } = running;
    const audited = new Set(readAudit(stack.home).map((record) => record['policy_id']));
    const journal = journalRecords();
    const ledger = new Set(journal.records.filter((record) => record.type === 'authorization').map((record) => record.policy_id));
    aftermaths.push({
      round,
      acknowledged,
      auditVerified: verifyAudit(stack.home),
      missingAuditLines: [...acknowledged.windows, ...acknowledged.authorizations].filter((id) => !audited.has(id)),
      missingLedgerRecords: acknowledged.authorizations.filter((id) => !ledger.has(id)),
    });

    // The restart replays the journal: a torn last record is cut off, never read as a record.
    const restarted = await startDaemonChild(stack.home);
    const file = path.join(stack.home, 'state.journal');
    const replayed = journalRecords();
    assert.equal(replayed.droppedBytes, 0, `round ${round}: the restart cut the torn tail off`);
    assert.equal(statSync(file).size, readFileSync(file).length);
    assert.deepEqual(
      replayed.records.filter((record) => typeof record.type !== 'string'),
      [],
      `round ${round}: every replayed record is a whole, typed record`,
    );
    await killHard(restarted.child);
  }

  // The daemon starts on what the last kill left, signs, and the chain still verifies.
  const daemon = await startDaemonChild(stack.home);
  const signed = await fetch(`http://127.0.0.1:${daemon.portA}/sign-policy-window`, {
    method: 'POST',
    headers: { authorization: `Bearer ${readToken(stack.home)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 1, merchant_name: 'after.example' }),
  });
  assert.equal(signed.status, 200, await signed.text());
  await killHard(daemon.child);
  assert.equal(verifyAudit(stack.home).ok, true, JSON.stringify(verifyAudit(stack.home)));
});

test('after every kill, each acknowledged signature has its audit line and each acknowledged authorization its ledger record', () => {
  assert.equal(aftermaths.length, ROUNDS);
  for (const aftermath of aftermaths) {
    const { round, acknowledged } = aftermath;
    assert.ok(acknowledged.windows.length > 0 && acknowledged.authorizations.length > 0, `round ${round}: both routes were acknowledged before the kill`);
    assert.deepEqual(acknowledged.refusals, [], `round ${round}: nothing was refused under load`);
    assert.deepEqual(aftermath.missingAuditLines, [], `round ${round}: acknowledged but not in audit.log`);
    assert.deepEqual(aftermath.missingLedgerRecords, [], `round ${round}: acknowledged but not in state.journal`);
  }
});

test('after every kill, the audit chain verifies', () => {
  assert.equal(aftermaths.length, ROUNDS);
  for (const aftermath of aftermaths) assert.ok(aftermath.auditVerified.ok, `round ${aftermath.round}: ${JSON.stringify(aftermath.auditVerified)}`);
});
