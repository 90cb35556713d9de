/**
 * prepareDataDirFor, the root step of `--user NAME` and `service install --system`: it creates the
 * data directory for the service user and gives it away through a descriptor opened without
 * following links, and refuses a link or someone else's directory in its place. Making files of
 * another uid needs root.
 */
import assert from 'node:assert/strict';
import { chownSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { prepareDataDirFor, ServiceUserError } from '../../src/service/service-user.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const SERVICE = { name: 'l36svc', uid: 54_323, gid: 54_323, home: '/nonexistent' };

test('the data directory is made 0700 for the service user; a link or another owner\'s directory in its place is refused and left as it was', { skip: isRoot ? false : 'needs root to give a directory away' }, () => {
  const root = mkdtempSync(path.join(tmpdir(), 'latch-l36-datadir-'));
  try {
    const home = path.join(root, 'data');
    prepareDataDirFor(home, SERVICE);
    const made = statSync(home);
    assert.equal(made.uid, SERVICE.uid);
    assert.equal(made.gid, SERVICE.gid);
    assert.equal(made.mode & 0o777, 0o700);
    prepareDataDirFor(home, SERVICE);

    const target = path.join(root, 'root-owned');
    mkdirSync(target, { mode: 0o755 });
    const linked = path.join(root, 'linked');
    symlinkSync(target, linked);
    assert.throws(() => prepareDataDirFor(linked, SERVICE), ServiceUserError);
    assert.equal(statSync(target).uid, 0, 'the link\'s target was not given away');

    const others = path.join(root, 'others');
    mkdirSync(others, { mode: 0o700 });
    chownSync(others, SERVICE.uid + 1, SERVICE.gid + 1);
    assert.throws(() => prepareDataDirFor(others, SERVICE), /owned by uid/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
