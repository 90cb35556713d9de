/**
 * Every temporary Latch writes in the data directory is one the cleaner removes once abandoned
 * (docs/decisions.md §27.4; issue 34 item 5). The list is not written by hand: the modules that
 * write by a temporary are found in src/ (every call of writeFileAtomic or createExclusive, and
 * every name built with `.tmp` or `.stale`), each of them is walked for real against a data
 * directory served by a running daemon (or said to write outside it), and the names the cleaner
 * must know are what that walk left on disk and every temporary a watcher saw appear meanwhile.
 */
import assert from 'node:assert/strict';
import { existsSync, lstatSync, readdirSync, readFileSync, utimesSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runLatch, startStack, type Stack } from '../support/stack.js';
import { REPO_ROOT } from '../support/paths.js';
import { addAgent, ensureAgentsDir, rotateAgent } from '../../src/datadir/agents.js';
import { setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { generateDeviceKey } from '../../src/signer/device-key.js';
import { rotateMandateKey } from '../../src/signer/mandate-key.js';
import { AGENTS_DIR, DATA_FILES, removeDataDirTemporaries, SANDBOX_NOTE } from '../../src/datadir/home.js';
import { stageDeviceKey } from '../../src/signer/key-rollover.js';
import { writePasskeys } from '../../src/datadir/passkeys.js';
import { pauseSigning } from '../../src/datadir/pause.js';
import { rotateToken, readToken } from '../../src/datadir/token.js';
import { STALE_TEMPORARY_AGE_MS } from '../../src/datadir/stale-temporaries.js';
import { ensureIdentityKey, rotateIdentityKey } from '../../src/identity/identity-keys.js';
import { writeLoginPage } from '../../src/cli/login-page.js';
import { writePinnedKey } from '../../src/client/pinned-key.js';
import { compactionTemporaryPath } from '../../src/store/journal-files.js';

const TEMPORARY = /^\.(.+)\.[0-9a-f]{16}\.(?:tmp|stale)$/;

/** temporaryWriters lists the src modules that write a file by a temporary beside it. */
function temporaryWriters(): string[] {
  const found: string[] = [];
  const walk = (directory: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const file = path.join(directory, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name.endsWith('.ts') && /\b(?:writeFileAtomic|createExclusive)\(|\.(?:tmp|stale)`/.test(readFileSync(file, 'utf8'))) found.push(path.relative(REPO_ROOT, file));
    }
  };
  walk(path.join(REPO_ROOT, 'src'));
  // The writer itself and the cleaner, which only names the pattern.
  return found.filter((file) => file !== 'src/datadir/atomic-file.ts' && file !== 'src/datadir/stale-temporaries.ts').sort();
}

interface Walk {
  stack: Stack;
  home: string;
  /** Names of files the walk knows are written though they may be gone again by the end. */
  named: Set<string>;
}

/** How each writer is walked; a string says why it writes nothing into the data directory. */
const WALKS: Record<string, ((walk: Walk) => Promise<void> | void) | string> = {
  'src/cli/commands/agent.ts': 'writes agents/NAME.token (walked by src/datadir/agents.ts) or the --token-file the owner names, outside the data directory',
  'src/cli/commands/ap2-key.ts': 'writes only the --out file the owner names (the mandate key\'s public JWK)',
  'src/cli/commands/identity.ts': 'writes only the --out file the owner names',
  'src/cli/commands/service.ts': 'writes the service unit into the user\'s systemd or launchd folder',
  'src/cli/commands/service-system.ts': 'writes the system unit under /etc or /Library',
  'src/cli/commands/start.ts': ({ named }) => {
    // latch start writes its note of the sandbox under this name (its own end-to-end test runs it).
    assert.match(readFileSync(path.join(REPO_ROOT, 'src/cli/commands/start.ts'), 'utf8'), /writeFileAtomic\(path\.join\(home, SANDBOX_NOTE\)/);
    named.add(SANDBOX_NOTE);
  },
  'src/cli/commands/policy-file.ts': async ({ stack, home }) => {
    assert.equal((await runLatch(['policy', 'init'], { LATCH_HOME: home })).code, 0);
    assert.equal((await runLatch(['policy', 'remove'], { LATCH_HOME: home })).code, 0);
    void stack;
  },
  'src/cli/login-page.ts': ({ home }) => void writeLoginPage(home, `http://localhost:1/login#${'A'.repeat(43)}`),
  'src/client/pinned-key.ts': ({ home }) => void writePinnedKey(home, generateDeviceKey().publicKey),
  'src/daemon/owner-binding.ts': async ({ stack }) => {
    const answer = await fetch(`http://127.0.0.1:${stack.portA}/policy`, { method: 'PUT', headers: { authorization: `Bearer ${stack.token()}`, 'content-type': 'application/json' }, body: '{"v":1,"default":"allow"}' });
    assert.equal(answer.status, 200, await answer.text());
  },
  'src/datadir/agents.ts': ({ home }) => {
    addAgent(home, 'shopper');
    rotateAgent(home, 'shopper');
  },
  'src/signer/mandate-key.ts': ({ home }) => void rotateMandateKey(home, undefined, Math.floor(Date.now() / 1000)),
  'src/signer/identity-key-file.ts': ({ home }) => {
    ensureIdentityKey(home, 'owner');
    rotateIdentityKey(home, 'owner');
    ensureIdentityKey(home, 'shopper');
    rotateIdentityKey(home, 'shopper');
  },
  'src/datadir/approval-passphrase.ts': ({ home }) => void setApprovalPassphrase(home, 'written temporaries passphrase'),
  'src/datadir/audit-head.ts': async ({ stack }) => void (await stack.a.post('/pause', {})),
  'src/datadir/audit-lock.ts': async ({ stack }) => void (await stack.a.post('/resume', {})),
  'src/datadir/config.ts': 'walked by latch setup when the stack starts (config.json stays)',
  'src/datadir/daemon-lock.ts': 'walked by the running daemon (daemon.lock stays while it serves)',
  // latch setup wrote device.key when the stack started; a staged key is the other file it writes.
  'src/signer/device-key.ts': ({ home }) => void stageDeviceKey(home, generateDeviceKey(), undefined),
  'src/datadir/listen-file.ts': 'walked by the running daemon (listen.json stays while it serves)',
  'src/datadir/passkeys.ts': ({ home }) => void writePasskeys(home, []),
  'src/datadir/pause.ts': ({ home }) => void pauseSigning(home, 'walking the writers'),
  'src/datadir/token.ts': ({ home }) => void rotateToken(home),
  'src/store/journal-files.ts': ({ home, named }) => {
    // The compaction names its temporary with this function, beside the journal the daemon keeps.
    const match = TEMPORARY.exec(path.basename(compactionTemporaryPath(path.join(home, DATA_FILES.stateJournal))));
    named.add(match?.[1] as string);
  },
};

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack?.close());

test('every module that writes by a temporary is walked below (a new writer fails here until it is)', () => {
  assert.deepEqual(temporaryWriters(), Object.keys(WALKS).sort());
});

test('the temporary of every file the writers wrote, in the data directory and in agents/, is removed once abandoned', async () => {
  const home = stack.home;
  ensureAgentsDir(home);
  const seen: Array<{ folder: string; name: string }> = [];
  const watchers: FSWatcher[] = [];
  for (const folder of ['', AGENTS_DIR]) {
    watchers.push(watch(path.join(home, folder), (_event, name) => name !== null && seen.push({ folder, name: String(name) })));
  }
  const walk: Walk = { stack, home, named: new Set() };
  try {
    for (const [writer, how] of Object.entries(WALKS)) {
      if (typeof how === 'function') await how(walk);
      else assert.ok(how.length > 0, writer);
    }
    // Let the watchers report what the last writes did.
    await new Promise((resolve) => setTimeout(resolve, 200));
  } finally {
    for (const watcher of watchers) watcher.close();
  }
  // What the cleaner must know, derived: the targets of every temporary seen, every file left.
  const targets = new Set<string>();
  for (const { folder, name } of seen) {
    const target = TEMPORARY.exec(name)?.[1];
    if (target !== undefined) targets.add(path.join(folder, target));
  }
  for (const folder of ['', AGENTS_DIR]) {
    for (const name of readdirSync(path.join(home, folder))) if (lstatSync(path.join(home, folder, name)).isFile() && !TEMPORARY.test(name)) targets.add(path.join(folder, name));
  }
  for (const name of walk.named) targets.add(name);
  // The walk reached the kinds the issue named, so the derivation is not vacuous.
  for (const expected of ['agents/shopper.identity', 'agents/owner.identity', 'agents/shopper.token', 'daemon_token', 'approval_passphrase', 'audit.head']) assert.ok(targets.has(expected), `${expected} among ${[...targets].join(', ')}`);

  const old = new Date(Date.now() - 2 * STALE_TEMPORARY_AGE_MS);
  const planted: string[] = [];
  for (const target of targets) {
    for (const suffix of ['0123456789abcdef.tmp', 'fedcba9876543210.stale']) {
      const file = path.join(home, path.dirname(target), `.${path.basename(target)}.${suffix}`);
      writeFileSync(file, 'abandoned', { mode: 0o600 });
      utimesSync(file, old, old);
      planted.push(file);
    }
  }
  removeDataDirTemporaries(home);
  const left = planted.filter((file) => existsSync(file)).map((file) => path.relative(home, file));
  assert.deepEqual(left, [], 'the cleaner left temporaries of files Latch writes');
  assert.ok(readToken(home).length > 0);
});
