import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, lstatSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { createExclusive, writeFileAtomic } from '../../src/datadir/atomic-file.js';
import { tempHome } from './temp-home.js';

function withUmask<T>(umask: number, run: () => T): T {
  const previous = process.umask(umask);
  try {
    return run();
  } finally {
    process.umask(previous);
  }
}

test('createExclusive writes the contents at exactly the requested mode, whatever the umask', () => {
  const home = tempHome();
  const cases: Array<{ umask: number; mode: number | undefined; want: number }> = [
    { umask: 0o022, mode: undefined, want: 0o600 },
    { umask: 0o277, mode: undefined, want: 0o600 },
    { umask: 0o000, mode: 0o400, want: 0o400 },
  ];
  cases.forEach(({ umask, mode, want }, index) => {
    const file = path.join(home, `f${index}`);
    withUmask(umask, () => (mode === undefined ? createExclusive(file, 'data') : createExclusive(file, 'data', mode)));
    assert.equal(statSync(file).mode & 0o777, want);
    assert.equal(readFileSync(file, 'utf8'), 'data');
  });
});

test('createExclusive refuses an existing file and leaves it untouched', () => {
  const home = tempHome();
  const file = path.join(home, 'daemon_token');
  createExclusive(file, 'first');
  assert.throws(() => createExclusive(file, 'second'), { code: 'EEXIST' });
  assert.equal(readFileSync(file, 'utf8'), 'first');
  assert.deepEqual(readdirSync(home), ['daemon_token'], 'no temporary file is left behind');
  assert.equal(statSync(file).nlink, 1);
});

test('createExclusive refuses to create through a dangling symbolic link', () => {
  const home = tempHome();
  const target = path.join(home, 'target');
  const link = path.join(home, 'link');
  symlinkSync(target, link);
  assert.throws(() => createExclusive(link, 'x'), { code: 'EEXIST' });
  assert.throws(() => lstatSync(target), { code: 'ENOENT' });
});

test('writeFileAtomic creates, then replaces, at the final mode and leaves no temporary file', () => {
  const home = tempHome();
  const file = path.join(home, 'config.json');
  withUmask(0o277, () => writeFileAtomic(file, 'one'));
  assert.equal(readFileSync(file, 'utf8'), 'one');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  writeFileAtomic(file, new Uint8Array([0x74, 0x77, 0x6f]));
  assert.equal(readFileSync(file, 'utf8'), 'two');
  assert.deepEqual(readdirSync(home), ['config.json']);
});

test('writeFileAtomic replaces a symbolic link at the path instead of writing through it', () => {
  const home = tempHome();
  const victim = path.join(home, 'victim');
  writeFileSync(victim, 'keep me', { mode: 0o600 });
  const file = path.join(home, 'daemon_token');
  symlinkSync(victim, file);
  writeFileAtomic(file, 'new');
  assert.equal(readFileSync(victim, 'utf8'), 'keep me');
  assert.equal(lstatSync(file).isFile(), true);
  assert.equal(readFileSync(file, 'utf8'), 'new');
});

test('writeFileAtomic removes its temporary file and leaves the old contents when the rename fails', () => {
  const home = tempHome();
  // A non-empty directory at the target makes rename fail after the temporary file is written.
  const target = path.join(home, 'audit.head');
  mkdirSync(target);
  writeFileSync(path.join(target, 'inside'), 'old', { mode: 0o600 });
  assert.throws(() => writeFileAtomic(target, 'new'));
  assert.deepEqual(readdirSync(home), ['audit.head']);
  assert.equal(readFileSync(path.join(target, 'inside'), 'utf8'), 'old');
});

test('writeFileAtomic fails cleanly when the directory does not exist', () => {
  const home = tempHome();
  assert.throws(() => writeFileAtomic(path.join(home, 'missing', 'file'), 'x'), { code: 'ENOENT' });
  assert.deepEqual(readdirSync(home), []);
});

test('a concurrent reader sees only whole old or whole new contents during replacements', async () => {
  const home = tempHome();
  const file = path.join(home, 'config.json');
  const size = 256 * 1024;
  writeFileAtomic(file, 'a'.repeat(size));
  const stop = new SharedArrayBuffer(4);
  // The reader runs on another thread, so its reads interleave with the writes below.
  const reader = new Worker(
    `const { readFileSync } = require('node:fs');
     const { workerData, parentPort } = require('node:worker_threads');
     const flag = new Int32Array(workerData.stop);
     let reads = 0, torn = 0;
     while (Atomics.load(flag, 0) === 0) {
       const text = readFileSync(workerData.file, 'latin1');
       reads++;
       if (text.length !== workerData.size || text !== text[0].repeat(workerData.size)) torn++;
     }
     parentPort.postMessage({ reads, torn });`,
    { eval: true, workerData: { file, size, stop } },
  );
  const result = new Promise<{ reads: number; torn: number }>((resolve, reject) => {
    reader.once('message', resolve);
    reader.once('error', reject);
  });
  await new Promise<void>((resolve) => reader.once('online', () => resolve()));
  for (let round = 0; round < 200; round += 1) writeFileAtomic(file, String.fromCharCode(98 + (round % 20)).repeat(size));
  Atomics.store(new Int32Array(stop), 0, 1);
  const { reads, torn } = await result;
  await reader.terminate();
  assert.ok(reads > 0, 'the reader ran');
  assert.equal(torn, 0);
});
