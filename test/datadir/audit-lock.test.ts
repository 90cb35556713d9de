import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { appendAudit } from '../../src/datadir/audit-log.js';
import { auditLockPath, withAuditLock } from '../../src/datadir/audit-lock.js';
import { verifyAudit } from '../../src/datadir/audit-verify.js';
import { createAuditWriter } from '../../src/datadir/audit-writer.js';
import { REPO_ROOT } from '../support/paths.js';

const homes: string[] = [];
after(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function newHome(): string {
  const home = mkdtempSync(path.join(tmpdir(), 'latch-audit-lock-'));
  chmodSync(home, 0o700);
  homes.push(home);
  return home;
}

const entry = (n: number) => ({ operation: 'sign_policy_window', key_id: 'k', request_id: `req_${n}`, user_agent: 'test' });

/** appendInChild appends count lines with appendAudit from another process. */
function appendInChild(home: string, count: number): Promise<number | null> {
  const script = `import { appendAudit } from ${JSON.stringify(path.join(REPO_ROOT, 'src/datadir/audit-log.ts'))};
for (let i = 0; i < ${count}; i++) appendAudit(process.argv[1], { operation: 'sign_request', key_id: 'child', request_id: 'req_' + i, user_agent: null });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, home], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve) => child.once('exit', resolve));
}

test('two other processes and this one’s writer append at once: one unbroken chain with every line', async () => {
  const home = newHome();
  appendAudit(home, entry(0));
  const writer = createAuditWriter(home);
  const children = [appendInChild(home, 150), appendInChild(home, 150)];
  const mine: Array<Promise<unknown>> = [];
  for (let i = 1; i <= 150; i++) {
    mine.push(writer.append(entry(i)));
    if (i % 10 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.deepEqual(await Promise.all(children), [0, 0]);
  await Promise.all(mine);
  await writer.idle();
  const verified = verifyAudit(home);
  assert.deepEqual(verified, { ok: true, lines: 451 });
  assert.ok(!existsSync(auditLockPath(home)), 'the lock is released');
  assert.deepEqual(readdirSync(home).sort(), ['audit.head', 'audit.log'], 'no lock or temporary file is left');
});

test('a lock left by a process that no longer runs (kill -9 mid-append) is taken over', async () => {
  const home = newHome();
  const dead = spawn(process.execPath, ['-e', '0']);
  const deadPid = await new Promise<number>((resolve) => dead.once('exit', () => resolve(dead.pid as number)));
  writeFileSync(auditLockPath(home), `${deadPid} 0123456789abcdef\n`, { mode: 0o600 });
  appendAudit(home, entry(1));
  assert.equal(verifyAudit(home).lines, 1);
  assert.ok(!existsSync(auditLockPath(home)));
});

test('a lock held by a live process makes the next append wait for it, not break it', async () => {
  const home = newHome();
  appendAudit(home, entry(0));
  const order: string[] = [];
  const held = withAuditLock(home, async () => {
    order.push('holder start');
    await new Promise((resolve) => setTimeout(resolve, 150));
    order.push('holder end');
  });
  const writer = createAuditWriter(home);
  const appended = writer.append(entry(1)).then(() => order.push('append'));
  await Promise.all([held, appended]);
  assert.deepEqual(order, ['holder start', 'holder end', 'append']);
  await writer.idle();
  assert.deepEqual(verifyAudit(home), { ok: true, lines: 2 });
});
