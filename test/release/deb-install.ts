/**
 * The Debian package installed for real (shared/spec/release-kit.md §3, §5): `dpkg -i` as root,
 * the user and paths as stated, the owner's next step printed and no daemon started; enrollment
 * and the pin as postinst says, the daemon as the unit runs it, then `latch doctor` from the
 * owner's account is green; a reinstall after enrollment changes nothing; `dpkg -r` keeps the
 * data; `dpkg -P` leaves nothing.
 * Needs root and dpkg (CI has both) and a machine without a Latch of its own; skipped otherwise,
 * saying why. Whatever happens, the package is purged at the end. The system-wide `latch` user is
 * serialized with any other test that makes it through /tmp/latch-system-user.lock (flock).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { packageVersion } from '../../scripts/build-bundles.js';
import { packagedUnit } from '../../scripts/release/deb.js';
import { kitFiles } from '../../scripts/release/release-kit.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/create-sandbox.js';
import { account, createUser, removeUser, runProgramAs, type Account } from '../support/os-users.js';
import { JsonClient } from '../support/stack.js';
import type { BuiltKit } from './kit-fixture.js';

const LOCK_FILE = '/tmp/latch-system-user.lock';
const DATA_DIR = '/var/lib/latch';
const PIN = '/etc/latch/daemon.json';
const PASSPHRASE = 'a package-test passphrase';
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasDpkg = spawnSync('dpkg', ['--version'], { stdio: 'ignore' }).status === 0 && spawnSync('flock', ['--version'], { stdio: 'ignore' }).status === 0;
const SKIP = !isRoot ? 'needs root: it installs the package with dpkg -i and makes the system user latch (CI runs as root)' : !hasDpkg ? 'needs dpkg and flock' : false;
/** Where the package (and the setup after it) could leave something: each is listed before and after. */
const WATCHED = ['/etc', '/etc/systemd/system', '/etc/systemd/system/multi-user.target.wants', '/lib/systemd/system', '/usr/bin', '/usr/share/doc', '/usr/share/man/man1', '/usr/share/lintian/overrides', '/var/lib', '/var/lib/dpkg/info'];

const run = (program: string, args: string[]) => spawnSync(program, args, { encoding: 'utf8', timeout: 300_000 });
const userExists = (name: string) => spawnSync('getent', ['passwd', name]).status === 0;
const groupExists = (name: string) => spawnSync('getent', ['group', name]).status === 0;
const installed = () => /^Status: install ok installed$/m.test(run('dpkg', ['-s', 'latch']).stdout);

/** latchTraces lists every name with "latch" in it in the watched folders. */
function latchTraces(): string[] {
  return WATCHED.flatMap((dir) => (existsSync(dir) ? readdirSync(dir).filter((name) => name.includes('latch')).map((name) => path.join(dir, name)) : [])).sort();
}

