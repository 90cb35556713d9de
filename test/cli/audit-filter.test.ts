import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli } from '../../src/cli/main.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { matchesAuditFilter, parseOperations, parseSince } from '../../src/cli/audit-filter.js';
import { appendAudit } from '../support/audit-append.js';
import type { AuditRecord } from '../../src/datadir/audit-entry.js';
import { tempHome } from '../datadir/temp-home.js';
import { captureIo } from './cli-io.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');

test('--since takes ISO times, dates and spans back from now; anything else is a usage error', () => {
  assert.equal(parseSince('30m', NOW), NOW - 30 * 60_000);
  assert.equal(parseSince('12h', NOW), NOW - 12 * 3_600_000);
  assert.equal(parseSince('7d', NOW), NOW - 7 * 86_400_000);
  assert.equal(parseSince('2026-11-01', NOW), Date.parse('2026-11-01T00:00:00Z'));
  assert.equal(parseSince('2026-11-01T09:30:00Z', NOW), Date.parse('2026-11-01T09:30:00Z'));
  assert.equal(parseSince('2026-11-01T09:30:00+02:00', NOW), Date.parse('2026-11-01T07:30:00Z'));
  for (const bad of ['', 'yesterday', '0m', '-1h', '5s', '1w', '2026-13-01', '2026-11-01 09:00', '9999999d', 'now']) {
    assert.throws(() => parseSince(bad, NOW), /--since must be/, bad);
  }
});

test('--operation takes comma-separated operation names', () => {
  assert.deepEqual([...parseOperations('authorize,sign_revocation')], ['authorize', 'sign_revocation']);
  for (const bad of ['', 'a,,b', 'Authorize', 'a b', 'x'.repeat(65), '4111111111111111']) assert.throws(() => parseOperations(bad), /--operation/, bad);
});

test('lines without an agent field were signed for the owner', () => {
  const line = { seq: 1, prev: '0'.repeat(64), time: '2026-11-23T11:00:00.000Z', operation: 'authorize' } as unknown as AuditRecord;
  assert.equal(matchesAuditFilter(line, { agent: 'owner' }), true);
  assert.equal(matchesAuditFilter(line, { agent: 'shopper' }), false);
  assert.equal(matchesAuditFilter({ ...line, agent: 'shopper' }, { agent: 'shopper' }), true);
  assert.equal(matchesAuditFilter(line, { sinceMs: Date.parse('2026-11-23T11:00:00Z') }), true);
  assert.equal(matchesAuditFilter(line, { sinceMs: Date.parse('2026-11-23T11:00:01Z') }), false);
  assert.equal(matchesAuditFilter({ ...line, time: 'garbage' }, { sinceMs: 0 }), false);
});

test('latch audit --operation --agent --since selects lines; --limit counts matching lines', async () => {
  const home = tempHome();
  const at = (iso: string) => new Date(iso);
  await appendAudit(home, { operation: 'authorize', policy_id: 'pw_1', agent: 'shopper' }, at('2026-11-20T10:00:00Z'));
  await appendAudit(home, { operation: 'sign_request', method: 'GET', path: '/v1/cards', agent: 'shopper' }, at('2026-11-21T10:00:00Z'));
  await appendAudit(home, { operation: 'authorize', policy_id: 'pw_2', agent: 'owner' }, at('2026-11-22T10:00:00Z'));
  await appendAudit(home, { operation: 'sign_revocation', policy_id: 'pw_1', agent: 'shopper' }, at('2026-11-23T10:00:00Z'));
  for (let i = 0; i < 30; i++) await appendAudit(home, { operation: 'sign_request', method: 'GET', path: '/v1/wallet', agent: 'owner' }, at('2026-11-23T11:00:00Z'));

  const run = async (...argv: string[]) => {
    const io = captureIo({ LATCH_HOME: home });
    const code = await runCli(['audit', ...argv, '--json'], io);
    assert.equal(code, EXIT.ok, io.stderr.text);
    return (JSON.parse(io.stdout.text) as { records: AuditRecord[] }).records;
  };
  assert.deepEqual((await run('--operation', 'authorize')).map((r) => r.policy_id), ['pw_1', 'pw_2']);
  assert.deepEqual((await run('--agent', 'shopper', '--reads')).map((r) => r.operation), ['authorize', 'sign_request', 'sign_revocation']);
  // By default the signed reads are left out, so the 30 GETs do not bury what moved money (issue 30 item 7).
  assert.deepEqual((await run('--agent', 'shopper')).map((r) => r.operation), ['authorize', 'sign_revocation']);
  assert.deepEqual((await run()).map((r) => r.policy_id), ['pw_1', 'pw_2', 'pw_1']);
  assert.equal((await run('--reads')).length, 20);
  assert.deepEqual((await run('--agent', 'shopper', '--operation', 'authorize,sign_revocation', '--since', '2026-11-21')).map((r) => r.operation), ['sign_revocation']);
  assert.equal((await run('--operation', 'sign_request', '--limit', '5')).length, 5);
  assert.deepEqual(await run('--agent', 'nobody'), []);

  const table = captureIo({ LATCH_HOME: home });
  assert.equal(await runCli(['audit', '--operation', 'authorize'], table), EXIT.ok);
  const lines = table.stdout.text.trim().split('\n');
  assert.match(lines[0] as string, /^SEQ\s+TIME\s+OPERATION\s+AGENT\s+MERCHANT\s+AMOUNT\s+DETAIL\s+USER-AGENT$/);
  assert.match(lines[1] as string, /authorize\s+shopper\s+.*pw_1/);
  const none = captureIo({ LATCH_HOME: home });
  assert.equal(await runCli(['audit', '--agent', 'nobody'], none), EXIT.ok);
  assert.match(none.stdout.text, /no line matches/);
  const bad = captureIo({ LATCH_HOME: home });
  assert.equal(await runCli(['audit', '--agent', 'Not Valid'], bad), EXIT.usage);
});
