import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { oncePerTurn, reloadOnChange } from '../../src/daemon/reload-on-change.js';
import { tempHome } from './daemon-fixture.js';

const dir = tempHome();
after(dir.remove);

test('reloads only when the file changes (rename, rewrite, chmod, delete), and never caches a failed load', () => {
  const file = path.join(dir.root, 'value');
  let loads = 0;
  let fail = false;
  const get = reloadOnChange(file, () => {
    loads++;
    if (fail) throw new Error('load failed');
    return loads;
  });
  assert.equal(get(), 1, 'a missing file is loaded once');
  assert.equal(get(), 1);
  writeFileSync(file, 'a');
  assert.equal(get(), 2);
  assert.equal(get(), 2, 'unchanged: no reload');
  writeFileSync(`${file}.tmp`, 'b');
  renameSync(`${file}.tmp`, file);
  assert.equal(get(), 3, 'a rename into place is a change');
  chmodSync(file, 0o644);
  fail = true;
  assert.throws(get, /load failed/);
  assert.throws(get, /load failed/, 'a failed load is retried, not cached');
  fail = false;
  assert.equal(get(), 6);
  rmSync(file);
  assert.equal(get(), 7, 'deletion is a change');
});

test('through a symbolic link (a linked data directory), a chmod of the target or a repointed link is a change', () => {
  const target = path.join(dir.root, 'target-dir');
  const other = path.join(dir.root, 'other-dir');
  mkdirSync(target, { mode: 0o700 });
  mkdirSync(other, { mode: 0o700 });
  const link = path.join(dir.root, 'linked-home');
  symlinkSync(target, link);
  let loads = 0;
  const get = reloadOnChange(link, () => ++loads);
  assert.equal(get(), 1);
  assert.equal(get(), 1, 'unchanged: no reload');
  chmodSync(target, 0o770);
  assert.equal(get(), 2, 'the target’s mode changed');
  rmSync(link);
  symlinkSync(other, link);
  assert.equal(get(), 3, 'the link points elsewhere');
});

test('oncePerTurn: repeats within one synchronous run share one check; the next run checks again; a failed check is not remembered', async () => {
  let runs = 0;
  let failing = false;
  const checked = oncePerTurn(() => {
    runs += 1;
    if (failing) throw new Error('unsafe');
  });
  checked();
  checked();
  checked();
  assert.equal(runs, 1);
  await Promise.resolve();
  checked();
  assert.equal(runs, 2, 'after the run yields, the check runs again');
  await new Promise((resolve) => setImmediate(resolve));
  failing = true;
  assert.throws(checked, /unsafe/);
  assert.throws(checked, /unsafe/, 'a check that threw is run again, not skipped');
  assert.equal(runs, 4);
});
