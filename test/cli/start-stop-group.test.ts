/**
 * `npm start` as people run it (issue 44 item 9, docs/decisions.md §39.5): npm, its shell, tsx and
 * the node process that serves, in one process group. SIGTERM to the group while two requests
 * wait on approvals (`Prefer: wait=30`): both are answered 202 at once, and every process of the
 * group has exited within the documented stop deadline (the daemon's and the sandbox's stop, then
 * the processes' own exit). The sandbox runs on its own thread (latch_started says so).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { DEFAULT_CLOSE_DEADLINE_MS } from '../../src/daemon/create-daemon.js';
import { addAgent, readAgentToken } from '../../src/datadir/agents.js';
import { readToken } from '../../src/datadir/token.js';
import { REPO_ROOT } from '../support/paths.js';
import { waitUntil } from '../support/wait.js';

const root = mkdtempSync(path.join(tmpdir(), 'latch-start-group-'));
chmodSync(root, 0o700);
let group: number | undefined;
after(() => {
  if (group !== undefined && groupMembers(group).length > 0) process.kill(-group, 'SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** The whole stop, as docs/cli.md and `latch start --help` state it: the daemon's deadline, then the processes' own exit. */
const GROUP_STOP_DEADLINE_MS = DEFAULT_CLOSE_DEADLINE_MS + 2_000;

/**
 * groupMembers lists the processes of a group that have not exited, from /proc: a zombie (state Z)
 * has exited and only waits for its new parent to collect it (pid 1 here may be slow to), so it
 * does not count.
 */
function groupMembers(pgid: number): string[] {
  const members: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after its last ')'.
    const close = stat.lastIndexOf(')');
    const [state, , pgrp] = stat.slice(close + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') members.push(`${entry} ${stat.slice(stat.indexOf('(') + 1, close)} (${state})`);
  }
  return members;
}

test('npm start: SIGTERM to its process group with two requests waiting on approvals answers both 202 and every process exits within the stop deadline', async () => {
  const home = path.join(root, 'home');
  const npm = spawn('npm', ['start', '--', '--json', '--port-a', '0', '--port-b', '0', '--sandbox-port', '0', '--no-console'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', LATCH_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  group = npm.pid as number;
  let stderr = '';
  npm.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const started = await new Promise<{ port_a: number; sandbox_thread?: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not print latch_started within 90 s: ${stderr}`)), 90_000);
    createInterface({ input: npm.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const parsed = JSON.parse(line) as { event?: string; port_a: number };
      if (parsed.event !== 'latch_started') return;
      clearTimeout(timer);
      resolve(parsed);
    });
  });
  assert.equal(started.sandbox_thread, 'worker', 'the sandbox runs on its own thread');
  writeFileSync(path.join(home, 'policy.json'), JSON.stringify({ v: 1, default: 'allow', rules: [{ id: 'large', min_amount: '5.00', decision: 'ask' }] }), { mode: 0o600 });
  addAgent(home, 'shopper');
  const base = `http://127.0.0.1:${started.port_a}`;
  const owner = { authorization: `Bearer ${readToken(home)}` };
  const cards = (await (await fetch(`${base}/cards`, { headers: owner })).json()) as { cards: Array<{ card_id: string }> };
  const ask = (i: number) =>
    fetch(`${base}/authorize`, {
      method: 'POST',
      headers: { authorization: `Bearer ${readAgentToken(home, 'shopper')}`, 'content-type': 'application/json', 'idempotency-key': `group-stop-${i}`, prefer: 'wait=30' },
      body: JSON.stringify({ card_id: cards.cards[0]?.card_id, amount: '6.00', merchant_name: 'big.example.com' }),
    });
  const answers = [ask(1), ask(2)];
  await waitUntil(async () => ((await (await fetch(`${base}/approvals?status=pending_approval`, { headers: owner })).json()) as { approvals: unknown[] }).approvals.length === 2, 'two approvals were pending');
  const stoppedAt = Date.now();
  process.kill(-group, 'SIGTERM');
  const statuses = await Promise.all(answers.map(async (answer) => (await answer).status));
  assert.deepEqual(statuses, [202, 202]);
  const left = Math.max(0, GROUP_STOP_DEADLINE_MS - (Date.now() - stoppedAt));
  await waitUntil(() => groupMembers(group as number).length === 0, `every process of npm start's group exited within ${GROUP_STOP_DEADLINE_MS} ms of SIGTERM (still running: ${groupMembers(group).join(', ')})`, left, 20).catch((error: Error) => {
    throw new Error(`${error.message}; now still running: ${groupMembers(group as number).join(', ')}`);
  });
});
