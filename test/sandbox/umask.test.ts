/**
 * The sandbox's data directory is 0700 whatever the umask: under `umask 0277` a new directory
 * comes out 0500, where `nobody` could not write the admin key (docs/decisions.md §24.8).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { createSandbox } from '../../src/sandbox/create-sandbox.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'latch-sandbox-umask-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('under umask 0277 the sandbox creates its directory 0700 and starts', { skip: process.platform === 'win32' ? 'POSIX modes' : false }, async () => {
  const dataDir = path.join(root, 'sandbox');
  const previous = process.umask(0o277);
  let sandbox;
  try {
    sandbox = await createSandbox({ dataDir, port: 0 });
  } finally {
    process.umask(previous);
  }
  try {
    assert.equal(statSync(dataDir).mode & 0o777, 0o700);
    assert.equal(statSync(path.join(dataDir, 'journal')).mode & 0o777, 0o600);
  } finally {
    await sandbox.close();
  }
});
