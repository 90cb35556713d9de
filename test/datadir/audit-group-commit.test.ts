/**
 * The audit writer's group commit (docs/decisions.md §26.1): appends that arrive while an
 * fdatasync runs share the next one, the chain keeps the order of the calls, and a failed
 * fdatasync fails every waiter of its commit and everything after it — nothing is acknowledged
 * that may not be on disk. The fdatasync is the writer's own `sync`, counted or made to fail here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { fdatasync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import type { AuditEntry } from '../../src/datadir/audit-entry.js';
import { AUDIT_LINGER_MS, createAuditWriter } from '../../src/datadir/audit-writer.js';
import { assertAuditAppendable, auditLogPath, type AuditAppendResult } from '../../src/datadir/audit-log.js';
import { readAuditHead } from '../../src/verify/audit-read.js';
import { verifyAudit } from '../../src/verify/audit-verify.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { tempHome } from './temp-home.js';

const NOW = new Date('2025-03-04T05:06:07.000Z');
const realSync = promisify(fdatasync);

function entry(n: number): AuditEntry {
  return { operation: 'sign_request', policy_id: `pw_${n}`, key_id: 'kid', request_id: `req_${n}`, user_agent: 'agent/1.0', method: 'GET', path: '/v1/wallet' };
}

function logLines(home: string): string[] {
  const text = readFileSync(auditLogPath(home), 'utf8');
  return text === '' ? [] : text.trimEnd().split('\n');
}

/** gate returns a promise and the function that opens it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** waitUntil yields to the event loop until condition holds, or fails after a deadline. */
async function waitUntil(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`waited 10 s for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** settle records how each promise ended, without letting a rejection go unhandled. */
function settle<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

test('appends that arrive while an fdatasync runs share the next one', async () => {
  const home = tempHome();
  const first = gate();
  let syncs = 0;
  const writer = createAuditWriter(home, {
    sync: async (fd) => {
      syncs += 1;
      // The first commit waits on the disk until every other caller has appended.
      if (syncs === 1) await first.opened;
      await realSync(fd);
    },
  });
  const lone = writer.append(entry(1), NOW);
  // Let the first commit reach its fdatasync before the others arrive.
  await waitUntil(() => syncs >= 1, 'the first commit to reach its fdatasync');
  const others = Array.from({ length: 31 }, (_, n) => writer.append(entry(n + 2), NOW));
  first.open();
  const results = await Promise.all([lone, ...others]);
  await writer.idle();
  assert.equal(syncs, 2, '32 appends, 31 of them during the first fdatasync: two fdatasyncs of the log');
  assert.deepEqual(results.map((result) => result.record.seq), Array.from({ length: 32 }, (_, n) => n + 1));
  assert.deepEqual(verifyAudit(home), { ok: true, lines: 32 });
});

test('an fdatasync failure fails every waiter of its commit, and nothing after it is acknowledged', async () => {
  const home = tempHome();
  const releaseFirst = gate();
  const releaseSecond = gate();
  let syncs = 0;
  const writer = createAuditWriter(home, {
    sync: async (fd) => {
      syncs += 1;
      if (syncs === 1) {
        // Hold the first commit until the second batch is queued behind it.
        await releaseFirst.opened;
        return realSync(fd);
      }
      await releaseSecond.opened;
      throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    },
  });
  const first = settle(writer.append(entry(1), NOW));
  await waitUntil(() => syncs >= 1, 'the first commit to reach its fdatasync');
  const batch = [2, 3, 4].map((n) => settle(writer.append(entry(n), NOW)));
  releaseFirst.open();
  const ok = await first;
  assert.ok(ok.ok, 'the commit before the failure is acknowledged');
  // An append made while the failing commit waits on the disk, and one made after it failed.
  await waitUntil(() => syncs >= 2, 'the second commit to reach its fdatasync');
  const during = settle(writer.append(entry(5), NOW));
  releaseSecond.open();
  const failed = await Promise.all(batch);
  const later = await settle(writer.append(entry(6), NOW));
  for (const [index, outcome] of [...failed, await during, later].entries()) {
    assert.equal(outcome.ok, false, `append ${index + 2} must not be acknowledged`);
    const error = (outcome as { error: unknown }).error;
    assert.ok(error instanceof DataDirError && error.code === 'write_failed', `append ${index + 2}: ${String(error)}`);
    assert.doesNotMatch(error.message, /pw_|req_/, 'the error names the file, not the entry');
  }
  await writer.idle();
  assert.equal(syncs, 2, 'nothing after the failed commit is written or synced');
  // The file holds the acknowledged line and the failed commit's lines, which the kernel may or
  // may not keep; nothing queued after the failure. A restart checks it and accepts it.
  const policies = logLines(home).map((line) => (JSON.parse(line) as { policy_id: string }).policy_id);
  assert.deepEqual(policies, ['pw_1', 'pw_2', 'pw_3', 'pw_4']);
  assertAuditAppendable(home);
  assert.equal(verifyAudit(home).ok, true);
  // A new writer (the restarted daemon) appends after what is on disk.
  const restarted = createAuditWriter(home);
  const { record } = await restarted.append(entry(7), NOW);
  assert.equal(record.seq, 5);
  await restarted.idle();
  assert.deepEqual(verifyAudit(home), { ok: true, lines: 5 });
});

test('the chain keeps the order of the calls across commits of every size', async () => {
  const home = tempHome();
  let syncs = 0;
  // Commits that take a varying time make batches of varying sizes.
  const writer = createAuditWriter(home, {
    sync: async (fd) => {
      syncs += 1;
      await new Promise((resolve) => setTimeout(resolve, syncs % 3));
      await realSync(fd);
    },
  });
  const calls: Array<Promise<AuditAppendResult>> = [];
  for (let round = 0; round < 20; round++) {
    for (let n = 0; n <= round % 7; n++) calls.push(writer.append(entry(calls.length + 1), NOW));
    await new Promise((resolve) => setImmediate(resolve));
  }
  const results = await Promise.all(calls);
  await writer.idle();
  assert.ok(syncs < calls.length, `${calls.length} appends shared ${syncs} fdatasyncs`);
  const lines = logLines(home);
  assert.equal(lines.length, calls.length);
  let prev = '0'.repeat(64);
  results.forEach((result, index) => {
    assert.equal(result.record.seq, index + 1, 'seq follows the order of the calls');
    assert.equal(result.record.policy_id, `pw_${index + 1}`);
    assert.equal(result.record.prev, prev, 'each line chains to the one called before it');
    prev = createHash('sha256').update(lines[index] as string, 'utf8').digest('hex');
    assert.equal(result.hash, prev);
  });
  assert.deepEqual(verifyAudit(home), { ok: true, lines: calls.length });
});

test('an append that arrives a moment after an announced commit joins the burst: one fdatasync, no second settle', async () => {
  const cases = [
    // Within the linger: the burst goes on, and its head is settled once at the end.
    { name: 'after 1 ms', delayMs: 1, settles: 1 },
    // Long after it: the burst settled and let go; the lone line after it needs no announcement.
    { name: `after ${AUDIT_LINGER_MS * 25} ms`, delayMs: AUDIT_LINGER_MS * 25, settles: 2 },
  ];
  for (const { name, delayMs, settles } of cases) {
    const home = tempHome();
    let settled = 0;
    let announced = 0;
    let syncs = 0;
    const writer = createAuditWriter(home, {
      onSettle: () => (settled += 1),
      onAnnounce: () => (announced += 1),
      sync: (fd) => {
        syncs += 1;
        return realSync(fd);
      },
    });
    // Five concurrent callers: a commit of one, then one of four, announced once (a reservation).
    await Promise.all([1, 2, 3, 4, 5].map((n) => writer.append(entry(n), NOW)));
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    await writer.append(entry(6), NOW);
    await writer.idle();
    assert.equal(settled, settles, `${name}: head settles`);
    assert.equal(announced, 1, `${name}: announcements`);
    assert.equal(syncs, 3, `${name}: fdatasyncs of the log`);
    const head = readAuditHead(home);
    assert.ok(head?.seq === 6 && head.pending === undefined, `${name}: the head names the last line once idle: ${JSON.stringify(head)}`);
    assert.deepEqual(verifyAudit(home), { ok: true, lines: 6 });
  }
});

test('one caller after another (one client): the next line within the linger joins the burst, with no lock, open or settle of its own', async () => {
  const cases = [
    // The second line comes while the first burst waits: one burst, announced once (a reservation
    // the lines after it fall inside), settled once when it ends.
    { name: 'after 1 ms', delayMs: 1, settles: 1, announced: 1, bursts: 1 },
    // Long after: the first burst settled and let go; the lone line after a settled head needs no announcement.
    { name: `after ${AUDIT_LINGER_MS * 25} ms`, delayMs: AUDIT_LINGER_MS * 25, settles: 2, announced: 0, bursts: 2 },
  ];
  for (const { name, delayMs, settles, announced, bursts } of cases) {
    const home = tempHome();
    // A first line, settled: the state of a daemon that has been idle.
    const first = createAuditWriter(home);
    await first.append(entry(1), NOW);
    await first.idle();
    let settled = 0;
    let announcements = 0;
    let opened = 0;
    const writer = createAuditWriter(home, { onSettle: () => (settled += 1), onAnnounce: () => (announcements += 1), onBurst: () => (opened += 1) });
    await writer.append(entry(2), NOW);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    await writer.append(entry(3), NOW);
    await writer.idle();
    assert.equal(opened, bursts, `${name}: bursts (each takes audit.lock and opens and checks the log)`);
    assert.equal(settled, settles, `${name}: head settles`);
    assert.equal(announcements, announced, `${name}: announcements`);
    const head = readAuditHead(home);
    assert.ok(head?.seq === 3 && head.pending === undefined, `${name}: the head names the last line once idle: ${JSON.stringify(head)}`);
    assert.deepEqual(verifyAudit(home), { ok: true, lines: 3 });
  }
});
