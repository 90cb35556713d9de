import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../../src/cli/main.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { serviceKindFor, underPrivateTmp } from '../../src/cli/commands/service.js';
import { currentLatchCommand } from '../../src/service/latch-command.js';
import { launchdPlist, launchdPlistPath, systemdUnit, systemdUnitPath, systemdWord } from '../../src/service/service-files.js';
import { spawnSync } from 'node:child_process';
import { captureIo } from '../cli/cli-io.js';
import { commandUnderPrivateTmp } from '../../src/cli/commands/service-private-tmp.js';
import { REPO_ROOT } from '../support/paths.js';

const SPEC = { command: { program: '/usr/local/bin/latch', args: [] }, home: '/home/ann/.latch' };

test('the systemd unit runs `latch daemon` as the user with LATCH_HOME, restarts on failure, and is confined', () => {
  const unit = systemdUnit(SPEC);
  const lines = unit.split('\n');
  for (const expected of [
    '[Unit]',
    '[Service]',
    'Type=simple',
    'Environment=LATCH_HOME=/home/ann/.latch',
    'ExecStart=/usr/local/bin/latch daemon',
    'Restart=on-failure',
    'UMask=0077',
    'NoNewPrivileges=yes',
    'ProtectSystem=strict',
    'ReadWritePaths=/home/ann/.latch',
    '[Install]',
    'WantedBy=default.target',
  ]) {
    assert.ok(lines.includes(expected), `missing line: ${expected}`);
  }
  // A user unit: no User= (it runs as the user who enabled it), and no secret in it.
  assert.equal(lines.some((line) => line.startsWith('User=')), false);
  assert.equal(/PASSPHRASE|TOKEN/i.test(unit), false);
});

test('unit words with spaces, quotes and % are quoted per systemd.syntax; line breaks are refused', () => {
  assert.equal(systemdWord('/opt/latch/bin/latch'), '/opt/latch/bin/latch');
  assert.equal(systemdWord('/home/ann/My Files/.latch'), '"/home/ann/My Files/.latch"');
  assert.equal(systemdWord('/a/100%/b'), '/a/100%%/b');
  assert.equal(systemdWord('/a/"q"\\b'), '"/a/\\"q\\"\\\\b"');
  assert.throws(() => systemdWord('/a\nExecStartPre=/bin/evil'));
  const unit = systemdUnit({ command: { program: '/usr/bin/node', args: ['--import', 'file:///opt/tsx loader.mjs', '/opt/latch/src/cli/main.ts'] }, home: '/home/ann/My Files/.latch' });
  assert.ok(unit.includes('ExecStart=/usr/bin/node --import "file:///opt/tsx loader.mjs" /opt/latch/src/cli/main.ts daemon\n'));
  assert.ok(unit.includes('Environment="LATCH_HOME=/home/ann/My Files/.latch"\n'));
});

test('the launchd agent has the label, arguments, LATCH_HOME, RunAtLoad and a crash restart, XML-escaped', () => {
  const plist = launchdPlist({ command: { program: '/Applications/Latch & Co/latch', args: [] }, home: '/Users/ann/<l>' });
  assert.ok(plist.includes('<string>dev.latch.daemon</string>'));
  assert.ok(plist.includes('    <string>/Applications/Latch &amp; Co/latch</string>\n    <string>daemon</string>'));
  assert.ok(plist.includes('<key>LATCH_HOME</key>\n    <string>/Users/ann/&lt;l&gt;</string>'));
  assert.ok(plist.includes('<key>RunAtLoad</key>\n  <true/>'));
  assert.ok(plist.includes('<key>SuccessfulExit</key>\n    <false/>'));
  assert.equal(launchdPlistPath('/Users/ann'), '/Users/ann/Library/LaunchAgents/dev.latch.daemon.plist');
});

