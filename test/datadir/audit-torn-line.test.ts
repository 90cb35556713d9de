/**
 * A power cut during a write can leave audit.log ending with an incomplete line, one that was never
 * acknowledged. The start refuses it (fails closed) and names the fix that keeps the chain: a copy,
 * then the file cut back to its last whole line (docs/decisions.md §46). The fix is run here as the
 * owner would run it, with the real `cp` and `truncate`, and the log is then accepted and verifies.
 * The crash simulator applies the same fix after every power loss that tears a line
 * (test/simulation/simulate.ts).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { test } from 'node:test';
import { assertAuditAppendable, auditLogPath } from '../../src/datadir/audit-log.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { verifyAudit } from '../../src/verify/audit-verify.js';
import { appendAudit } from '../support/audit-append.js';
import { tempHome } from './temp-home.js';

const NOW = new Date('2025-03-04T05:06:07.000Z');

async function homeWithLines(count: number): Promise<string> {
  const home = tempHome();
  for (let n = 1; n <= count; n++) await appendAudit(home, { operation: 'sign_card_policy_window', policy_id: `pw_${n}`, request_id: `req_${n}`, amount: '12.50', currency: 'USD' }, NOW);
  return home;
}

function refusal(home: string): DataDirError {
  try {
    assertAuditAppendable(home);
  } catch (error) {
    assert.ok(error instanceof DataDirError, String(error));
    return error;
  }
  assert.fail('a torn audit.log was accepted');
}

test('a torn last line is refused with a fix that cuts exactly that line; run as named, the log is accepted and verifies', async () => {
  const home = await homeWithLines(3);
  const whole = statSync(auditLogPath(home)).size;
  appendFileSync(auditLogPath(home), '{"seq":4,"prev":"ab');
  const refused = refusal(home);
  assert.equal(refused.code, 'corrupt');
  assert.match(refused.message, /incomplete line/);
  assert.match(refused.fix, new RegExp(`truncate -s ${whole} `), refused.fix);
  execFileSync('bash', ['-c', refused.fix.slice(refused.fix.indexOf('(') + 1, refused.fix.indexOf(')'))]);
  assert.equal(statSync(auditLogPath(home)).size, whole);
  assert.match(readFileSync(`${auditLogPath(home)}.torn`, 'utf8'), /\{"seq":4,"prev":"ab$/, 'the copy keeps the torn line as evidence');
  assertAuditAppendable(home);
  assert.equal(verifyAudit(home).ok, true);
  await appendAudit(home, { operation: 'sign_card_policy_window', policy_id: 'pw_4', request_id: 'req_4' }, NOW);
  assert.equal(verifyAudit(home).ok, true, 'the chain goes on from the last whole line');
});

test('a cut back further than the torn line is still refused: the rest is checked against audit.head', async () => {
  const home = await homeWithLines(3);
  const lines = readFileSync(auditLogPath(home), 'utf8').split('\n');
  const twoLines = Buffer.byteLength(`${lines[0]}\n${lines[1]}\n`);
  appendFileSync(auditLogPath(home), '{"seq":4');
  execFileSync('truncate', ['-s', String(twoLines), auditLogPath(home)]);
  assert.match(refusal(home).message, /does not match audit\.head/);
});

test('a fragment longer than any line is not a torn write: the refusal names no cut', async () => {
  const home = await homeWithLines(1);
  appendFileSync(auditLogPath(home), 'x'.repeat(70_000));
  const refused = refusal(home);
  assert.match(refused.message, /incomplete line/);
  assert.doesNotMatch(refused.fix, /truncate/);
});
