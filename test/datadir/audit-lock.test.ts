import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { auditLockPath, withAuditLock } from '../../src/datadir/audit-lock.js';
import { verifyAudit } from '../../src/verify/audit-verify.js';
import { createAuditWriter } from '../../src/datadir/audit-writer.js';
import { appendAudit } from '../support/audit-append.js';
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

/**
 * appendInChild appends count lines from another process through that process's own writer, one
 * at a time, each settled (and audit.lock let go) before the next, as a CLI command appends.
 */
function appendInChild(home: string, count: number): Promise<number | null> {
  const script = `import { appendAudit } from ${JSON.stringify(path.join(REPO_ROOT, 'test/support/audit-append.ts'))};
for (let i = 0; i < ${count}; i++) await appendAudit(process.argv[1], { operation: 'sign_request', key_id: 'child', request_id: 'req_' + i, user_agent: null });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, home], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve) => child.once('exit', resolve));
}

test('two other processes and this one’s writer append at once: one unbroken chain with every line', async () => {
  const home = newHome();
  await appendAudit(home, entry(0));
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
  await appendAudit(home, entry(1));
  assert.equal(verifyAudit(home).lines, 1);
  assert.ok(!existsSync(auditLockPath(home)));
});

test('a lock held by a live process makes the next append wait for it, not break it', async () => {
  const home = newHome();
  await appendAudit(home, entry(0));
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

test('a writer keeps audit.lock over a burst of commits and lets go when its queue empties', async () => {
  const home = newHome();
  const locksSeen: string[] = [];
  const writer = createAuditWriter(home, { onCommit: () => locksSeen.push(readFileSync(auditLockPath(home), 'utf8')) });
  // The first entry starts a commit at once; the rest queue behind it and follow in the same burst.
  await Promise.all(Array.from({ length: 150 }, (_, i) => writer.append(entry(i))));
  await writer.idle();
  assert.ok(locksSeen.length >= 3, `${locksSeen.length} commits`);
  assert.equal(new Set(locksSeen).size, 1, 'one taking of the lock covered every commit of the burst');
  assert.match(locksSeen[0] as string, new RegExp(`^${process.pid} [0-9a-f]{16}\\n$`));
  assert.ok(!existsSync(auditLockPath(home)), 'the lock is released once nothing is queued');
  assert.deepEqual(verifyAudit(home), { ok: true, lines: 150 });
});

test('another process gets its turn while this process’s writer is kept busy without a pause', async () => {
  const home = newHome();
  const writer = createAuditWriter(home);
  let childDone = false;
  const child = appendInChild(home, 3).then((code) => {
    childDone = true;
    return code;
  });
  // Eight clients append back to back until the child has appended, so the queue never empties
  // for long: the child only gets in if the writer lets go of the lock between bursts. If it did
  // not, the child would give up after AUDIT_LOCK_WAIT_MS_MAX and exit non-zero.
  let mine = 0;
  const client = async (id: number): Promise<void> => {
    while (!childDone) {
      await writer.append(entry(id * 1_000_000 + mine));
      mine += 1;
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, id) => client(id)));
  assert.equal(await child, 0);
  await writer.idle();
  assert.deepEqual(verifyAudit(home), { ok: true, lines: mine + 3 });
  assert.ok(!existsSync(auditLockPath(home)));
});