/** The variables that load code into node or change what TLS trusts (SECURITY.md: a hostile environment at start). */
const HOSTILE = ['NODE_OPTIONS', 'NODE_PATH', 'NODE_EXTRA_CA_CERTS', 'NODE_TLS_REJECT_UNAUTHORIZED'];

/** plistEnvironment reads the EnvironmentVariables dictionary of a launchd property list. */
function plistEnvironment(plist: string): Map<string, string> {
  const dict = /<key>EnvironmentVariables<\/key>\s*<dict>([\s\S]*?)<\/dict>/.exec(plist)?.[1] ?? '';
  return new Map([...dict.matchAll(/<key>([^<]*)<\/key>\s*<string>([^<]*)<\/string>/g)].map((match) => [match[1] as string, match[2] as string]));
}

test('the systemd unit and the launchd agent clear NODE_OPTIONS, NODE_PATH and the TLS trust variables', () => {
  const lines = systemdUnit(SPEC).split('\n');
  const unset = lines.find((line) => line.startsWith('UnsetEnvironment='))?.slice('UnsetEnvironment='.length).split(' ') ?? [];
  const plist = plistEnvironment(launchdPlist(SPEC));
  for (const name of HOSTILE) {
    assert.ok(unset.includes(name), `systemd: UnsetEnvironment= lists ${name}`);
    assert.ok(lines.includes(`Environment=${name}=`), `systemd: ${name} is empty even without UnsetEnvironment=`);
    assert.equal(plist.get(name), '', `launchd: ${name} is set to the empty string`);
  }
  assert.equal(plist.get('LATCH_HOME'), '/home/ann/.latch');
  // launchd can only set them empty: node must take empty values for absent ones (no code
  // loaded, no certificate file read, certificates still checked).
  const child = spawnSync(process.execPath, ['-e', 'require("node:tls"); process.stdout.write(String(require("node:https").globalAgent.options.rejectUnauthorized !== false))'], {
    env: { PATH: process.env['PATH'] ?? '', ...Object.fromEntries(HOSTILE.map((name) => [name, ''])) },
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stderr, '', 'no warning about an extra certificate file or an insecure TLS setting');
});

test('paths: XDG_CONFIG_HOME when absolute, else ~/.config; platforms without a manager are refused', () => {
  assert.equal(systemdUnitPath({}, '/home/ann'), '/home/ann/.config/systemd/user/latch.service');
  assert.equal(systemdUnitPath({ XDG_CONFIG_HOME: '/x/cfg' }, '/home/ann'), '/x/cfg/systemd/user/latch.service');
  assert.equal(systemdUnitPath({ XDG_CONFIG_HOME: 'relative' }, '/home/ann'), '/home/ann/.config/systemd/user/latch.service');
  assert.equal(serviceKindFor('linux'), 'systemd');
  assert.equal(serviceKindFor('darwin'), 'launchd');
  assert.equal(serviceKindFor('win32'), undefined);
});

test('the service runs the Latch that installed it: node, its loader flags and this script', () => {
  const command = currentLatchCommand();
  assert.equal(command.program, process.execPath);
  assert.ok(command.args.length >= 1);
  assert.ok(path.isAbsolute(command.args[command.args.length - 1] as string));
});

// The unit's PrivateTmp=yes hides /tmp, so install refuses a LATCH_HOME or a program there; these
// tests keep theirs in /dev/shm, and name the program with --program, so they pass wherever the
// checkout is (a clone under /tmp included: issue 44 item 7).
const NOT_TMP = '/dev/shm';

/** installedLatch makes an executable stand-in for an installed latch under dir (not under /tmp). */
function installedLatch(dir: string): string {
  const program = path.join(dir, 'bin', 'latch');
  mkdirSync(path.dirname(program), { recursive: true });
  writeFileSync(program, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  return program;
}
const linuxOnly = { skip: (process.platform !== 'linux' && 'systemd units are written on Linux only') || (!existsSync(NOT_TMP) && `no ${NOT_TMP} here`) };

test('latch service install writes the unit once, --force replaces it, uninstall removes it', linuxOnly, async () => {
  const userHome = mkdtempSync(path.join(NOT_TMP, 'latch-service-'));
  try {
    const env = { HOME: userHome, LATCH_HOME: path.join(userHome, 'data') };
    const program = installedLatch(userHome);
    const install = captureIo(env);
    assert.equal(await runCli(['service', 'install', '--program', program], install), EXIT.ok, install.stderr.text);
    const file = path.join(userHome, '.config', 'systemd', 'user', 'latch.service');
    assert.match(install.stdout.text, /systemctl --user daemon-reload && systemctl --user enable --now latch/);
    const unit = readFileSync(file, 'utf8');
    assert.ok(unit.includes(`Environment=LATCH_HOME=${env.LATCH_HOME}\n`));
    assert.ok(unit.includes(`\nUnsetEnvironment=${HOSTILE.join(' ')}\n`), 'the installed unit clears the hostile variables');
    assert.equal(statSync(file).mode & 0o777, 0o644);

    assert.ok(unit.includes(`\nExecStart=${program} daemon\n`), 'the unit runs the program --program named');
    const again = captureIo(env);
    assert.equal(await runCli(['service', 'install', '--program', program], again), EXIT.usage);
    assert.match(again.stderr.text, /already exists; use --force/);
    assert.equal(await runCli(['service', 'install', '--force', '--program', program], captureIo(env)), EXIT.ok);

    const printed = captureIo(env);
    assert.equal(await runCli(['service', 'install', '--print', '--program', program], printed), EXIT.ok);
    assert.equal(printed.stdout.text, unit);

    const remove = captureIo(env);
    assert.equal(await runCli(['service', 'uninstall'], remove), EXIT.ok);
    assert.match(remove.stdout.text, /Removed .*latch\.service/);
    assert.throws(() => statSync(file));
    const nothing = captureIo(env);
    assert.equal(await runCli(['service', 'uninstall'], nothing), EXIT.ok);
    assert.match(nothing.stdout.text, /Nothing to remove/);
  } finally {
    rmSync(userHome, { recursive: true, force: true });
  }
});

test('latch service install refuses a LATCH_HOME under /tmp or /var/tmp, which PrivateTmp=yes would hide', { skip: process.platform !== 'linux' && 'systemd units are written on Linux only' }, async () => {
  const userHome = mkdtempSync(path.join('/tmp', 'latch-service-'));
  try {
    for (const dataDir of [path.join(userHome, 'data'), '/var/tmp/latch-data', '/tmp']) {
      const io = captureIo({ HOME: userHome, LATCH_HOME: dataDir });
      assert.equal(await runCli(['service', 'install'], io), EXIT.usage, dataDir);
      assert.match(io.stderr.text, /PrivateTmp=yes/);
      assert.equal(existsSync(path.join(userHome, '.config', 'systemd', 'user', 'latch.service')), false);
    }
  } finally {
    rmSync(userHome, { recursive: true, force: true });
  }
  assert.equal(underPrivateTmp('/tmpfoo/latch'), false);
  assert.equal(underPrivateTmp('/home/ann/.latch'), false);
  assert.equal(underPrivateTmp('/var/tmp'), true);
});

test('latch service install refuses a program under /tmp, which PrivateTmp=yes would hide: --print, the user unit, and --system --dry-run alike', linuxOnly, () => {
  // A Latch started from /tmp: a script there that runs this checkout's bin/latch.js.
  const hiddenDir = mkdtempSync(path.join('/tmp', 'latch-l36-program-'));
  const userHome = mkdtempSync(path.join(NOT_TMP, 'latch-service-'));
  try {
    const script = path.join(hiddenDir, 'latch.mjs');
    writeFileSync(script, `import ${JSON.stringify(path.join(REPO_ROOT, 'bin', 'latch.js'))};\n`, { mode: 0o755 });
    const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: userHome, LATCH_HOME: path.join(userHome, 'data'), NODE_V8_COVERAGE: '' };
    for (const args of [['service', 'install', '--print'], ['service', 'install'], ['service', 'install', '--system', '--user', 'l36dryuser', '--dry-run'], ['service', 'install', '--print', '--program', script]]) {
      const run = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8', env, timeout: 60_000 });
      assert.equal(run.status, EXIT.usage, `${args.join(' ')}: ${run.stderr}${run.stdout}`);
      assert.match(run.stderr, /PrivateTmp=yes/);
      assert.ok(run.stderr.includes(script), `${args.join(' ')} names the hidden program: ${run.stderr}`);
      assert.doesNotMatch(run.stdout, /ExecStart/, 'no unit was printed');
    }
    assert.equal(existsSync(path.join(userHome, '.config', 'systemd', 'user', 'latch.service')), false, 'no unit was written');
  } finally {
    rmSync(hiddenDir, { recursive: true, force: true });
    rmSync(userHome, { recursive: true, force: true });
  }
  assert.equal(commandUnderPrivateTmp({ program: '/usr/bin/node', args: ['--import', 'tsx', '/opt/latch/bin/latch.js'] }), undefined);
  assert.equal(commandUnderPrivateTmp({ program: '/var/tmp/node', args: [] }), '/var/tmp/node');
  assert.equal(commandUnderPrivateTmp({ program: '/usr/bin/node', args: ['--import=file:///tmp/x/loader.mjs', '/opt/latch.js'] }), '/tmp/x/loader.mjs');
});

test('latch service install --port-a/--port-b: the service runs latch daemon on those ports', linuxOnly, async () => {
  const userHome = mkdtempSync(path.join(NOT_TMP, 'latch-service-'));
  try {
    const env = { HOME: userHome, LATCH_HOME: path.join(userHome, 'data') };
    const printed = captureIo(env);
    assert.equal(await runCli(['service', 'install', '--port-a', '9123', '--port-b', '9124', '--print', '--program', installedLatch(userHome)], printed), EXIT.ok, printed.stderr.text);
    assert.match(printed.stdout.text, /^ExecStart=.* daemon --port-a 9123 --port-b 9124$/m);
    const bad = captureIo(env);
    assert.equal(await runCli(['service', 'install', '--port-a', '70000'], bad), EXIT.usage);
    assert.match(bad.stderr.text, /--port-a must be a port number/);
    assert.match(launchdPlist({ command: { program: '/bin/latch', args: [] }, home: '/h', daemonArgs: ['--port-a', '9123'] }), /<string>daemon<\/string>\n {4}<string>--port-a<\/string>\n {4}<string>9123<\/string>/);
  } finally {
    rmSync(userHome, { recursive: true, force: true });
  }
});

test('latch service install --program: an absolute path to an executable file, else a usage error naming it', linuxOnly, async () => {
  const userHome = mkdtempSync(path.join(NOT_TMP, 'latch-service-'));
  try {
    const env = { HOME: userHome, LATCH_HOME: path.join(userHome, 'data') };
    const notExecutable = path.join(userHome, 'plain');
    writeFileSync(notExecutable, 'x');
    chmodSync(notExecutable, 0o644);
    for (const [program, message] of [['bin/latch', /must be an absolute path/], [path.join(userHome, 'missing'), /is not an executable file \(ENOENT\)/], [notExecutable, /is not an executable file \(EACCES\)|is not an executable file/], [userHome, /is not a file/]] as const) {
      const io = captureIo(env);
      assert.equal(await runCli(['service', 'install', '--print', '--program', program], io), EXIT.usage, program);
      assert.match(io.stderr.text, message);
    }
  } finally {
    rmSync(userHome, { recursive: true, force: true });
  }
});
