import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import type { AuditEntry } from '../../src/datadir/audit-entry.js';
import { HEAD_FILE_BYTES, HEAD_SLOT_BYTES, parseHeadFile } from '../../src/datadir/audit-head.js';
import { assertAuditAppendable, auditHeadPath, auditLogPath } from '../../src/datadir/audit-log.js';
import { appendAudit } from '../support/audit-append.js';
import { readAuditHead } from '../../src/verify/audit-read.js';
import { verifyAudit } from '../../src/verify/audit-verify.js';
import { createAuditWriter } from '../../src/datadir/audit-writer.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { tempHome } from './temp-home.js';

const NOW = new Date('2025-03-04T05:06:07.000Z');

function entry(n: number): AuditEntry {
  return { operation: 'sign_policy_window', key_id: 'kid', request_id: `req_${n}`, user_agent: 'agent/1.0' };
}

/** lineHashes returns the SHA-256 of each line of audit.log, computed with node:crypto. */
function lineHashes(home: string): string[] {
  const lines = readFileSync(auditLogPath(home), 'utf8').trimEnd().split('\n');
  return lines.map((line) => createHash('sha256').update(line, 'utf8').digest('hex'));
}

/** homeWithLines makes a data directory whose log has count lines, each appended (and the head settled) in turn. */
async function homeWithLines(count: number): Promise<string> {
  const home = tempHome();
  for (let n = 1; n <= count; n += 1) await appendAudit(home, entry(n), NOW);
  return home;
}

/** slots returns the text of the slot commit selects (newer) and of the other one (older). */
function slots(bytes: Buffer, commit: number): { newer: string; older: string } {
  const at = (offset: number) => bytes.subarray(offset, offset + HEAD_SLOT_BYTES).toString('utf8');
  return { newer: at((commit % 2) * HEAD_SLOT_BYTES), older: at(((commit + 1) % 2) * HEAD_SLOT_BYTES) };
}

const isCorrupt = (error: unknown) => error instanceof DataDirError && error.code === 'corrupt';

test('audit.head is two slots of fixed size, 0600, and a commit writes the slot its number selects', async () => {
  const home = await homeWithLines(3);
  const bytes = readFileSync(auditHeadPath(home));
  assert.equal(bytes.length, HEAD_FILE_BYTES);
  assert.equal(statSync(auditHeadPath(home)).mode & 0o777, 0o600);
  const hashes = lineHashes(home);
  // The newest commit is in the slot its number selects, the one before it (line 2's head) in the
  // other; the reader takes the higher.
  const state = parseHeadFile(bytes.toString('utf8'));
  assert.deepEqual(state?.head, { seq: 3, hash: hashes[2] });
  assert.equal(state?.slotted, true);
  const commit = state?.commit as number;
  const { newer, older } = slots(bytes, commit);
  assert.deepEqual(parseHeadFile(newer + ' '.repeat(HEAD_SLOT_BYTES - 1) + '\n'), state);
  assert.deepEqual(parseHeadFile(older + ' '.repeat(HEAD_SLOT_BYTES - 1) + '\n'), { head: { seq: 2, hash: hashes[1] }, commit: commit - 1, slotted: true });
  await appendAudit(home, entry(4), NOW);
  const after = readFileSync(auditHeadPath(home));
  assert.equal(slots(after, commit).newer, newer, `commit ${commit + 1} left commit ${commit}'s slot alone`);
  assert.deepEqual(parseHeadFile(after.toString('utf8')), { head: { seq: 4, hash: lineHashes(home)[3] }, commit: commit + 1, slotted: true });
  assert.deepEqual(readAuditHead(home), { seq: 4, hash: lineHashes(home)[3] });
});

