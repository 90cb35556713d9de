/**
 * readAuditExcerpt against a plain reading of the same log: the lines about one authorization or
 * its approval, verbatim and in order, wherever they fall — across the reader's 1 MiB chunks
 * included — and the log's last line; never a line that only mentions the id in another field.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { auditFields, type AuditEntry } from '../../src/datadir/audit-entry.js';
import { chainRecords, serializeFields } from '../../src/datadir/audit-log.js';
import { GENESIS_HASH, lineHash } from '../../src/datadir/audit-lines.js';
import { readAuditExcerpt } from '../../src/evidence/audit-excerpt.js';
import { SeededRandom } from '../adversarial/seeded-random.js';

const homes: string[] = [];
after(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

const POLICY = 'pw_target0000000000000000001';
const APPROVAL = 'ap_target0000000000000000001';

function home(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'latch-excerpt-'));
  chmodSync(dir, 0o700);
  homes.push(dir);
  return dir;
}

/** writeLog writes chained lines for entries to home's audit.log and returns the lines' text. */
function writeLog(dir: string, entries: AuditEntry[]): string[] {
  const time = new Date('2026-01-01T00:00:00Z');
  const chained = chainRecords({ seq: 0, hash: GENESIS_HASH, prev: undefined }, entries.map((entry) => serializeFields(auditFields(entry, time))));
  writeFileSync(path.join(dir, 'audit.log'), chained.bytes, { mode: 0o600 });
  return chained.bytes.toString('utf8').split('\n').slice(0, -1);
}

test('every line about the authorization or its approval, wherever the chunks end, and the last line', () => {
  const random = new SeededRandom(26);
  // Long lines (notes of up to 500 characters), so that 2,000 lines make about 4 MB: the 1 MiB
  // reads end inside lines, and the lines looked for stay under the excerpt's 1,000.
  const notes = (): AuditEntry => Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`note${i}`, 'z'.repeat(random.int(500))])) as AuditEntry;
  const entries: AuditEntry[] = [];
  for (let n = 0; n < 2_000; n++) {
    const roll = random.int(100);
    if (roll < 30) entries.push({ ...notes(), operation: 'authorize', policy_id: POLICY, merchant: 'shop.example.com', amount: '1.00', currency: 'USD' });
    else if (roll < 35) entries.push({ ...notes(), operation: 'approval_requested', approval_id: APPROVAL, request_sha256: 'a'.repeat(64) });
    // Mentions the ids in another field: a text match, not a line about them.
    else if (roll < 40) entries.push({ ...notes(), operation: 'sign_request', user_agent: `"policy_id":"${POLICY}"`, path: `/v1/authorizations/${POLICY}` });
    else entries.push({ ...notes(), operation: 'authorize', policy_id: `pw_other${n.toString().padStart(20, '0')}`, merchant: 'shop.example.com' });
  }
  const dir = home();
  const lines = writeLog(dir, entries);
  assert.ok(readFileSync(path.join(dir, 'audit.log')).length > 3 * 1024 * 1024);
  const expected = lines.filter((line) => {
    const record = JSON.parse(line) as Record<string, unknown>;
    return record['policy_id'] === POLICY || record['approval_id'] === APPROVAL;
  });
  const excerpt = readAuditExcerpt(dir, { policyId: POLICY, approvalId: APPROVAL });
  assert.ok(expected.length > 100);
  // The test has power only if lines looked for cross the reader's chunk ends: check that they do.
  let offset = 0;
  const crossing = lines.filter((line) => {
    const start = offset;
    offset += Buffer.byteLength(line) + 1;
    return Math.floor(start / (1024 * 1024)) !== Math.floor((offset - 1) / (1024 * 1024));
  });
  assert.ok(crossing.some((line) => expected.includes(line)), 'a line looked for crosses a 1 MiB boundary');
  assert.deepEqual(excerpt.lines, expected);
  assert.deepEqual(excerpt.line_sha256, expected.map((line) => lineHash(Buffer.from(line))));
  const last = lines[lines.length - 1] as string;
  assert.deepEqual(excerpt.log_end, { seq: lines.length, sha256: lineHash(Buffer.from(last)) });

  // Without an approval id, its lines are not about the authorization.
  const only = readAuditExcerpt(dir, { policyId: POLICY, approvalId: null });
  assert.deepEqual(only.lines, expected.filter((line) => JSON.parse(line).policy_id === POLICY));
});

test('a last line still being written is left out; an empty or missing log has no lines', () => {
  const dir = home();
  const lines = writeLog(dir, [
    { operation: 'authorize', policy_id: POLICY },
    { operation: 'authorization_outcome', policy_id: POLICY, outcome: 'registered' },
  ]);
  writeFileSync(path.join(dir, 'audit.log'), `${lines.join('\n')}\n{"seq":3,"prev":"${'0'.repeat(64)}","operation":"authorize","policy_id":"${POLICY}"`);
  const excerpt = readAuditExcerpt(dir, { policyId: POLICY, approvalId: null });
  assert.deepEqual(excerpt.lines, lines);
  assert.equal(excerpt.log_end?.seq, 2);
  assert.deepEqual(readAuditExcerpt(home(), { policyId: POLICY, approvalId: null }), { lines: [], line_sha256: [], log_end: null });
});
