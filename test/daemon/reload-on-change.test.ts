import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { oncePerTurn, RECHECK_AFTER_MS, reloadOnChange } from '../../src/daemon/reload-on-change.js';
import { tempHome } from './daemon-fixture.js';

const dir = tempHome();
after(dir.remove);

/** untilSeen calls get until it returns want (a watch event is delivered on a later turn), within a deadline. */
async function untilSeen<T>(get: () => T, want: T, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (get() !== want) {
    if (Date.now() > deadline) throw new Error(`${what}: not seen within 5 s (got ${String(get())}, want ${String(want)})`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('reloads only when the file changes (rename, rewrite, chmod, delete), seen through the watch before the recheck interval, and never caches a failed load', async () => {
  const file = path.join(dir.root, 'value');
  let loads = 0;
  let fail = false;
  // The clock stands still: every change below is seen through the directory's watch alone.
  const get = reloadOnChange(
    file,
    () => {
      loads++;
      if (fail) throw new Error('load failed');
      return loads;
    },
    { clockMs: () => 0 },
  );
  assert.equal(get(), 1, 'a missing file is loaded once');
  assert.equal(get(), 1);
  writeFileSync(file, 'a');
  await untilSeen(get, 2, 'a new file');
  assert.equal(get(), 2, 'unchanged: no reload');
  writeFileSync(path.join(dir.root, 'neighbour'), 'x');
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(get(), 2, 'a change to another file in the directory is not a change of this one');
  writeFileSync(`${file}.tmp`, 'b');
  renameSync(`${file}.tmp`, file);
  await untilSeen(get, 3, 'a rename into place');
  fail = true;
  chmodSync(file, 0o644);
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      get();
    } catch (error) {
      assert.match(String(error), /load failed/);
      break;
    }
    if (Date.now() > deadline) throw new Error('a chmod was not seen within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.throws(get, /load failed/, 'a failed load is retried, not cached');
  fail = false;
  assert.equal(get(), loads);
  const afterChmod = loads;
  rmSync(file);
  await untilSeen(get, afterChmod + 1, 'deletion');
});

test('what no watch reports is seen within RECHECK_AFTER_MS: a file in a directory that cannot be watched', () => {
  let nowMs = 0;
  const missing = path.join(dir.root, 'not-yet', 'value');
  let loads = 0;
  const get = reloadOnChange(missing, () => ++loads, { clockMs: () => nowMs });
  assert.equal(get(), 1);
  mkdirSync(path.dirname(missing));
  writeFileSync(missing, 'a');
  // No watch on a directory that did not exist: every call checks, as before the watch.
  assert.equal(get(), 2);
  assert.equal(get(), 2);
  nowMs += RECHECK_AFTER_MS;
  assert.equal(get(), 2);
});

test('through a symbolic link (a linked data directory), a chmod of the target or a repointed link is a change within RECHECK_AFTER_MS', () => {
  const target = path.join(dir.root, 'target-dir');
  const other = path.join(dir.root, 'other-dir');
  mkdirSync(target, { mode: 0o700 });
  mkdirSync(other, { mode: 0o700 });
  const link = path.join(dir.root, 'linked-home');
  symlinkSync(target, link);
  let loads = 0;
  let nowMs = 0;
  const get = reloadOnChange(link, () => ++loads, { clockMs: () => nowMs });
  assert.equal(get(), 1);
  assert.equal(get(), 1, 'unchanged: no reload');
  chmodSync(target, 0o770);
  nowMs += RECHECK_AFTER_MS;
  assert.equal(get(), 2, 'the target’s mode changed');
  rmSync(link);
  symlinkSync(other, link);
  nowMs += RECHECK_AFTER_MS;
  assert.equal(get(), 3, 'the link points elsewhere');
});

test('between changes the file is not looked at on every call: one identity check per interval (strace-free: counted through the load of a changing directory)', async () => {
  // A directory whose identity changes on every write inside it: were it checked on every call,
  // each call after a write would reload. Checked once per interval, the calls within one do not.
  const watchedDir = path.join(dir.root, 'busy');
  mkdirSync(watchedDir);
  let nowMs = 0;
  let loads = 0;
  const get = reloadOnChange(path.join(watchedDir, 'sub'), () => ++loads, { clockMs: () => nowMs });
  mkdirSync(path.join(watchedDir, 'sub'));
  await new Promise((resolve) => setTimeout(resolve, 50));
  get();
  const settled = loads;
  for (let n = 0; n < 20; n += 1) {
    writeFileSync(path.join(watchedDir, 'sub', `f${n}`), 'x');
    get();
  }
  assert.equal(loads, settled, 'writes inside a directory raise no event for its name in the parent, and no check ran within the interval');
  nowMs += RECHECK_AFTER_MS;
  get();
  assert.equal(loads, settled + 1, 'after the interval the changed times are seen');
});

test('everyCall (the bearer tokens): a rotation is seen by the very next call, in the same turn', () => {
  const file = path.join(dir.root, 'token-like');
  writeFileSync(file, 'a');
  let loads = 0;
  const get = reloadOnChange(file, () => ++loads, { everyCall: true, clockMs: () => 0 });
  assert.equal(get(), 1);
  writeFileSync(`${file}.tmp`, 'b');
  renameSync(`${file}.tmp`, file);
  assert.equal(get(), 2);
  assert.equal(get(), 2);
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