test('a torn or damaged slot leaves the other slot in charge; two bad slots are a damaged head', async () => {
  // newer and older are the offsets of the slot holding line 3's head and of the one holding line 2's.
  const cases: Array<{ name: string; damage: (bytes: Buffer, newer: number, older: number) => void; head: number | 'corrupt' }> = [
    // A crash in the middle of writing the newest slot: its second half is still old bytes.
    { name: 'newer slot torn', damage: (b, newer) => b.fill(0x41, newer + 40, newer + 200), head: 2 },
    { name: 'newer slot zeroed', damage: (b, newer) => b.fill(0, newer, newer + HEAD_SLOT_BYTES), head: 2 },
    { name: 'newer slot seq changed, checksum not', damage: (b, newer) => b.write('{"seq":9', b.indexOf(' ', newer) + 1, 'utf8'), head: 2 },
    { name: 'newer slot missing its newline', damage: (b, newer) => (b[newer + HEAD_SLOT_BYTES - 1] = 0x20), head: 2 },
    { name: 'older slot torn', damage: (b, _newer, older) => b.fill(0x41, older + 40, older + 200), head: 3 },
    { name: 'both slots torn', damage: (b) => b.fill(0x41, 40, HEAD_FILE_BYTES - 40), head: 'corrupt' },
  ];
  for (const { name, damage, head } of cases) {
    const home = await homeWithLines(3);
    const bytes = readFileSync(auditHeadPath(home));
    const newer = ((parseHeadFile(bytes.toString('utf8'))?.commit as number) % 2) * HEAD_SLOT_BYTES;
    damage(bytes, newer, HEAD_SLOT_BYTES - newer);
    writeFileSync(auditHeadPath(home), bytes);
    if (head === 'corrupt') {
      assert.throws(() => readAuditHead(home), isCorrupt, name);
      await assert.rejects(appendAudit(home, entry(4), NOW), isCorrupt, name);
      assert.deepEqual(verifyAudit(home), { ok: false, lines: 3, problem: { line: 3, reason: 'audit.head is not a valid head record' } }, name);
      continue;
    }
    assert.equal(readAuditHead(home)?.seq, head, name);
    assert.equal(readAuditHead(home)?.hash, lineHashes(home)[head - 1], name);
    // A head one behind is what a crash between the line's fdatasync and the head's write leaves.
    assert.deepEqual(verifyAudit(home), { ok: true, lines: 3 }, name);
    await appendAudit(home, entry(4), NOW);
    assert.deepEqual(readAuditHead(home), { seq: 4, hash: lineHashes(home)[3] }, name);
    assert.deepEqual(verifyAudit(home), { ok: true, lines: 4 }, name);
  }
});

test('a crash between the lines’ fdatasync and the head’s write leaves a head one behind, which is accepted, and two behind is not', async () => {
  const home = tempHome();
  const writer = createAuditWriter(home);
  const heads: Buffer[] = [];
  for (let n = 1; n <= 4; n += 1) {
    await writer.append(entry(n), NOW);
    await writer.idle();
    heads.push(readFileSync(auditHeadPath(home)));
  }
  // The head as it was after line 3: line 4 is on disk, its head write never happened.
  writeFileSync(auditHeadPath(home), heads[2] as Buffer);
  assert.deepEqual(verifyAudit(home), { ok: true, lines: 4 });
  assert.doesNotThrow(() => assertAuditAppendable(home));
  await writer.append(entry(5), NOW);
  await writer.idle();
  assert.deepEqual(readAuditHead(home), { seq: 5, hash: lineHashes(home)[4] });
  assert.deepEqual(verifyAudit(home), { ok: true, lines: 5 });

  // The head as it was after line 2 cannot come from a crash: the last lines could have been forged.
  writeFileSync(auditHeadPath(home), heads[1] as Buffer);
  assert.equal(verifyAudit(home).ok, false);
  assert.throws(() => assertAuditAppendable(home), isCorrupt);
  await assert.rejects(writer.append(entry(6), NOW), isCorrupt);
});

test('a head in the old one-record format is read, and the next commit replaces it with slots', async () => {
  const cases: Array<{ name: string; head: (hashes: string[]) => object }> = [
    { name: 'settled head', head: (h) => ({ seq: 3, hash: h[2] }) },
    { name: 'head one behind', head: (h) => ({ seq: 2, hash: h[1] }) },
    // An older Latch that crashed during an announced commit of two lines after line 1.
    { name: 'announced commit', head: (h) => ({ seq: 1, hash: h[0], pending: 2 }) },
  ];
  for (const { name, head } of cases) {
    const home = await homeWithLines(3);
    writeFileSync(auditHeadPath(home), `${JSON.stringify(head(lineHashes(home)))}\n`, { mode: 0o600 });
    assert.deepEqual(readAuditHead(home), head(lineHashes(home)), name);
    assert.deepEqual(verifyAudit(home), { ok: true, lines: 3 }, name);
    await appendAudit(home, entry(4), NOW);
    assert.equal(statSync(auditHeadPath(home)).size, HEAD_FILE_BYTES, name);
    assert.equal(statSync(auditHeadPath(home)).mode & 0o777, 0o600, name);
    assert.deepEqual(readAuditHead(home), { seq: 4, hash: lineHashes(home)[3] }, name);
    assert.deepEqual(verifyAudit(home), { ok: true, lines: 4 }, name);
    await appendAudit(home, entry(5), NOW);
    assert.deepEqual(verifyAudit(home), { ok: true, lines: 5 }, name);
  }
});

test('an old-format head that does not match the log is refused as before', async () => {
  const home = await homeWithLines(3);
  writeFileSync(auditHeadPath(home), `${JSON.stringify({ seq: 1, hash: lineHashes(home)[0] })}\n`, { mode: 0o600 });
  assert.equal(verifyAudit(home).ok, false);
  await assert.rejects(appendAudit(home, entry(4), NOW), isCorrupt);
});
