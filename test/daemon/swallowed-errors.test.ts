/**
 * A failure no caller hears of is logged, not swallowed (docs/decisions.md §28.6): the audit
 * anchor's write, the journal's compaction.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { auditAnchorKeeper } from '../../src/daemon/audit-anchor-keeper.js';
import type { StateStore } from '../../src/datadir/state-store.js';

test('an audit anchor that cannot be written is reported, with the line it names, and the next flush tries again', async () => {
  const home = mkdtempSync(path.join(tmpdir(), 'latch-anchor-warn-'));
  try {
    const warnings: Array<[string, Record<string, string>]> = [];
    let appends = 0;
    const failing = {
      register: () => undefined,
      commit: () => {
        appends += 1;
        return Promise.reject(new Error('disk full'));
      },
    } as unknown as StateStore;
    const keeper = auditAnchorKeeper(home, failing, (event, fields) => warnings.push([event, fields]));
    keeper.note({ seq: 7, hash: 'a'.repeat(64) });
    await keeper.flush();
    assert.ok(appends >= 1, 'the anchor was written');
    assert.deepEqual(warnings[0], ['audit_anchor_not_recorded', { seq: '7', detail: 'disk full' }]);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