/** holdLock takes the lock file with flock(1) in a child that holds it until its input closes. */
async function holdLock(): Promise<ChildProcess> {
  const holder = spawn('flock', [LOCK_FILE, 'sh', '-c', 'echo locked; exec cat >/dev/null'], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${LOCK_FILE} was not free within 15 minutes`)), 900_000);
    holder.stdout?.once('data', () => {
      clearTimeout(timer);
      resolve();
    });
    holder.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`flock ${LOCK_FILE} exited with ${code}`));
    });
  });
  return holder;
}

/** installTests registers the install tests, on the kit kit() returns once it is built. */
export function installTests(kit: () => BuiltKit | undefined): void {
  describe('the Debian package, installed, enrolled, removed and purged for real', { skip: SKIP }, () => {
    const deb = () => path.join(kit()?.first ?? '', kitFiles(packageVersion()).deb);
    let lock: ChildProcess | undefined;
    let blocked: string | undefined;
    let before_: string[] = [];
    let sandbox: Sandbox | undefined;
    let owner: Account | undefined;
    let daemon: ChildProcess | undefined;
    const ownerName = `latchpkg${process.pid}`;
    const guard = (t: TestContext) => {
      if (blocked !== undefined) t.skip(blocked);
      return blocked === undefined;
    };

    before(async () => {
      lock = await holdLock();
      if (userExists('latch') || groupExists('latch') || installed() || existsSync(DATA_DIR) || existsSync(PIN)) {
        blocked = 'this machine has a Latch of its own (the user latch, the package, /var/lib/latch or /etc/latch/daemon.json): the test leaves it alone';
      }
      before_ = latchTraces();
    }, { timeout: 960_000 });

    after(async () => {
      if (daemon !== undefined && daemon.exitCode === null) {
        const exited = new Promise((resolve) => daemon?.once('exit', resolve));
        daemon.kill('SIGTERM');
        await exited;
      }
      if (blocked === undefined && (installed() || run('dpkg', ['-s', 'latch']).status === 0)) run('dpkg', ['--purge', 'latch']);
      if (owner !== undefined) removeUser(owner.name);
      await sandbox?.close();
      lock?.stdin?.end();
    }, { timeout: 300_000 });

    test('dpkg -i installs the binary, the unit, the man page, the user latch and /var/lib/latch (0700), and prints the next step instead of starting a daemon', (t) => {
      if (!guard(t)) return;
      const done = run('dpkg', ['-i', deb()]);
      assert.equal(done.status, 0, done.stdout + done.stderr);
      assert.match(done.stdout, /not started: it is not enrolled yet/);
      assert.match(done.stdout, /sudo -u latch env LATCH_HOME=\/var\/lib\/latch latch setup --token/);
      assert.match(done.stdout, /sudo latch service install --system --force/);
      const passwd = run('getent', ['passwd', 'latch']).stdout.trim().split(':');
      assert.equal(passwd[5], DATA_DIR, 'home');
      assert.equal(passwd[6], '/usr/sbin/nologin', 'no login shell');
      assert.ok(Number(passwd[2]) < 1000, 'a system user');
      assert.ok(groupExists('latch'));
      const dir = lstatSync(DATA_DIR);
      assert.ok(dir.isDirectory());
      assert.equal(dir.mode & 0o777, 0o700);
      assert.equal(dir.uid, account('latch').uid);
      assert.equal(readFileSync('/lib/systemd/system/latch.service', 'utf8'), packagedUnit());
      assert.ok(existsSync('/usr/share/man/man1/latch.1.gz'));
      assert.equal(run('/usr/bin/latch', ['--version']).stdout.trim(), packageVersion());
      assert.equal(run('pgrep', ['-u', 'latch']).status, 1, 'no process runs as latch');
      assert.ok(!existsSync(PIN), 'postinst writes no pin');
    });

    test('installing it again changes nothing', (t) => {
      if (!guard(t)) return;
      const uid = account('latch').uid;
      const again = run('dpkg', ['-i', deb()]);
      assert.equal(again.status, 0, again.stdout + again.stderr);
      assert.equal(account('latch').uid, uid);
      assert.equal(lstatSync(DATA_DIR).mode & 0o777, 0o700);
    });

    test('enrolled as docs/separate-user.md says and started as the unit starts it, latch doctor from the owner\'s account is green', { timeout: 300_000 }, async (t) => {
      if (!guard(t)) return;
      sandbox = await createSandbox({ dataDir: path.join(kit()?.scratch ?? '', 'sandbox'), port: 0 });
      const admin = new JsonClient(sandbox.url, () => (sandbox as Sandbox).adminKey);
      const setup = await admin.post('/v1/sandbox/setup-tokens', {});
      assert.equal(setup.status, 201, setup.text);
      const service = account('latch');
      const env = { LATCH_HOME: DATA_DIR, HOME: DATA_DIR };
      const enrolled = await runProgramAs(service, ['/usr/bin/latch', 'setup', '--token', setup.body.setup_token, '--cloud', sandbox.url], env);
      assert.equal(enrolled.status, 0, enrolled.stderr);
      const passphrase = await runProgramAs(service, ['/usr/bin/latch', 'approvals', 'passphrase', 'set', '--passphrase-stdin'], env, `${PASSPHRASE}\n`);
      assert.equal(passphrase.status, 0, passphrase.stderr);
      // The owner pins the daemon as postinst says, through sudo (SUDO_USER names the owner).
      owner = createUser(ownerName);
      const pinned = spawnSync('/usr/bin/latch', ['service', 'install', '--system', '--force'], { encoding: 'utf8', timeout: 120_000, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', SUDO_USER: owner.name } });
      assert.equal(pinned.status, 0, pinned.stdout + pinned.stderr);
      assert.ok(existsSync(PIN), 'root\'s pin is written');
      daemon = await startDaemon();
      const home = path.join(kit()?.scratch ?? '', 'owner-home');
      mkdirSync(home, { mode: 0o700 });
      chownSync(home, owner.uid, owner.gid);
      const doctor = await runProgramAs(owner, ['/usr/bin/latch', 'doctor', '--passphrase-stdin'], { HOME: home }, `${PASSPHRASE}\n`);
      assert.equal(doctor.status, 0, doctor.stdout + doctor.stderr);
      assert.match(doctor.stdout, /separate-user setup/);
      assert.match(doctor.stdout, /proved the pinned key/);
      assert.match(doctor.stdout, /belongs to latch/);
    });

    test('after enrollment, installing again (an upgrade over itself) keeps the key, the data and the pin', (t) => {
      if (!guard(t)) return;
      // The running daemon may add files of its own meanwhile; none may go, and the key stays.
      const files = readdirSync(DATA_DIR).sort();
      const kept = ['config.json', 'device.key'].map((name) => ({ name, bytes: readFileSync(path.join(DATA_DIR, name)) }));
      const pin = readFileSync(PIN);
      const again = run('dpkg', ['-i', deb()]);
      assert.equal(again.status, 0, again.stdout + again.stderr);
      assert.doesNotMatch(again.stdout, /not enrolled yet/);
      const after_ = readdirSync(DATA_DIR);
      assert.deepEqual(files.filter((name) => !after_.includes(name)), [], 'no file of the daemon\'s is gone');
      for (const { name, bytes } of kept) assert.ok(readFileSync(path.join(DATA_DIR, name)).equals(bytes), `${name} is unchanged`);
      assert.ok(readFileSync(PIN).equals(pin));
      assert.equal(lstatSync(DATA_DIR).mode & 0o777, 0o700);
    });

    test('dpkg -r removes the program and keeps /var/lib/latch and the user', async (t) => {
      if (!guard(t)) return;
      await stopDaemon();
      const removed = run('dpkg', ['-r', 'latch']);
      assert.equal(removed.status, 0, removed.stdout + removed.stderr);
      assert.ok(!existsSync('/usr/bin/latch'));
      assert.ok(!existsSync('/lib/systemd/system/latch.service'));
      assert.ok(existsSync(path.join(DATA_DIR, 'config.json')), 'the owner\'s data stays');
      assert.ok(userExists('latch'));
    });

    test('dpkg -P says what it removes, then removes the user, the pin and the data: nothing of Latch is left', (t) => {
      if (!guard(t)) return;
      const purged = run('dpkg', ['-P', 'latch']);
      assert.equal(purged.status, 0, purged.stdout + purged.stderr);
      assert.match(purged.stdout, /purge removes \/var\/lib\/latch .*\/etc\/latch\/daemon\.json, .* and the user latch/);
      assert.ok(!existsSync('/etc/systemd/system/latch.service'), 'the unit copy the setup wrote is gone');
      assert.ok(!userExists('latch') && !groupExists('latch'));
      assert.ok(!existsSync(DATA_DIR) && !existsSync(PIN) && !existsSync('/etc/latch'));
      assert.ok(!installed() && run('dpkg', ['-s', 'latch']).status !== 0, 'dpkg no longer knows the package');
      assert.deepEqual(latchTraces(), before_);
    });

    /** startDaemon starts the daemon as the unit does: /usr/bin/latch daemon, as root, --user latch. */
    async function startDaemon(): Promise<ChildProcess> {
      const child = spawn('/usr/bin/latch', ['daemon', '--user', 'latch', '--port-a', '0', '--port-b', '0'], { env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', LATCH_HOME: DATA_DIR }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      await new Promise<void>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(() => reject(new Error(`the packaged daemon did not listen within 60 s: ${stderr.slice(-2000)}`)), 60_000);
        child.stdout?.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('daemon_listening')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`the packaged daemon exited with ${code}: ${stderr.slice(-2000)}`));
        });
      });
      return child;
    }

    async function stopDaemon(): Promise<void> {
      const running = daemon;
      if (running === undefined || running.exitCode !== null) return;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the packaged daemon did not stop within 30 s of SIGTERM')), 30_000);
        running.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        running.kill('SIGTERM');
      });
    }
  });
}
