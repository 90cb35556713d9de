/**
 * One audit commit per request (issue 48, docs/decisions.md §41): a line no answer waits for (an
 * authorization's outcome) joins the next commit instead of starting its own, and the daemon's
 * writer keeps audit.head's reservation between bursts instead of settling it and announcing
 * again. The fdatasyncs are counted per file through the file-system port (src/store/file-system.ts),
 * not timed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditEntry } from '../../src/datadir/audit-entry.js';
import { AUDIT_BATCH_ENTRIES_MAX, AUDIT_LINGER_MS, createAuditWriter, type AuditWriter } from '../../src/datadir/audit-writer.js';
import { assertAuditAppendable, auditLogPath } from '../../src/datadir/audit-log.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { auditLockPath } from '../../src/datadir/audit-lock.js';
import { nodeSyncFileSystem, useSyncFileSystem, type SyncFileSystemPort } from '../../src/store/file-system.js';
import { readAudit, readAuditHead } from '../../src/verify/audit-read.js';
import { verifyAudit } from '../../src/verify/audit-verify.js';
import { tempHome } from './temp-home.js';

const NOW = new Date('2025-03-04T05:06:07.000Z');
/** Long enough that no timer of the writer fires during a test that does not wait for one. */
const HOLD_MS = 60_000;

function signLine(n: number): AuditEntry {
  return { operation: 'authorize', policy_id: `pw_${n}`, key_id: 'kid', request_id: `req_${n}`, user_agent: 'agent/1.0', method: 'POST', path: '/v1/authorizations' };
}

function outcomeLine(n: number): AuditEntry {
  return { operation: 'authorization_outcome', policy_id: `pw_${n}`, outcome: 'registered', code: null, agent: 'owner' };
}

/**
 * countSyncs runs task with the synchronous port wrapped so that every fdatasync and fsync is
 * counted by the name of the file it makes durable.
 */
async function countSyncs(task: (counts: ReadonlyMap<string, number>) => Promise<void>): Promise<Map<string, number>> {
  const names = new Map<number, string>();
  const counts = new Map<string, number>();
  const count = (fd: number) => {
    const name = names.get(fd) ?? `fd ${fd}`;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  };
  const counting: SyncFileSystemPort = {
    ...nodeSyncFileSystem,
    openSync(file, flags, mode) {
      const fd = nodeSyncFileSystem.openSync(file, flags, mode);
      names.set(fd, path.basename(file));
      return fd;
    },
    fsyncSync(fd) {
      count(fd);
      nodeSyncFileSystem.fsyncSync(fd);
    },
    fdatasyncSync(fd) {
      count(fd);
      nodeSyncFileSystem.fdatasyncSync(fd);
    },
    fdatasync(fd) {
      count(fd);
      return nodeSyncFileSystem.fdatasync(fd);
    },
  };
  const restore = useSyncFileSystem(counting);
  try {
    await task(counts);
  } finally {
    restore();
  }
  return counts;
}

/** waitUntil yields to the event loop until condition holds, or fails after a deadline. */
async function waitUntil(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`waited 10 s for ${what}`);
    await sleep(1);
  }
}

/** settled resolves once promise settled, whichever way. */
const settled = (promise: Promise<unknown>) => promise.then(
  () => undefined,
  () => undefined,
);

/** A daemon's writer: the reservation kept between bursts. */
function daemonWriter(home: string, deferMs?: number): AuditWriter {
  const writer = createAuditWriter(home, deferMs === undefined ? {} : { deferMs });
  writer.holdReservation(HOLD_MS);
  return writer;
}

