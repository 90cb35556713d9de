import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import type { AuditEntry } from '../../src/datadir/audit-entry.js';
import { AUDIT_BATCH_ENTRIES_MAX, AUDIT_PENDING_ENTRIES_MAX, createAuditWriter } from '../../src/datadir/audit-writer.js';
import { assertAuditAppendable, auditHeadPath, auditLogPath, type AuditAppendResult } from '../../src/datadir/audit-log.js';
import { appendAudit } from '../support/audit-append.js';
import { readAudit, readAuditHead } from '../../src/verify/audit-read.js';
import { verifyAudit } from '../../src/verify/audit-verify.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { tempHome } from './temp-home.js';

const NOW = new Date('2025-03-04T05:06:07.000Z');

function entry(n: number): AuditEntry {
  return { operation: 'sign_request', policy_id: `pw_${n}`, key_id: 'kid', request_id: `req_${n}`, user_agent: 'agent/1.0', method: 'GET', path: '/v1/wallet' };
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** logLines returns audit.log's lines without the final empty one. */
function logLines(home: string): string[] {
  return readFileSync(auditLogPath(home), 'utf8').trimEnd().split('\n');
}

/**
 * assertChain checks seq and prev of every line with node:crypto, independently of the code under
 * test, and that audit.head names the last line (so call it when the writers are idle).
 */
function assertChain(home: string, count: number): void {
  const lines = logLines(home);
  assert.equal(lines.length, count);
  let prev = '0'.repeat(64);
  lines.forEach((line, index) => {
    const record = JSON.parse(line) as { seq: number; prev: string };
    assert.equal(record.seq, index + 1);
    assert.equal(record.prev, prev);
    prev = sha256Hex(line);
  });
  assert.deepEqual(readAuditHead(home), { seq: count, hash: prev });
  assert.deepEqual(verifyAudit(home), { ok: true, lines: count });
}

test('entries appended together are committed together, at most AUDIT_BATCH_ENTRIES_MAX at a time', async () => {
  const cases = [
    { entries: 1, commits: [1] },
    // The first entry starts a commit at once; the rest arrive while it is under way.
    { entries: 10, commits: [1, 9] },
    { entries: 1 + AUDIT_BATCH_ENTRIES_MAX + 5, commits: [1, AUDIT_BATCH_ENTRIES_MAX, 5] },
  ];
  for (const { entries, commits } of cases) {
    const home = tempHome();
    const seen: number[] = [];
    const writer = createAuditWriter(home, { onCommit: (size) => seen.push(size) });
    const results = await Promise.all(Array.from({ length: entries }, (_, n) => writer.append(entry(n + 1), NOW)));
    await writer.idle();
    assert.deepEqual(seen, commits, `${entries} entries`);
    assert.deepEqual(results.map((result) => result.record.seq), Array.from({ length: entries }, (_, n) => n + 1));
    assert.deepEqual(results.map((result) => result.record.policy_id), Array.from({ length: entries }, (_, n) => `pw_${n + 1}`));
    assertChain(home, entries);
  }
});

test('each promise settles only once its line is on disk, in a state a crash could leave and the checks accept', async () => {
  const home = tempHome();
  const writer = createAuditWriter(home);
  const settled = (result: AuditAppendResult) => {
    const line = logLines(home)[result.record.seq - 1] as string;
    assert.equal(sha256Hex(line), result.hash);
    assert.deepEqual(JSON.parse(line), result.record);
    // Were the process to die now, the daemon would start and verifyAudit would see this line.
    assertAuditAppendable(home);
    const head = readAuditHead(home);
    assert.ok(head !== undefined && head.seq <= result.record.seq && result.record.seq <= head.seq + (head.pending ?? 1));
  };
  await writer.append(entry(1), NOW).then(settled);
  await Promise.all(Array.from({ length: 20 }, (_, n) => writer.append(entry(n + 2), NOW).then(settled)));
  await writer.append(entry(22), NOW).then(settled);
  await writer.idle();
  assertChain(home, 22);
});

test('idle resolves once audit.head names the last line', async () => {
  const home = tempHome();
  const writer = createAuditWriter(home);
  await writer.idle();
  const appended = [1, 2, 3].map((n) => writer.append(entry(n), NOW));
  const idle = writer.idle();
  await Promise.all(appended);
  await idle;
  assertChain(home, 3);
  // A lone entry after the head names the end: answered with the head one line behind, then settled.
  const { record } = await writer.append(entry(4), NOW);
  assert.equal(record.seq, 4);
  await writer.idle();
  assertChain(home, 4);
});

test('a malformed entry is refused alone; the entries around it are committed', async () => {
  const home = tempHome();
  const writer = createAuditWriter(home);
  const bad: Array<[string, AuditEntry]> = [
    ['secret-looking field', { ...entry(0), daemon_token: 'x' } as AuditEntry],
    ['bad operation', { ...entry(0), operation: 'Sign Window' }],
    ['line too large', Object.fromEntries([['operation', 'sign_request'], ...Array.from({ length: 16 }, (_, n) => [`f${n}`, '\u0001'.repeat(512)])]) as AuditEntry],
  ];
  const outcomes = await Promise.allSettled([writer.append(entry(1), NOW), ...bad.map(([, value]) => writer.append(value, NOW)), writer.append(entry(2), NOW)]);
  bad.forEach(([name], index) => {
    const outcome = outcomes[index + 1];
    assert.equal(outcome?.status, 'rejected', name);
    assert.ok(outcome?.status === 'rejected' && outcome.reason instanceof TypeError, name);
  });
  assert.equal(outcomes[0]?.status, 'fulfilled');
  assert.equal(outcomes.at(-1)?.status, 'fulfilled');
  await writer.idle();
  assert.deepEqual(readAudit(home).map((record) => record.policy_id), ['pw_1', 'pw_2']);
  assertChain(home, 2);
});

test('a log that no longer matches audit.head fails every entry of the commit and nothing is appended', async () => {
  const damages: Array<{ name: string; damage: (home: string) => void }> = [
    { name: 'last line deleted', damage: (home) => writeFileSync(auditLogPath(home), `${logLines(home).slice(0, 2).join('\n')}\n`) },
    { name: 'torn last line', damage: (home) => writeFileSync(auditLogPath(home), `${readFileSync(auditLogPath(home), 'utf8')}{"seq":4,`) },
    { name: 'garbage head', damage: (home) => writeFileSync(auditHeadPath(home), 'nonsense') },
  ];
  for (const { name, damage } of damages) {
    const home = tempHome();
    const writer = createAuditWriter(home);
    await Promise.all([1, 2, 3].map((n) => writer.append(entry(n), NOW)));
    await writer.idle();
    damage(home);
    const before = readFileSync(auditLogPath(home), 'utf8');
    const outcomes = await Promise.allSettled([4, 5, 6].map((n) => writer.append(entry(n), NOW)));
    for (const outcome of outcomes) {
      assert.ok(outcome.status === 'rejected' && outcome.reason instanceof DataDirError && outcome.reason.code === 'corrupt', name);
    }
    assert.equal(readFileSync(auditLogPath(home), 'utf8'), before, `${name}: nothing appended`);
  }
});

test('two writers in one process take turns through audit.lock, one burst at a time, without forking the chain', async () => {
  const home = tempHome();
  // Each burst takes audit.lock, opens the log and checks it (onBurst), and ends by settling the
  // head (onSettle); another writer's burst must never start in between.
  const events: string[] = [];
  const hooks = (name: string) => ({ onBurst: () => events.push(`${name} burst`), onSettle: () => events.push(`${name} settled`) });
  const writer = createAuditWriter(home, hooks('a'));
  const other = createAuditWriter(home, hooks('b'));
  const appends: Array<Promise<AuditAppendResult>> = [];
  for (let n = 1; n <= 40; n += 1) appends.push((n % 2 === 0 ? writer : other).append(entry(n), NOW));
  const results = await Promise.all(appends);
  await Promise.all([writer.idle(), other.idle()]);
  assertChain(home, 40);
  // Every acknowledged entry is in the log, at the line it was told.
  const records = readAudit(home);
  for (const [index, result] of results.entries()) assert.equal(records[result.record.seq - 1]?.policy_id, `pw_${index + 1}`);
  assert.ok(events.includes('a burst') && events.includes('b burst'), 'both writers committed');
  for (let index = 0; index < events.length; index += 2) {
    const writerName = events[index]?.split(' ')[0];
    assert.deepEqual(events.slice(index, index + 2), [`${writerName} burst`, `${writerName} settled`], `bursts overlapped: ${events.join(', ')}`);
  }
});

test('more than AUDIT_PENDING_ENTRIES_MAX waiting entries are refused, not queued', async () => {
  const home = tempHome();
  const writer = createAuditWriter(home);
  // The first entry is taken into a commit at once, so the queue holds the next ones.
  const accepted = Array.from({ length: AUDIT_PENDING_ENTRIES_MAX + 1 }, (_, n) => writer.append(entry(n + 1), NOW));
  await assert.rejects(writer.append(entry(0), NOW), /waiting for the disk/);
  await Promise.all(accepted);
  await writer.idle();
  assertChain(home, AUDIT_PENDING_ENTRIES_MAX + 1);
});

test('a commit of several entries is announced in audit.head before its lines are written', async () => {
  const home = tempHome();
  const announced: Array<{ entries: number; head: unknown; lines: number }> = [];
  const writer = createAuditWriter(home, {
    onAnnounce: (entries) => announced.push({ entries, head: readAuditHead(home), lines: logLines(home).filter((line) => line !== '').length }),
  });
  await writer.append(entry(1), NOW);
  // The writer is still between commits, so these five form the next one.
  await Promise.all([2, 3, 4, 5, 6].map((n) => writer.append(entry(n), NOW)));
  await writer.idle();
  // A lone entry while audit.head names the end is not announced: one line behind is allowed anyway.
  await writer.append(entry(7), NOW);
  await writer.idle();
  // An announcement reserves a whole batch of lines, the most a crash may leave after the head;
  // the five, committed in the same burst, are inside it and need no announcement of their own.
  assert.deepEqual(announced, [{ entries: 1, head: { seq: 0, hash: '0'.repeat(64), pending: AUDIT_BATCH_ENTRIES_MAX }, lines: 0 }]);
  // Once settled, a lone line is covered by the head (one line behind is allowed), but the two
  // lines that follow it in the burst are not: their commit is announced before it is written.
  await Promise.all([8, 9, 10].map((n) => writer.append(entry(n), NOW)));
  await writer.idle();
  assert.deepEqual(announced.slice(1), [{ entries: 2, head: { seq: 8, hash: sha256Hex(logLines(home)[7] as string), pending: AUDIT_BATCH_ENTRIES_MAX }, lines: 8 }]);
  assertChain(home, 10);
});

test('the commits of one burst are announced once per reserved batch of lines, not once each', async () => {
  const cases = [
    // The first commit announces 64 lines; the second (9 lines, ending at line 10) is inside them.
    { entries: 10, commits: [1, 9], announcedAt: [0] },
    // The second commit ends at line 65, past the reservation made at line 0; the third, at line 70, past the one made at line 1.
    { entries: 1 + AUDIT_BATCH_ENTRIES_MAX + 5, commits: [1, AUDIT_BATCH_ENTRIES_MAX, 5], announcedAt: [0, 1, 1 + AUDIT_BATCH_ENTRIES_MAX] },
  ];
  for (const { entries, commits, announcedAt } of cases) {
    const home = tempHome();
    const announced: number[] = [];
    const committed: number[] = [];
    const writer = createAuditWriter(home, { onAnnounce: () => announced.push(readAuditHead(home)?.seq ?? -1), onCommit: (size) => committed.push(size) });
    await Promise.all(Array.from({ length: entries }, (_, n) => writer.append(entry(n + 1), NOW)));
    await writer.idle();
    assert.deepEqual(committed, commits, `${entries} entries: commits`);
    assert.deepEqual(announced, announcedAt, `${entries} entries: the head each announcement started from`);
    assertChain(home, entries);
  }
});

test('after a crash during a commit, an announced head accepts the lines it announced and nothing more', async () => {
  const heads: Array<{ name: string; head: (hashes: string[]) => unknown; accepted: boolean }> = [
    { name: 'announced 2 after line 2, log at 4', head: (h) => ({ seq: 2, hash: h[1], pending: 2 }), accepted: true },
    { name: 'announced 3 after line 1, log at 4', head: (h) => ({ seq: 1, hash: h[0], pending: 3 }), accepted: true },
    { name: 'announced on the empty log, log at 4', head: () => ({ seq: 0, hash: '0'.repeat(64), pending: 4 }), accepted: true },
    { name: 'announced 2 after line 4, nothing written yet', head: (h) => ({ seq: 4, hash: h[3], pending: 2 }), accepted: true },
    { name: 'announced 2 after line 1, log at 4 (one line too many)', head: (h) => ({ seq: 1, hash: h[0], pending: 2 }), accepted: false },
    { name: 'no announcement, two lines behind', head: (h) => ({ seq: 2, hash: h[1] }), accepted: false },
    { name: 'announced line was edited', head: (h) => ({ seq: 2, hash: h[0], pending: 3 }), accepted: false },
    { name: 'announced on the empty log with another hash', head: (h) => ({ seq: 0, hash: h[0], pending: 4 }), accepted: false },
    { name: 'line 0 without an announcement', head: () => ({ seq: 0, hash: '0'.repeat(64) }), accepted: false },
    { name: 'announced 1 after line 3, log at 4', head: (h) => ({ seq: 3, hash: h[2], pending: 1 }), accepted: true },
    { name: 'pending 0', head: (h) => ({ seq: 2, hash: h[1], pending: 0 }), accepted: false },
    { name: 'pending beyond a commit', head: (h) => ({ seq: 2, hash: h[1], pending: AUDIT_BATCH_ENTRIES_MAX + 1 }), accepted: false },
    { name: 'pending not a number', head: (h) => ({ seq: 2, hash: h[1], pending: '3' }), accepted: false },
  ];
  for (const { name, head, accepted } of heads) {
    const home = tempHome();
    const writer = createAuditWriter(home);
    for (let n = 1; n <= 4; n += 1) await writer.append(entry(n), NOW);
    await writer.idle();
    writeFileSync(auditHeadPath(home), `${JSON.stringify(head(logLines(home).map(sha256Hex)))}\n`);
    if (!accepted) {
      assert.throws(() => assertAuditAppendable(home), (error: unknown) => error instanceof DataDirError && error.code === 'corrupt', name);
      await assert.rejects(writer.append(entry(5), NOW), (error: unknown) => error instanceof DataDirError && error.code === 'corrupt', name);
      assert.equal(logLines(home).length, 4, `${name}: nothing appended`);
      continue;
    }
    assertAuditAppendable(home);
    await writer.append(entry(5), NOW);
    await writer.idle();
    // Another writer, reading the files afresh as a restarted daemon would, continues the chain.
    await appendAudit(home, entry(6), NOW);
    assertChain(home, 6);
  }
});

test('the line an announced head names is found however far back and however long the lines', async () => {
  const wide = (n: number): AuditEntry => ({ ...entry(n), ...Object.fromEntries(Array.from({ length: 14 }, (_, field) => [`f${field}`, `${n}`.repeat(500).slice(0, 500)])) });
  const cases = [
    // About 7 KiB a line: the lines after the head span more than one 64 KiB read.
    { name: 'ten long lines after line 2', lines: 12, headSeq: 2, accepted: true },
    { name: 'a commit announced on the empty log, twelve long lines', lines: 12, headSeq: 0, accepted: true },
    { name: 'head names line 2 with the hash of line 3', lines: 12, headSeq: 2, wrongHash: true, accepted: false },
  ];
  for (const { name, lines, headSeq, wrongHash, accepted } of cases) {
    const home = tempHome();
    const writer = createAuditWriter(home);
    for (let n = 1; n <= lines; n += 1) await writer.append(wide(n), NOW);
    await writer.idle();
    const hashes = logLines(home).map(sha256Hex);
    const hash = headSeq === 0 ? '0'.repeat(64) : (hashes[wrongHash === true ? headSeq : headSeq - 1] as string);
    writeFileSync(auditHeadPath(home), `${JSON.stringify({ seq: headSeq, hash, pending: lines - headSeq })}\n`);
    if (accepted) assertAuditAppendable(home);
    else assert.throws(() => assertAuditAppendable(home), (error: unknown) => error instanceof DataDirError && error.code === 'corrupt', name);
  }
});
