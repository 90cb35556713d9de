import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { ensureHome } from '../../src/datadir/home.js';

/**
 * tempHome makes a fresh data directory (0700) inside a new temporary directory and removes it
 * when the test file finishes.
 */
export function tempHome(): string {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'latch-datadir-'));
  after(() => rmSync(parent, { recursive: true, force: true }));
  const home = path.join(parent, 'home');
  ensureHome(home);
  return home;
}

/** NOBODY_UID is the uid of `nobody`, used to make files owned by another user (tests run as root). */
export const NOBODY_UID = 65534;

/** runningAsRoot reports whether chown to another uid is possible in this test run. */
export function runningAsRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}