test('one client: each request costs one fdatasync of audit.log, its outcome line rides on the next request, and audit.head is written once per reserved batch', async () => {
  const home = tempHome();
  const requests = 50;
  const writer = daemonWriter(home);
  const outcomes: Array<Promise<unknown>> = [];
  let beforeIdle = new Map<string, number>();
  const counts = await countSyncs(async (live) => {
    for (let n = 1; n <= requests; n += 1) {
      // The window's and the request's line, before the request leaves: the answer waits for it.
      await writer.append(signLine(n), NOW);
      // The cloud call, then its outcome line, which no answer waits for; then the answer and the
      // client's next request. Each pause outlasts the writer's linger, so every burst has ended
      // (as at one client on a real loopback, where the cloud's own fdatasync is in between).
      await sleep(5 * AUDIT_LINGER_MS);
      outcomes.push(writer.appendDeferred(outcomeLine(n), NOW));
      await sleep(5 * AUDIT_LINGER_MS);
    }
    beforeIdle = new Map(live);
    await writer.idle();
    await Promise.all(outcomes);
  });
  assert.equal(beforeIdle.get('audit.log'), requests, 'one fdatasync of audit.log per request: the outcome line joined the next commit');
  // 2 lines a request after the first; each announcement reserves AUDIT_BATCH_ENTRIES_MAX lines.
  const announcements = Math.ceil((2 * requests) / AUDIT_BATCH_ENTRIES_MAX);
  assert.ok((beforeIdle.get('audit.head') ?? 0) <= announcements, `audit.head written ${beforeIdle.get('audit.head')} times for ${2 * requests} lines: at most once per reserved batch, never settled between requests`);
  assert.equal(counts.get('audit.log'), requests + 1, 'idle() wrote the last outcome line');
  assert.deepEqual(verifyAudit(home), { ok: true, lines: 2 * requests });
  const head = readAuditHead(home);
  assert.deepEqual([head?.seq, head?.pending], [2 * requests, undefined], 'idle() settled the head on the last line');
  const operations = readAudit(home).map((record) => `${record.operation} ${record['policy_id']}`);
  assert.deepEqual(operations.slice(0, 4), ['authorize pw_1', 'authorization_outcome pw_1', 'authorize pw_2', 'authorization_outcome pw_2'], 'the lines keep the order of the calls');
});

test('a deferred line starts no commit; it is written within its bound when nothing else comes', async () => {
  const home = tempHome();
  const writer = daemonWriter(home, 5);
  let syncsSeenBeforeTimer = -1;
  const counts = await countSyncs(async (live) => {
    const deferred = writer.appendDeferred(outcomeLine(1), NOW);
    await new Promise((resolve) => setImmediate(resolve));
    syncsSeenBeforeTimer = [...live.values()].reduce((sum, value) => sum + value, 0);
    const written = await deferred;
    assert.equal(written.record.seq, 1);
  });
  assert.equal(syncsSeenBeforeTimer, 0, 'nothing was written when the deferred line was queued');
  assert.equal(counts.get('audit.log'), 1, 'its own commit once its bound passed');
  await writer.idle();
  assert.deepEqual(verifyAudit(home), { ok: true, lines: 1 });
});

test('idle() writes the deferred lines and settles a held reservation; a writer with nothing held returns at once', async () => {
  const home = tempHome();
  const writer = daemonWriter(home);
  await writer.append(signLine(1), NOW);
  const deferred = writer.appendDeferred(outcomeLine(1), NOW);
  await writer.append(signLine(2), NOW);
  await settled(deferred);
  assert.equal(readAuditHead(home)?.pending, AUDIT_BATCH_ENTRIES_MAX, 'the reservation is still held after the burst');
  const late = writer.appendDeferred(outcomeLine(2), NOW);
  await writer.idle();
  assert.equal((await late).record.seq, 4);
  assert.deepEqual(readAuditHead(home), { seq: 4, hash: readAuditHead(home)?.hash });
  const counts = await countSyncs(() => writer.idle());
  assert.equal(counts.size, 0, 'an idle writer with its head settled writes nothing');
});

