/**
 * The small things a newcomer met (issue 30 item 7) that have no better home: a reader that closes
 * the pipe early does not crash the CLI, counts are in words ("1 budget"), and the docs' sentences
 * about the approvals tour and bin/latch.js say what is true.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { countOf, policySummary } from '../../src/policy-text/policy-summary.js';
import { REPO_ROOT } from '../support/paths.js';

let root: string;
before(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'latch-small-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

test('--passphrase-stdin into a pipe whose reader is gone (| head -1): the work is done, no EPIPE stack, exit 0', async () => {
  const home = path.join(root, 'epipe');
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'approvals', 'passphrase', 'set', '--passphrase-stdin'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: root, LATCH_HOME: home },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // The reader goes away before the command writes a word.
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end('correct horse battery\n');
  const code = await new Promise<number | null>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the CLI did not exit within 60 s')), 60_000);
    child.on('exit', (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  assert.doesNotMatch(stderr, /EPIPE|Unhandled 'error' event|at /);
  assert.equal(code, 0, stderr);
  assert.ok(existsSync(path.join(home, 'approval_passphrase')), 'the passphrase was set');
});

test('counts are in words: 1 rule, 1 budget, 0 velocity limits', () => {
  assert.equal(policySummary({ rules: [{}], budgets: [{}], velocity: [] } as never), '1 rule, 1 budget, 0 velocity limits');
  assert.equal(countOf(2, 'pending approval'), '2 pending approvals');
});

test("the README's approvals tour runs on latch start (the sandbox and the daemon), not latch sandbox alone", () => {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const tour = readme.slice(readme.indexOf('### Approvals'), readme.indexOf('### The emergency brake'));
  assert.match(tour, /`latch start`, running/);
  assert.doesNotMatch(tour, /`latch sandbox` running/);
});

test('packaging.md says bin/latch.js runs the sources in a checkout (what test/build/bin-latch.test.ts checks)', () => {
  const text = readFileSync(path.join(REPO_ROOT, 'docs', 'packaging.md'), 'utf8').replace(/\s+/g, ' ');
  assert.match(text, /In a source checkout `bin\/latch\.js` runs the sources through tsx/);
  assert.doesNotMatch(text, /says to run `npm run build:js` when `dist\/latch\.cjs` is missing/);
});
