import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { auditFields, type AuditEntry } from '../../src/datadir/audit-entry.js';
import { chainRecords, serializeFields, assertAuditAppendable, auditHeadPath, auditLogPath } from '../../src/datadir/audit-log.js';
import { appendAudit } from '../support/audit-append.js';
import { readAudit, readAuditHead } from '../../src/verify/audit-read.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { tempHome } from './temp-home.js';

const NOW = new Date('2025-03-04T05:06:07.000Z');
const KEY_ID = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';

function entry(n: number): AuditEntry {
  return {
    operation: 'sign_card_policy_window',
    policy_id: `pw_${n}`,
    card_id: 'card_abc',
    merchant: 'shop.example.com',
    amount: '12.50',
    currency: 'USD',
    key_id: KEY_ID,
    request_id: `req_${n}`,
    user_agent: 'agent/1.0',
  };
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

test('an append writes one JSON line per entry with seq, prev and every field, at 0600', async () => {
  const home = tempHome();
  await appendAudit(home, entry(1), NOW);
  await appendAudit(home, { ...entry(2), kind: 'one_time' }, NOW);
  const lines = readFileSync(auditLogPath(home), 'utf8').split('\n');
  assert.equal(lines.length, 3);
  assert.equal(lines[2], '');
  const first = JSON.parse(lines[0] as string) as Record<string, unknown>;
  assert.deepEqual(Object.keys(first), ['seq', 'prev', 'time', 'operation', 'policy_id', 'card_id', 'merchant', 'amount', 'currency', 'key_id', 'request_id', 'user_agent']);
  assert.equal(first['seq'], 1);
  assert.equal(first['prev'], '0'.repeat(64));
  assert.equal(first['time'], NOW.toISOString());
  const second = JSON.parse(lines[1] as string) as Record<string, unknown>;
  assert.equal(second['seq'], 2);
  // Checked with node:crypto, independently of the noble hash the code uses.
  assert.equal(second['prev'], sha256Hex(lines[0] as string));
  assert.equal(second['kind'], 'one_time');
  assert.equal(statSync(auditLogPath(home)).mode & 0o777, 0o600);
  assert.equal(statSync(auditHeadPath(home)).mode & 0o777, 0o600);
  assert.deepEqual(readAuditHead(home), { seq: 2, hash: sha256Hex(lines[1] as string) });
});

test('readAudit returns the records in order, and the last `limit` of them', async () => {
  const home = tempHome();
  assert.deepEqual(readAudit(home), []);
  for (let n = 1; n <= 5; n += 1) await appendAudit(home, entry(n), NOW);
  assert.deepEqual(readAudit(home).map((record) => record.policy_id), ['pw_1', 'pw_2', 'pw_3', 'pw_4', 'pw_5']);
  assert.deepEqual(readAudit(home, { limit: 2 }).map((record) => record.seq), [4, 5]);
});

test('absent optional fields are written as null; time defaults to now', async () => {
  const home = tempHome();
  const before = Date.now();
  const { record } = await appendAudit(home, { operation: 'sign_revocation', policy_id: 'pw_1' });
  assert.equal(record.card_id, null);
  assert.equal(record.user_agent, null);
  assert.ok(Date.parse(record.time) >= before - 1000);
});

test('entries with secret-looking or malformed fields are refused and nothing is written', async () => {
  const home = tempHome();
  const bad: Array<[string, Record<string, unknown>]> = [
    ['token field', { token: 'x' }],
    ['daemon_token field', { daemon_token: 'x' }],
    ['secret_key field', { secret_key: 'x' }],
    ['passphrase field', { passphrase: 'x' }],
    ['authorization field', { authorization: 'Bearer x' }],
    ['signature field', { signature: 'x' }],
    ['private_key field', { private_key: 'x' }],
    ['pan field', { pan: '4111111111111111' }],
    ['cvv field', { cvv: '123' }],
    ['card_number field', { card_number: 'x' }],
    ['admin_key field', { admin_key: 'x' }],
    ['seq override', { seq: 99 }],
    ['prev override', { prev: 'x' }],
    ['upper-case name', { Kind: 'x' }],
    ['object value', { kind: { nested: true } }],
    ['array value', { kind: ['a'] }],
    ['NaN value', { count: Number.NaN }],
    ['numeric merchant', { merchant: 5 }],
    ['bad operation', { operation: 'Sign Window' }],
    ['empty operation', { operation: '' }],
    ['bad time', { time: 'yesterday' }],
  ];
  for (const [name, extra] of bad) {
    await assert.rejects(appendAudit(home, { ...entry(1), ...extra } as AuditEntry, NOW), TypeError, name);
  }
  const tooMany: Record<string, string> = {};
  for (let i = 0; i < 17; i += 1) tooMany[`f${i}`] = 'x';
  await assert.rejects(appendAudit(home, { ...entry(1), ...tooMany }, NOW), TypeError);
  assert.deepEqual(readAudit(home), []);
});

test('caller-controlled text is bounded, and card numbers in it are never stored', async () => {
  const home = tempHome();
  const { record } = await appendAudit(home, { ...entry(1), user_agent: 'u'.repeat(5000), merchant: 'm'.repeat(600), request_id: 'card 4111 1111 1111 1111', note: 'x'.repeat(600) }, NOW);
  assert.ok((record.user_agent as string).length <= 257);
  assert.ok((record.merchant as string).length <= 513);
  assert.ok((record['note'] as string).length <= 513);
  assert.equal(record.request_id, '[redacted]');
  assert.ok(!readFileSync(auditLogPath(home), 'utf8').includes('4111'));
});

test('a SHA-256 in a *_sha256 field is kept whole even when its digits hold a Luhn-valid run; anywhere else that text is redacted', async () => {
  const home = tempHome();
  // 4111111111111111 between hex letters: what a random SHA-256 holds about once in 250.
  const hash = `a4111111111111111b${'c'.repeat(46)}`;
  const { record } = await appendAudit(home, { ...entry(1), request_sha256: hash, note: hash, other_sha256: `${hash} ` }, NOW);
  assert.equal(record['request_sha256'], hash);
  assert.equal(record['note'], '[redacted]');
  assert.equal(record['other_sha256'], '[redacted]', 'only an exact hash skips the scan');
});

test('the writer refuses a log with loose permissions or a symbolic link', async () => {
  const home = tempHome();
  await appendAudit(home, entry(1), NOW);
  chmodSync(auditLogPath(home), 0o644);
  await assert.rejects(appendAudit(home, entry(2), NOW), (error: unknown) => error instanceof DataDirError && error.code === 'insecure_permissions');
});

test('the writer refuses to continue a log that no longer matches audit.head', async () => {
  const cases: Array<{ name: string; damage: (home: string) => void }> = [
    { name: 'last line deleted', damage: (home) => writeFileSync(auditLogPath(home), readFileSync(auditLogPath(home), 'utf8').split('\n').slice(0, 2).join('\n') + '\n') },
    { name: 'log deleted', damage: (home) => unlinkSync(auditLogPath(home)) },
    { name: 'head deleted', damage: (home) => unlinkSync(auditHeadPath(home)) },
    { name: 'torn last line', damage: (home) => appendFileSync(auditLogPath(home), '{"seq":4,') },
    { name: 'last line edited', damage: (home) => writeFileSync(auditLogPath(home), readFileSync(auditLogPath(home), 'utf8').replace('pw_3', 'pw_X')) },
    { name: 'garbage head', damage: (home) => writeFileSync(auditHeadPath(home), 'nonsense') },
  ];
  for (const { name, damage } of cases) {
    const home = tempHome();
    for (let n = 1; n <= 3; n += 1) await appendAudit(home, entry(n), NOW);
    damage(home);
    assert.throws(() => assertAuditAppendable(home), (error: unknown) => error instanceof DataDirError && error.code === 'corrupt', name);
    const before = readFileSyncOrEmpty(auditLogPath(home));
    await assert.rejects(appendAudit(home, entry(4), NOW), (error: unknown) => error instanceof DataDirError && error.code === 'corrupt', name);
    assert.equal(readFileSyncOrEmpty(auditLogPath(home)), before, `${name}: nothing appended`);
  }
});

test('a head one line behind (a crash between append and head update) is accepted and repaired', async () => {
  const home = tempHome();
  await appendAudit(home, entry(1), NOW);
  const headAfterOne = readFileSync(auditHeadPath(home), 'utf8');
  await appendAudit(home, entry(2), NOW);
  writeFileSync(auditHeadPath(home), headAfterOne);
  assertAuditAppendable(home);
  await appendAudit(home, entry(3), NOW);
  assert.equal(readAuditHead(home)?.seq, 3);
});

test('appends in a tight loop keep a gapless chain', async () => {
  const home = tempHome();
  for (let n = 1; n <= 50; n += 1) await appendAudit(home, entry(n), NOW);
  const lines = readFileSync(auditLogPath(home), 'utf8').trimEnd().split('\n');
  let prev = '0'.repeat(64);
  lines.forEach((line, index) => {
    const record = JSON.parse(line) as { seq: number; prev: string };
    assert.equal(record.seq, index + 1);
    assert.equal(record.prev, prev);
    prev = sha256Hex(line);
  });
});

function readFileSyncOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

test('a line is the fields serialised once with seq and prev in front: exactly JSON.stringify of the whole record', () => {
  const entries: AuditEntry[] = [
    entry(1),
    { ...entry(2), merchant: 'café.example.com ☕', note: 'quote " backslash \\ newline \n tab \t', reference: '' },
    { operation: 'authorization_outcome', policy_id: 'pw_x', outcome: 'refused', code: null, agent: 'shopper' },
    { ...entry(3), user_agent: 'u'.repeat(5000) },
  ];
  let tail = { seq: 41, hash: 'a'.repeat(64), prev: undefined as string | undefined };
  for (const [index, value] of entries.entries()) {
    const fields = auditFields(value, NOW);
    const chained = chainRecords(tail, [serializeFields(fields)]);
    const expected = JSON.stringify({ seq: tail.seq + 1, prev: tail.hash, ...fields });
    assert.equal(chained.bytes.toString('utf8'), `${expected}\n`, `entry ${index}`);
    assert.deepEqual(chained.results[0]?.record, JSON.parse(expected));
    tail = { seq: tail.seq + 1, hash: chained.results[0]?.hash as string, prev: tail.hash };
  }
  const wide = { ...entry(4), ...Object.fromEntries(Array.from({ length: 16 }, (_, n) => [`f${n}`, '☕'.repeat(512)])) };
  assert.throws(() => serializeFields(auditFields(wide, NOW)), /too large|at most/);
});