test('a held reservation is a state a crash leaves: the log checks out and verifies at every step', async () => {
  const home = tempHome();
  const writer = daemonWriter(home);
  for (let n = 1; n <= AUDIT_BATCH_ENTRIES_MAX + 5; n += 1) {
    await writer.append(signLine(n), NOW);
    void writer.appendDeferred(outcomeLine(n), NOW);
    // What a kill -9 here would leave: every acknowledged line, the head held.
    assert.doesNotThrow(() => assertAuditAppendable(home), `after request ${n}`);
    const verified = verifyAudit(home);
    assert.equal(verified.ok, true, `after request ${n}: ${JSON.stringify(verified)}`);
  }
  await writer.idle();
});

test('another appender (a CLI command) takes audit.lock inside the held reservation: it appends, settles, and the daemon announces again without forking the chain', async () => {
  const home = tempHome();
  const daemon = daemonWriter(home);
  const cli = createAuditWriter(home);
  let announcements = 0;
  await daemon.append(signLine(1), NOW);
  void daemon.appendDeferred(outcomeLine(1), NOW);
  await daemon.append(signLine(2), NOW);
  assert.equal(readAuditHead(home)?.pending, AUDIT_BATCH_ENTRIES_MAX, 'the daemon holds a reservation');
  // A CLI command's writer settles at the end of its burst, as the process exits after it.
  const cliLine = await cli.append({ operation: 'policy_removed', agent: 'owner', policy_sha256: 'ab'.repeat(32) }, NOW);
  await cli.idle();
  assert.deepEqual(readAuditHead(home), { seq: cliLine.record.seq, hash: cliLine.hash }, 'the CLI settled the head on its line');
  const counts = await countSyncs(async () => {
    const deferred = daemon.appendDeferred(outcomeLine(2), NOW);
    await daemon.append(signLine(3), NOW);
    await deferred;
    announcements = readAuditHead(home)?.pending === undefined ? 0 : 1;
  });
  assert.equal(announcements, 1, 'the daemon reserved again after the CLI settled');
  assert.equal(counts.get('audit.log'), 1, 'the outcome and the next line: one commit');
  await daemon.idle();
  const records = readAudit(home);
  assert.deepEqual(records.map((record) => record.seq), [1, 2, 3, 4, 5, 6]);
  assert.deepEqual(verifyAudit(home), { ok: true, lines: 6 });
});

test('while the reservation is held, a line cut from the end (audit.head still accepts it) stops the next append: the writer remembers its last line', async () => {
  const home = tempHome();
  const writer = daemonWriter(home);
  await writer.append(signLine(1), NOW);
  void writer.appendDeferred(outcomeLine(1), NOW);
  await writer.append(signLine(2), NOW);
  // The burst has ended (its lock let go): the next append opens and checks the log again.
  await waitUntil(() => !existsSync(auditLockPath(home)), 'the burst to let go of audit.lock');
  const file = auditLogPath(home);
  const original = readFileSync(file, 'utf8');
  const lines = original.trimEnd().split('\n');
  writeFileSync(file, `${lines.slice(0, -1).join('\n')}\n`);
  assert.doesNotThrow(() => assertAuditAppendable(home), 'audit.head alone accepts the cut log: it is inside the reservation');
  await assert.rejects(writer.append(signLine(3), NOW), (error: unknown) => error instanceof DataDirError && error.code === 'corrupt' && /this process wrote line 3/.test(error.message));
  writeFileSync(file, `${lines.slice(0, -1).join('\n')}\n${lines[lines.length - 1]?.replace('pw_2', 'pw_X')}\n`);
  await waitUntil(() => !existsSync(auditLockPath(home)), 'the failed burst to let go of audit.lock');
  await assert.rejects(writer.append(signLine(3), NOW), (error: unknown) => error instanceof DataDirError && /not the line this process wrote/.test(error.message));
  assert.equal(readFileSync(file, 'utf8').trimEnd().split('\n').length, 3, 'nothing was appended to the damaged log');
  writeFileSync(file, original);
  assert.equal((await writer.append(signLine(3), NOW)).record.seq, 4, 'the restored log takes appends again');
  await writer.idle();
  assert.deepEqual(verifyAudit(home), { ok: true, lines: 4 });
});
