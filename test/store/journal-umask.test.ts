/**
 * A journal and its compaction temporaries are 0600 whatever the umask: under `umask 0277` the
 * mode asked for at creation comes out 0400, which the next start could not open for appending
 * (docs/decisions.md §24.8).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { createIfMissing, writeTemporary } from '../../src/store/journal-files.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'latch-journal-umask-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('under umask 0277 and 0000 a new journal and a temporary are exactly 0600', { skip: process.platform === 'win32' ? 'POSIX modes' : false }, async () => {
  for (const mask of [0o277, 0o000]) {
    const previous = process.umask(mask);
    try {
      const journal = path.join(root, `journal-${mask.toString(8)}`);
      assert.equal(await createIfMissing(journal), true);
      assert.equal(statSync(journal).mode & 0o777, 0o600, `journal under umask ${mask.toString(8)}`);
      const temporary = await writeTemporary(journal, [new Uint8Array([1, 2, 3])]);
      assert.equal(statSync(temporary).mode & 0o777, 0o600, `temporary under umask ${mask.toString(8)}`);
    } finally {
      process.umask(previous);
    }
  }
});
