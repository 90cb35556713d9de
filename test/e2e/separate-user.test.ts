/**
 * The separate-user setup (owner-presence §5) with real OS users made by useradd: the daemon,
 * started as root with --user, runs as the service user (uid, gid, no supplementary groups);
 * another user can read no file in the data directory; the owner's account, holding only a pinned
 * key, creates an agent through the API with a session, and the agent works. These tests need
 * root (CI runs as root); elsewhere they are skipped, saying why.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { randomBytes } from 'node:crypto';
import { createSandbox, type Sandbox } from '../../src/sandbox/create-sandbox.js';
import { createUser, LATCH, REAL_USERS_SKIP, removeUser, runAs, type Account } from '../support/os-users.js';
import { JsonClient } from '../support/stack.js';

const PASSPHRASE = 'separate users, one owner';
const suffix = randomBytes(3).toString('hex');
const SERVICE = `latchsvc${suffix}`;
const OWNER = `latchown${suffix}`;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? [full, ...filesUnder(full)] : [full];
  });
}

describe('the separate-user setup with real users', { skip: REAL_USERS_SKIP }, () => {
  let root: string;
  let home: string;
  let ownerHome: string;
  let sandbox: Sandbox;
  let daemon: ChildProcess | undefined;
  let daemonPid = 0;
  let portA = 0;
  let service: Account;
  let owner: Account;

  before(async () => {
    service = createUser(SERVICE);
    owner = createUser(OWNER);
    root = mkdtempSync(path.join(tmpdir(), 'latch-users-'));
    // Others may pass through to their own directories, and see nothing else.
    chmodSync(root, 0o711);
    home = path.join(root, 'service-home');
    ownerHome = path.join(root, 'owner-home');
    mkdirSync(ownerHome, { mode: 0o700 });
    chownSync(ownerHome, owner.uid, owner.gid);

    sandbox = await createSandbox({ dataDir: path.join(root, 'sandbox'), port: 0 });
    const admin = new JsonClient(sandbox.url, () => sandbox.adminKey);
    const setup = await admin.post('/v1/sandbox/setup-tokens', {});
    assert.equal(setup.status, 201, setup.text);
    const card = await admin.post('/v1/sandbox/cards', { account_id: setup.body.account_id, label: 'Groceries', balance: '100.00', daily_limit: '500.00' });
    assert.equal(card.status, 201, card.text);

    // The data directory is made by --user (below) only when missing; setup runs first, as the
    // service user, in a directory root made for it exactly as --user would.
    mkdirSync(home, { mode: 0o700 });
    chownSync(home, service.uid, service.gid);
    const env = { LATCH_HOME: home, HOME: home };
    const enrolled = await runAs(service, ['setup', '--token', setup.body.setup_token, '--cloud', sandbox.url], env);
    assert.equal(enrolled.status, 0, enrolled.stderr);
    const passphrase = await runAs(service, ['approvals', 'passphrase', 'set', '--passphrase-stdin'], env, `${PASSPHRASE}\n`);
    assert.equal(passphrase.status, 0, passphrase.stderr);

    // The daemon starts with a supplementary group (the owner's), as root often has some: the
    // drop must take it away.
    const groups = process.getgroups?.() ?? [];
    process.setgroups?.([owner.gid]);
    try {
      // Root's pin goes to a root-owned directory of this test, never /etc/latch (docs/decisions.md §30).
      daemon = spawn(process.execPath, [LATCH, 'daemon', '--user', SERVICE, '--port-a', '0', '--port-b', '0'], { env: { PATH: process.env['PATH'] ?? '', LATCH_HOME: home, LATCH_SYSTEM_PIN: path.join(root, 'etc-latch', 'daemon.json'), NODE_V8_COVERAGE: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    } finally {
      process.setgroups?.(groups);
    }
    let stderr = '';
    daemon.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const listening = await new Promise<{ pid: number; port_a: number }>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`the daemon did not listen within 60 s: ${stderr.slice(-2000)}`)), 60_000);
      daemon?.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split('\n').find((text) => text.includes('daemon_listening'));
        if (line !== undefined) {
          clearTimeout(timer);
          resolve(JSON.parse(line) as { pid: number; port_a: number });
        }
      });
      daemon?.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the daemon exited with ${code}: ${stderr.slice(-2000)}`));
      });
    });
    daemonPid = listening.pid;
    portA = listening.port_a;
  });

  after(async () => {
    if (daemon !== undefined && daemon.exitCode === null) {
      const exited = new Promise((resolve) => daemon?.once('exit', resolve));
      daemon.kill('SIGTERM');
      await exited;
    }
    await sandbox?.close();
    for (const name of [SERVICE, OWNER]) removeUser(name);
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });

  test("the daemon's process runs as the service user: uid, gid, and no supplementary groups", () => {
    const status = readFileSync(`/proc/${daemonPid}/status`, 'utf8');
    const field = (name: string) => (status.split('\n').find((line) => line.startsWith(`${name}:`)) ?? '').split(/\s+/).slice(1).filter((word) => word !== '');
    assert.deepEqual(field('Uid'), [String(service.uid), String(service.uid), String(service.uid), String(service.uid)]);
    assert.deepEqual(field('Gid'), [String(service.gid), String(service.gid), String(service.gid), String(service.gid)]);
    assert.deepEqual(field('Groups'), [], 'no supplementary group (it started with the owner\'s)');
  });

  test('another user can read no file in the data directory, and none is readable by group or others', () => {
    const files = filesUnder(home);
    assert.ok(files.some((file) => file.endsWith('daemon_token')) && files.some((file) => file.endsWith('device.key')) && files.some((file) => file.endsWith('state.journal')), files.join());
    for (const file of [home, ...files]) {
      const stats = statSync(file);
      assert.equal(stats.uid, service.uid, `${file} belongs to the service user`);
      assert.equal(stats.mode & 0o077, 0, `${file} has no group or other permission bits`);
      if (stats.isFile()) {
        const read = spawnSync('cat', [file], { uid: owner.uid, gid: owner.gid, encoding: 'utf8' });
        assert.notEqual(read.status, 0, `${OWNER} read ${file}`);
        assert.match(read.stderr, /Permission denied/);
      }
    }
  });

  test('the owner account, holding only a pinned key, creates an agent through the API with a session; the agent works', async () => {
    // What latch service install --system pins for the owner: the enrolled key id.
    const keyId = (JSON.parse(readFileSync(path.join(home, 'config.json'), 'utf8')) as { key_id: string }).key_id;
    const pinDir = ownerHome;
    const pinned = spawnSync('sh', ['-c', `umask 077 && printf '%s\\n' '${JSON.stringify({ v: 1, key_id: keyId })}' > ${pinDir}/daemon_key.pub`], { uid: owner.uid, gid: owner.gid });
    assert.equal(pinned.status, 0);
    const env = { LATCH_HOME: ownerHome, HOME: ownerHome, LATCH_URL: `http://127.0.0.1:${portA}` };
    // The token goes to the file the owner names (docs/decisions.md §30), here where --agent reads it.
    const agentsDir = spawnSync('sh', ['-c', `umask 077 && mkdir ${ownerHome}/agents`], { uid: owner.uid, gid: owner.gid });
    assert.equal(agentsDir.status, 0);
    const tokenFile = path.join(ownerHome, 'agents', 'helper.token');
    const added = await runAs(owner, ['agent', 'add', 'helper', '--token-file', tokenFile, '--passphrase-stdin'], env, `${PASSPHRASE}\n`);
    assert.equal(added.status, 0, added.stderr + added.stdout);
    assert.ok(existsSync(tokenFile));
    assert.equal(statSync(tokenFile).uid, owner.uid);
    assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
    const cards = await runAs(owner, ['cards', '--agent', 'helper', '--json'], env);
    assert.equal(cards.status, 0, cards.stderr);
    assert.match(cards.stdout, /Groceries/);
    // The agent was made by the daemon, as the service user, in the data directory.
    assert.equal(statSync(path.join(home, 'agents', 'helper.token')).uid, service.uid);
    // The brake through the API: pause and resume from the owner account.
    const paused = await runAs(owner, ['pause', '--reason', 'away', '--passphrase-stdin'], env, `${PASSPHRASE}\n`);
    assert.equal(paused.status, 0, paused.stderr + paused.stdout);
    assert.ok(existsSync(path.join(home, 'paused')), 'the daemon pulled its own brake');
    const resumed = await runAs(owner, ['resume', '--passphrase-stdin'], env, `${PASSPHRASE}\n`);
    assert.equal(resumed.status, 0, resumed.stderr + resumed.stdout);
    assert.match(resumed.stdout, /Signing resumed/);
    // Every owner read too, with one session from the passphrase (docs/decisions.md §30.4).
    const approvals = await runAs(owner, ['approvals', '--json', '--passphrase-stdin'], env, `${PASSPHRASE}\n`);
    assert.equal(approvals.status, 0, approvals.stderr + approvals.stdout);
    assert.deepEqual((JSON.parse(approvals.stdout) as { approvals: unknown[] }).approvals, []);
    assert.ok(!existsSync(path.join(home, 'paused')));
    // With no passphrase, the owner account has nothing to call with: no token, no session.
    const refused = await runAs(owner, ['agent', 'add', 'another', '--passphrase-stdin'], env, 'not the passphrase\n');
    assert.notEqual(refused.status, 0);
    assert.ok(!existsSync(path.join(home, 'agents', 'another.token')) || statSync(path.join(home, 'agents')).uid === service.uid);
  });

  test('--user as a non-root user is refused before anything is read', async () => {
    const refused = await runAs(owner, ['daemon', '--user', SERVICE, '--port-a', '0', '--port-b', '0'], { LATCH_HOME: home, HOME: ownerHome });
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(refused.stderr, /needs root/);
  });
});

describe('latch service install --system --dry-run', { skip: process.platform !== 'linux' ? 'the systemd unit is Linux' : false }, () => {
  test('prints the user, the hardened unit and every step, and changes nothing', () => {
    const before = existsSync('/etc/systemd/system/latch.service');
    // --program: the unit runs an installed latch, so this passes wherever the checkout is (a clone
    // under /tmp, which the unit's PrivateTmp=yes would hide, included: issue 44 item 7).
    const result = spawnSync(process.execPath, [LATCH, 'service', 'install', '--system', '--user', `latchdry${suffix}`, '--dry-run', '--program', process.execPath], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
    assert.equal(result.status, 0, result.stderr);
    // Where PID 1 is systemd it says to start it with systemctl; elsewhere what to do instead (issue 44 item 6).
    const systemdRuns = existsSync('/run/systemd/system');
    const start = systemdRuns ? 'then: Start it now and at every boot with:' : 'then: PID 1 here is not systemd';
    const passphraseCredential = '#LoadCredential=latch-key-passphrase:/etc/latch/key-passphrase';
    for (const expected of [`useradd --system --user-group --home-dir /var/lib/latch --no-create-home --shell /usr/sbin/nologin latchdry${suffix}`, `User=latchdry${suffix}`, 'UMask=0077', 'NoNewPrivileges=yes', 'ProtectHome=yes', 'ProtectSystem=strict', 'ReadWritePaths=/var/lib/latch', 'PrivateTmp=yes', 'Environment=LATCH_HOME=/var/lib/latch', `ExecStart=${process.execPath} daemon`, passphraseCredential, start, 'Dry run: nothing was changed.']) {
      assert.ok(result.stdout.includes(expected), `${expected} in:\n${result.stdout}`);
    }
    assert.equal(existsSync('/etc/systemd/system/latch.service'), before, 'no unit was written');
    if (!systemdRuns) assert.match(result.stdout, new RegExp(`latch daemon --user latchdry${suffix}`), 'what to run instead');
    assert.doesNotMatch(result.stdout, /LATCH_KEY_PASSPHRASE/, 'no secret in the unit\'s environment');
    assert.equal(spawnSync('getent', ['passwd', `latchdry${suffix}`]).status, 2, 'no user was created');
  });
});
