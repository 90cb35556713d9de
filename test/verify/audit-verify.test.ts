import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { auditHeadPath, auditLogPath } from '../../src/datadir/audit-log.js';
import { appendAudit } from '../support/audit-append.js';
import { verifyAudit } from '../../src/verify/audit-verify.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { tempHome } from '../datadir/temp-home.js';

const NOW = new Date('2025-03-04T05:06:07.000Z');

async function homeWithLines(count: number): Promise<string> {
  const home = tempHome();
  for (let n = 1; n <= count; n += 1) {
    await appendAudit(home, { operation: 'sign_card_policy_window', policy_id: `pw_${n}`, card_id: 'card_1', merchant: 'shop.example.com', amount: `${n}.00`, currency: 'USD', key_id: null, request_id: `req_${n}`, user_agent: 'ua' }, NOW);
  }
  return home;
}

function logLines(home: string): string[] {
  return readFileSync(auditLogPath(home), 'utf8').split('\n').slice(0, -1);
}

function writeLines(home: string, lines: string[]): void {
  writeFileSync(auditLogPath(home), lines.map((line) => `${line}\n`).join(''));
}

function rechain(lines: string[]): string[] {
  // What a careless editor cannot do but a deliberate one can: recompute every prev.
  let prev = '0'.repeat(64);
  return lines.map((line, index) => {
    const record = { ...(JSON.parse(line) as Record<string, unknown>), seq: index + 1, prev };
    const text = JSON.stringify(record);
    prev = createHash('sha256').update(text).digest('hex');
    return text;
  });
}

test('verifyAudit accepts an empty data directory and an intact log', async () => {
  assert.deepEqual(verifyAudit(tempHome()), { ok: true, lines: 0 });
  assert.deepEqual(verifyAudit(await homeWithLines(1)), { ok: true, lines: 1 });
  assert.deepEqual(verifyAudit(await homeWithLines(7)), { ok: true, lines: 7 });
});

test('verifyAudit finds every kind of damage and names the line', async () => {
  const cases: Array<{ name: string; damage: (home: string) => void; line: number; reason: RegExp }> = [
    { name: 'first line edited', damage: (home) => writeLines(home, logLines(home).map((l, i) => (i === 0 ? l.replace('"1.00"', '"9.00"') : l))), line: 2, reason: /line 2 does not chain to line 1: line 1 was edited/ },
    { name: 'middle line edited', damage: (home) => writeLines(home, logLines(home).map((l, i) => (i === 2 ? l.replace('shop.example.com', 'evil.example.com') : l))), line: 4, reason: /line 3 was edited/ },
    { name: 'whitespace added to a line', damage: (home) => writeLines(home, logLines(home).map((l, i) => (i === 1 ? l.replace('{', '{ ') : l))), line: 3, reason: /line 2 was edited/ },
    { name: 'last line edited', damage: (home) => writeLines(home, logLines(home).map((l, i) => (i === 4 ? l.replace('pw_5', 'pw_6') : l))), line: 5, reason: /last line\) was edited/ },
    { name: 'first line deleted', damage: (home) => writeLines(home, logLines(home).slice(1)), line: 1, reason: /line 1 has seq 2: line 1 was deleted/ },
    { name: 'middle line deleted', damage: (home) => writeLines(home, logLines(home).filter((_, i) => i !== 2)), line: 3, reason: /line 3 was deleted/ },
    { name: 'two lines deleted', damage: (home) => writeLines(home, logLines(home).filter((_, i) => i !== 1 && i !== 2)), line: 2, reason: /lines 2 to 3 were deleted/ },
    { name: 'last line deleted', damage: (home) => writeLines(home, logLines(home).slice(0, 4)), line: 5, reason: /records 5 lines but audit.log has 4: the last line was deleted/ },
    { name: 'last two lines deleted', damage: (home) => writeLines(home, logLines(home).slice(0, 3)), line: 4, reason: /the last 2 lines were deleted/ },
    { name: 'all lines deleted', damage: (home) => writeFileSync(auditLogPath(home), ''), line: 1, reason: /the last 5 lines were deleted/ },
    { name: 'log file deleted', damage: (home) => unlinkSync(auditLogPath(home)), line: 1, reason: /audit.log is missing/ },
    { name: 'lines swapped', damage: (home) => { const l = logLines(home); writeLines(home, [l[0], l[2], l[1], l[3], l[4]] as string[]); }, line: 2, reason: /line 2 has seq 3/ },
    { name: 'line duplicated', damage: (home) => { const l = logLines(home); writeLines(home, [l[0], l[1], l[1], l[2], l[3], l[4]] as string[]); }, line: 3, reason: /duplicated or moved/ },
    { name: 'torn final line', damage: (home) => writeFileSync(auditLogPath(home), readFileSync(auditLogPath(home), 'utf8').slice(0, -10)), line: 5, reason: /incomplete/ },
    { name: 'not JSON', damage: (home) => writeLines(home, logLines(home).map((l, i) => (i === 1 ? 'hello' : l))), line: 2, reason: /not a valid audit record/ },
    { name: 'blank line inserted', damage: (home) => { const l = logLines(home); writeLines(home, [l[0], '', ...l.slice(1)] as string[]); }, line: 2, reason: /not a valid audit record/ },
    { name: 'huge line', damage: (home) => writeLines(home, [...logLines(home).slice(0, 2), 'x'.repeat(100_000), ...logLines(home).slice(2)]), line: 3, reason: /longer than any audit record/ },
    { name: 'head deleted', damage: (home) => unlinkSync(auditHeadPath(home)), line: 5, reason: /audit.head is missing/ },
    { name: 'head garbage', damage: (home) => writeFileSync(auditHeadPath(home), 'x'), line: 5, reason: /not a valid head/ },
    { name: 'two lines forged after the head', damage: (home) => { const l = logLines(home); writeLines(home, rechain([...l, l[4] as string, l[4] as string])); }, line: 6, reason: /appended outside/ },
    { name: 'deliberate edit with every prev recomputed', damage: (home) => writeLines(home, rechain(logLines(home).map((l, i) => (i === 1 ? l.replace('"2.00"', '"200.00"') : l)))), line: 5, reason: /last line\) was edited/ },
  ];
  for (const { name, damage, line, reason } of cases) {
    const home = await homeWithLines(5);
    damage(home);
    const result = verifyAudit(home);
    assert.equal(result.ok, false, name);
    assert.equal(result.problem?.line, line, `${name}: ${result.problem?.reason}`);
    assert.match(result.problem?.reason ?? '', reason, name);
  }
});

