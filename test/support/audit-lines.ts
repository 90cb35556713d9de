/**
 * Reading a running daemon's audit.log from a test. An authorization's outcome line joins the next
 * audit commit, at the latest AUDIT_DEFER_MS after its answer (docs/decisions.md §41), so a test
 * that counts lines "before" and "after" a request first waits for the log to be quiet for longer
 * than that bound, and a test that expects a deferred line waits for it.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { AUDIT_DEFER_MS } from '../../src/datadir/audit-writer.js';

/** How long the log must stay the same size to count as quiet: twice the deferral bound. */
const QUIET_MS = 2 * AUDIT_DEFER_MS;
const DEADLINE_MS = 5_000;

/** auditLines returns home's audit.log records, in order. */
export function auditLines(home: string): Record<string, unknown>[] {
  return readFileSync(path.join(home, 'audit.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** settledAuditLines waits (up to 5 s) until audit.log has not grown for QUIET_MS, then returns its records. */
export async function settledAuditLines(home: string): Promise<Record<string, unknown>[]> {
  const file = path.join(home, 'audit.log');
  const deadline = Date.now() + DEADLINE_MS;
  let size = statSync(file).size;
  let quietSince = Date.now();
  while (Date.now() - quietSince < QUIET_MS) {
    if (Date.now() > deadline) assert.fail(`audit.log kept growing for ${DEADLINE_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const now = statSync(file).size;
    if (now !== size) {
      size = now;
      quietSince = Date.now();
    }
  }
  return auditLines(home);
}

/** auditLinesAfter waits (up to 5 s) until audit.log has at least count records after the first `before`, and returns them. */
export async function auditLinesAfter(home: string, before: number, count: number): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + DEADLINE_MS;
  while (auditLines(home).length < before + count) {
    if (Date.now() > deadline) assert.fail(`waited ${DEADLINE_MS} ms for ${count} audit lines after line ${before}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return auditLines(home).slice(before);
}
