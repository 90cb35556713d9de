/**
 * Every line the daemon writes to audit.log goes through its one recorder (daemon/audit-recorder.ts),
 * which moves the audit anchor in state.journal once the line is on disk (docs/decisions.md §20,
 * §28.4). Derived from src/: a daemon file that opened the writer itself would write lines the
 * anchor never reaches (identity lines did, before).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const SRC = path.resolve(import.meta.dirname, '../../src');
/** The recorder itself, and the stop sequence, which only waits for the writer to be idle. */
const ALLOWED = new Set(['daemon/audit-recorder.ts', 'daemon/daemon-lifecycle.ts']);
/** Separate processes (the CLI's own commands) and the writer's own folder. */
const OTHER_PROCESSES = ['cli/', 'datadir/', 'sandbox/'];

test('no daemon file but the recorder opens the audit writer or appends to audit.log itself', () => {
  const offences: string[] = [];
  for (const name of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    if (!name.endsWith('.ts') || ALLOWED.has(name) || OTHER_PROCESSES.some((folder) => name.startsWith(folder))) continue;
    const text = readFileSync(path.join(SRC, name), 'utf8');
    // The writer (shared or made anew), or the pieces it builds on: the log opened for appending,
    // the chain of new lines, the lock that orders appends.
    if (/\b(sharedAuditWriter|createAuditWriter|AuditWriter|openForAppend|chainRecords|withAuditLock)\b/.test(text)) offences.push(name);
  }
  assert.deepEqual(offences, []);
});
