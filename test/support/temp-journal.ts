import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';

/**
 * tempJournalPath names a `state.journal` (not created) in a new private (0700) temporary
 * directory, removed when the test file finishes.
 */
export function tempJournalPath(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'latch-journal-'));
  chmodSync(dir, 0o700);
  after(() => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'state.journal');
}
