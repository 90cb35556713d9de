/**
 * Real OS users for the separate-user tests: made with useradd when the tests run as root (CI
 * does), removed after; elsewhere the tests are skipped with the reason. runAs runs the latch CLI
 * (or any program) as one of them without blocking this process, so an in-process sandbox cloud
 * keeps answering meanwhile.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

/** The latch CLI of this checkout. */
export const LATCH = path.join(REPO_ROOT, 'bin', 'latch.js');

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasUseradd = spawnSync('sh', ['-c', 'command -v useradd && command -v userdel'], { stdio: 'ignore' }).status === 0;
/** Why the real-user tests cannot run here, or false when they can. */
export const REAL_USERS_SKIP: string | false = !isRoot ? 'needs root to create users and drop privileges (CI runs as root)' : !hasUseradd ? 'needs useradd and userdel' : false;

/** An account's ids. */
export interface Account {
  name: string;
  uid: number;
  gid: number;
}

/** account looks an existing user up. */
export function account(name: string): Account {
  const line = spawnSync('getent', ['passwd', name], { encoding: 'utf8' }).stdout.trim().split(':');
  return { name, uid: Number(line[2]), gid: Number(line[3]) };
}

/** createUser makes a user with its own group, no home made and no login shell. */
export function createUser(name: string): Account {
  const made = spawnSync('useradd', ['--no-create-home', '--user-group', '--shell', '/usr/sbin/nologin', name], { encoding: 'utf8' });
  assert.equal(made.status, 0, `useradd ${name}: ${made.stderr}`);
  return account(name);
}

/** removeUser deletes a user made by createUser (quietly: cleanup must not fail a test). */
export function removeUser(name: string): void {
  spawnSync('userdel', [name], { stdio: 'ignore' });
}

/** What a finished process left. */
export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * runProgramAs runs argv as an account, with input on standard input, and a clean environment
 * (PATH, and NODE_V8_COVERAGE emptied: under c8 another user could not write the coverage folder).
 */
export function runProgramAs(who: Account, argv: string[], env: Record<string, string>, input = ''): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), { uid: who.uid, gid: who.gid, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', NODE_V8_COVERAGE: '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${argv.join(' ')} as ${who.name} did not finish within 120 s: ${stderr}`));
    }, 120_000);
    child.once('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    // A program that never reads its input (sh -c, cat FILE) may exit before it is written.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

/** runAs runs the latch CLI as an account. */
export function runAs(who: Account, args: string[], env: Record<string, string>, input = ''): Promise<Ran> {
  return runProgramAs(who, [process.execPath, LATCH, ...args], env, input);
}