test('verifyAudit accepts a head one line behind (crash window) but not two', async () => {
  const home = await homeWithLines(2);
  const headAfterTwo = readFileSync(auditHeadPath(home), 'utf8');
  await appendAudit(home, { operation: 'sign_revocation' }, NOW);
  writeFileSync(auditHeadPath(home), headAfterTwo);
  assert.deepEqual(verifyAudit(home), { ok: true, lines: 3 });
  const older = await homeWithLines(1);
  const headAfterOne = readFileSync(auditHeadPath(older), 'utf8');
  await appendAudit(older, { operation: 'sign_revocation' }, NOW);
  await appendAudit(older, { operation: 'sign_revocation' }, NOW);
  writeFileSync(auditHeadPath(older), headAfterOne);
  const result = verifyAudit(older);
  assert.equal(result.ok, false);
  assert.match(result.problem?.reason ?? '', /appended outside/);
});

test('known limit: one well-formed line appended after the head looks like the crash window', async () => {
  // The head may lag by one line after a crash, so a single extra line that chains correctly is
  // accepted. The chain is unkeyed anyway (SECURITY.md): whoever can write both files can forge.
  const home = await homeWithLines(5);
  const l = logLines(home);
  writeLines(home, rechain([...l, l[4] as string]));
  assert.deepEqual(verifyAudit(home), { ok: true, lines: 6 });
});

test('verifyAudit refuses to read a log with unsafe permissions', async () => {
  const home = await homeWithLines(1);
  chmodSync(auditLogPath(home), 0o666);
  assert.throws(() => verifyAudit(home), (error: unknown) => error instanceof DataDirError && error.code === 'insecure_permissions');
});

test('verifyAudit reads a log far larger than one read chunk', async () => {
  const home = tempHome();
  for (let n = 1; n <= 400; n += 1) await appendAudit(home, { operation: 'sign_card_policy_window', policy_id: `pw_${n}`, user_agent: 'u'.repeat(250) }, NOW);
  assert.deepEqual(verifyAudit(home), { ok: true, lines: 400 });
  writeLines(home, logLines(home).filter((_, i) => i !== 300));
  assert.equal(verifyAudit(home).problem?.line, 301);
});
