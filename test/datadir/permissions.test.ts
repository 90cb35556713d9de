import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, lchownSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { assertDataDirSecure, assertHomeSecure, assertPrivate } from '../../src/datadir/permissions.js';
import { readPrivateFile } from '../../src/datadir/read-private-file.js';
import { NOBODY_UID, runningAsRoot, tempHome } from './temp-home.js';

function expectRefusal(run: () => void, code: string, file: string, fix: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof DataDirError, String(error));
    assert.equal(error.code, code);
    assert.equal(error.file, file);
    assert.equal(error.fix, fix);
    assert.ok(error.message.includes(file), 'the message names the file');
    assert.ok(error.message.includes(fix), 'the message names the fix');
    return true;
  });
}

test('assertPrivate accepts 0600 files, 0700 directories and missing paths', () => {
  const home = tempHome();
  const file = path.join(home, 'daemon_token');
  writeFileSync(file, 'x', { mode: 0o600 });
  for (const mode of [0o600, 0o400, 0o200, 0o000]) {
    chmodSync(file, mode);
    assertPrivate(file, 'file');
  }
  assertPrivate(home, 'dir');
  assertPrivate(path.join(home, 'absent'), 'file');
  assertPrivate(path.join(home, 'absent-dir'), 'dir');
});

test('assertPrivate refuses every group or world bit on a file, naming chmod 600', () => {
  const home = tempHome();
  const file = path.join(home, 'device.key');
  writeFileSync(file, 'x', { mode: 0o600 });
  for (const mode of [0o640, 0o604, 0o620, 0o602, 0o610, 0o601, 0o644, 0o666, 0o777, 0o700 | 0o070]) {
    chmodSync(file, mode);
    expectRefusal(() => assertPrivate(file, 'file'), 'insecure_permissions', file, `chmod 600 ${file}`);
  }
});

test('assertPrivate refuses a group or world accessible data directory, naming chmod 700', () => {
  const home = tempHome();
  for (const mode of [0o750, 0o705, 0o770, 0o755, 0o711, 0o701]) {
    chmodSync(home, mode);
    expectRefusal(() => assertDataDirSecure(home), 'insecure_permissions', home, `chmod 700 ${home}`);
  }
});

test('assertPrivate refuses files and directories owned by another user, naming chown', { skip: !runningAsRoot() && 'needs root to chown' }, () => {
  const home = tempHome();
  const file = path.join(home, 'config.json');
  writeFileSync(file, '{}', { mode: 0o600 });
  chownSync(file, NOBODY_UID, NOBODY_UID);
  assert.throws(() => assertPrivate(file, 'file'), (error: unknown) => {
    assert.ok(error instanceof DataDirError);
    assert.equal(error.code, 'wrong_owner');
    assert.match(error.fix, /^sudo chown \S+ /);
    assert.ok(error.fix.endsWith(file));
    return true;
  });
  assert.throws(() => assertDataDirSecure(home), (error: unknown) => error instanceof DataDirError && error.code === 'wrong_owner' && error.file === file);
  chownSync(file, 0, 0);
  chownSync(home, NOBODY_UID, NOBODY_UID);
  assert.throws(() => assertDataDirSecure(home), (error: unknown) => error instanceof DataDirError && error.code === 'wrong_owner' && error.file === home);
});

test('assertPrivate refuses a symbolic link in place of a data file, even one to a private file', () => {
  const home = tempHome();
  const target = path.join(home, 'elsewhere');
  writeFileSync(target, 'x', { mode: 0o600 });
  const link = path.join(home, 'daemon_token');
  symlinkSync(target, link);
  expectRefusal(() => assertPrivate(link, 'file'), 'symlink', link, `replace the link with a regular file: rm ${link}`);
  assert.throws(() => assertDataDirSecure(home), (error: unknown) => error instanceof DataDirError && error.code === 'symlink');
  assert.throws(() => readPrivateFile(link, 100), (error: unknown) => error instanceof DataDirError && error.code === 'symlink');
});

test('assertPrivate follows a symbolic link to the data directory and checks its target', () => {
  const home = tempHome();
  const link = `${home}-link`;
  symlinkSync(home, link);
  assertPrivate(link, 'dir');
  chmodSync(home, 0o755);
  assert.throws(() => assertPrivate(link, 'dir'), (error: unknown) => error instanceof DataDirError && error.code === 'insecure_permissions');
});

test('assertHomeSecure refuses a data directory reached through a link owned by another user, naming the fix', { skip: !runningAsRoot() && 'needs root to chown' }, () => {
  const home = tempHome();
  const link = `${home}-link`;
  symlinkSync(home, link);
  assertHomeSecure(link);
  lchownSync(link, NOBODY_UID, NOBODY_UID);
  expectRefusal(() => assertHomeSecure(link), 'wrong_owner', link, `replace the link with one you own: ln -sfn "$(readlink ${link})" ${link}`);
  expectRefusal(() => assertDataDirSecure(link), 'wrong_owner', link, `replace the link with one you own: ln -sfn "$(readlink ${link})" ${link}`);
  lchownSync(link, 0, 0);
  chmodSync(home, 0o750);
  expectRefusal(() => assertHomeSecure(link), 'insecure_permissions', link, `chmod 700 ${link}`);
});

test('assertPrivate refuses the wrong type: a directory as a file, a file as the directory', () => {
  const home = tempHome();
  const dir = path.join(home, 'audit.log');
  mkdirSync(dir, { mode: 0o700 });
  assert.throws(() => assertPrivate(dir, 'file'), (error: unknown) => error instanceof DataDirError && error.code === 'wrong_type');
  const file = path.join(home, 'plain');
  writeFileSync(file, 'x', { mode: 0o600 });
  assert.throws(() => assertPrivate(file, 'dir'), (error: unknown) => error instanceof DataDirError && error.code === 'wrong_type');
});

test('fix commands quote paths with spaces or quotes so they paste into a shell', () => {
  const home = tempHome();
  const file = path.join(home, "it's a file");
  writeFileSync(file, 'x', { mode: 0o644 });
  expectRefusal(() => assertPrivate(file, 'file'), 'insecure_permissions', file, `chmod 600 '${file.replaceAll("'", `'\\''`)}'`);
});

test('readPrivateFile checks the open descriptor: mode, size cap, and missing files', () => {
  const home = tempHome();
  const file = path.join(home, 'config.json');
  assert.equal(readPrivateFile(file, 10), undefined);
  writeFileSync(file, 'hello', { mode: 0o600 });
  assert.equal(readPrivateFile(file, 10), 'hello');
  assert.throws(() => readPrivateFile(file, 4), (error: unknown) => error instanceof DataDirError && error.code === 'too_large');
  chmodSync(file, 0o644);
  assert.throws(() => readPrivateFile(file, 10), (error: unknown) => error instanceof DataDirError && error.code === 'insecure_permissions');
});
