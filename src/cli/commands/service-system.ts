/**
 * `latch service install --system`: the separate-user setup (docs/decisions.md §21). Every step
 * is a file written or a command run (argv, never a shell), listed first; --dry-run prints the
 * list and changes nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../datadir/atomic-file.js';
import { DEFAULT_PORT_A } from '../../daemon/create-daemon.js';
import { mergeSystemPin, readSystemPins, SystemPinError, systemPinPath, systemPinsText, writeSystemPin, type SystemPin, type SystemPins } from '../../datadir/system-pin.js';
import { initSystem } from '../../service/init-system.js';
import { pinAccounts, type PinAccounts } from '../../service/pin-accounts.js';
import type { LatchCommand } from '../../service/service-files.js';
import { serviceKeyId } from '../../service/service-key.js';
import { lookUpUser, prepareDataDirFor, requireRoot, ServiceUserError, SYSTEM_DATA_DIR, validUserName, type ServiceUser } from '../../service/service-user.js';
import { KEY_PASSPHRASE_FILE, LAUNCH_DAEMON_PATH, launchdDaemonPlist, systemdSystemUnit, systemUnitPath } from '../../service/system-service-files.js';
import { UsageError, writeLine, type CliIo } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { commandUnderPrivateTmp } from './service-private-tmp.js';

type Step =
  | { kind: 'run'; argv: string[] }
  | { kind: 'write'; file: string; text: string; mode: number }
  | { kind: 'mkdir'; dir: string }
  | { kind: 'pin'; file: string; pin: SystemPin & { accounts: string[] }; keep: boolean; result: SystemPins }
  | { kind: 'note'; text: string };

/** installSystemService plans the steps, prints them, and (without --dry-run) takes them. */
export async function installSystemService(io: CliIo, options: { user: string; dryRun: boolean; force: boolean; daemonArgs?: string[]; command: LatchCommand; forAccounts?: string[] }): Promise<number> {
  if (!validUserName(options.user)) throw new UsageError(`--user "${options.user}" is not a user name Latch accepts`);
  if (process.platform !== 'linux' && process.platform !== 'darwin') throw new UsageError('latch service install --system supports Linux (systemd) and macOS (launchd)');
  if (!options.dryRun) {
    try {
      requireRoot('latch service install --system');
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  const linux = process.platform === 'linux';
  const home = linux ? SYSTEM_DATA_DIR : '/usr/local/var/latch';
  const command = options.command;
  const daemonArgs = options.daemonArgs ?? [];
  if (linux) {
    const hidden = commandUnderPrivateTmp(command);
    if (hidden !== undefined) throw new UsageError(`the service would run ${hidden}, under /tmp or /var/tmp, which the unit's PrivateTmp=yes replaces with its own empty folder: the service could not start. Install Latch elsewhere (e.g. /usr/local or /opt) and run this again from there`);
  }
  const owner = ownerAccount(io.env);
  let accounts: PinAccounts;
  try {
    accounts = pinAccounts(io.env, options.user, options.forAccounts);
  } catch (error) {
    if (error instanceof ServiceUserError) throw new UsageError(error.message);
    throw error;
  }
  const spec = { command, user: options.user, home, daemonArgs, keyPassphraseFile: existsSync(KEY_PASSPHRASE_FILE) };
  const unitFile = linux ? systemUnitPath(io.env) : LAUNCH_DAEMON_PATH;
  const steps: Step[] = [];
  const existing = lookUpUser(options.user);
  if (existing === undefined) {
    if (!linux) throw new UsageError(`create the user ${options.user} first (System Settings, or dscl), then run this again`);
    steps.push({ kind: 'run', argv: ['useradd', '--system', '--user-group', '--home-dir', home, '--no-create-home', '--shell', '/usr/sbin/nologin', options.user] });
  } else if (existing.uid === 0) {
    throw new UsageError('--user must name an account other than root');
  }
  steps.push({ kind: 'mkdir', dir: home });
  if (existsSync(unitFile) && !options.force) throw new UsageError(`${unitFile} already exists; use --force to replace it`);
  steps.push({ kind: 'write', file: unitFile, text: linux ? systemdSystemUnit(spec) : launchdDaemonPlist(spec), mode: 0o644 });
  const keyId = existing === undefined ? undefined : serviceKeyId(home, existing);
  if (keyId !== undefined) {
    const pin = { key_id: keyId, url: `http://127.0.0.1:${portOf(daemonArgs)}`, data_dir: home, user: options.user, accounts: accounts.accounts };
    steps.push({ kind: 'pin', file: systemPinPath(io.env), pin, keep: accounts.keep, result: mergeSystemPin(currentPins(io.env), pin, accounts.keep) });
  }
  else steps.push({ kind: 'note', text: `the daemon is not enrolled yet, so its key cannot be pinned now: enroll it as ${options.user}, then run this again with --force` });
  if (/^\/(home|root)\//.test(command.program) || command.args.some((arg) => /^\/(home|root)\//.test(arg))) {
    steps.push({ kind: 'note', text: `the service runs ${command.program}${command.args.length > 0 ? ` ${command.args.join(' ')}` : ''}, under a home directory that ProtectHome=yes hides from it: install Latch outside /home and /root (e.g. /usr/local or /opt) first` });
  }

  for (const step of steps) writeLine(io.stdout, describe(step, options.dryRun));
  if (options.dryRun) {
    if (linux) for (const line of startLines(options.user)) writeLine(io.stdout, `then: ${line}`);
    writeLine(io.stdout, 'Dry run: nothing was changed.');
    return EXIT.ok;
  }
  for (const step of steps) take(step, options.user, home, io.env);
  for (const line of linux ? startLines(options.user) : ['Start it now and at every boot with:', `  launchctl bootstrap system ${LAUNCH_DAEMON_PATH}`]) writeLine(io.stdout, line);
  const pinned = steps.find((step) => step.kind === 'pin');
  const forAccounts = pinned?.kind === 'pin' ? (pinned.result.daemons.find((entry) => entry.user === options.user)?.accounts ?? []) : [];
  for (const line of nextSteps(keyId, options.user, home, owner, forAccounts)) writeLine(io.stdout, line);
  return EXIT.ok;
}

/**
 * startLines says how to start the unit: with systemctl where systemd is PID 1, else (a container,
 * a chroot building an image, another init system) what to do instead (issue 44 item 6).
 */
function startLines(user: string): string[] {
  const init = initSystem();
  if (init.systemd) return ['Start it now and at every boot with:', '  systemctl daemon-reload && systemctl enable --now latch'];
  return [
    `PID 1 here is not systemd (it is ${init.pid1 ?? 'unknown'}), so systemctl cannot start the unit now.`,
    '  In an image that will boot with systemd: systemctl enable latch   (works without a running systemd)',
    `  Otherwise start the daemon from your own init system or container entrypoint, as root: latch daemon --user ${user}`,
    '  (it drops to that user before it reads anything and pins its key once it listens; see docs/separate-user.md, "Without systemd").',
  ];
}

/** currentPins is what root's pin holds now, for the preview (an untrusted file is replaced). */
function currentPins(env: NodeJS.ProcessEnv): SystemPins | undefined {
  try {
    return readSystemPins(env);
  } catch (error) {
    if (error instanceof SystemPinError) return undefined;
    throw error;
  }
}

/**
 * ownerAccount is the account that ran sudo, whose client will talk to the daemon. Its ~/.latch
 * must not be a symbolic link: the owner's client would read through it into a directory someone
 * else may control (and an older Latch wrote through it as root), so the install stops there
 * before it changes anything.
 */
function ownerAccount(env: NodeJS.ProcessEnv): ServiceUser | undefined {
  const name = env['SUDO_USER'];
  if (name === undefined || !validUserName(name)) return undefined;
  const owner = lookUpUser(name);
  if (owner === undefined || owner.uid === 0 || !path.isAbsolute(owner.home)) return undefined;
  const latchHome = path.join(owner.home, '.latch');
  let linked = false;
  try {
    linked = lstatSync(latchHome).isSymbolicLink();
  } catch {
    linked = false;
  }
  if (linked) throw new UsageError(`${latchHome} is a symbolic link; Latch refuses it (the owner's data directory must be a real directory of ${owner.name}'s). Remove the link (rm ${latchHome}) and run this again`);
  return owner;
}

/** portOf is the --port-a the service passes to latch daemon, else the default. */
function portOf(daemonArgs: string[]): number {
  const at = daemonArgs.indexOf('--port-a');
  const port = at === -1 ? undefined : Number(daemonArgs[at + 1]);
  return port === undefined || !Number.isSafeInteger(port) || port <= 0 ? DEFAULT_PORT_A : port;
}

/** nextSteps says what the owner does now: enroll and pin first, or go straight to their own account. */
function nextSteps(keyId: string | undefined, user: string, home: string, owner: ServiceUser | undefined, accounts: string[]): string[] {
  const asService = `sudo -u ${user} env LATCH_HOME=${home} latch`;
  if (keyId === undefined) {
    return [
      'The daemon is not enrolled yet, so its key is not pinned. Next, once:',
      `  ${asService} setup --token …                  (enroll it as ${user})`,
      `  ${asService} approvals passphrase set          (the owner passphrase)`,
      '  sudo latch service install --system --force     (pins its key for every account)',
    ];
  }
  if (accounts.length === 0) {
    return [
      `Pinned the daemon's key ${keyId} in the root-only pin, but for no account: no account's latch commands use this daemon yet.`,
      '  Name them (you, and agents\' own accounts): sudo latch service install --system --force --for NAME[,NAME]',
    ];
  }
  return [
    `Pinned the daemon's key ${keyId} for ${accounts.join(', ')} in the root-only pin (latch doctor shows it); other accounts are not redirected.`,
    `Next, from ${owner === undefined ? 'your own account' : `your own account (${owner.name})`}, without sudo:`,
    '  latch doctor          (proves the daemon, asks the owner passphrase)',
    '  latch approvals       (and approve, transactions, policy show, agent add NAME …)',
    'See docs/separate-user.md.',
  ];
}

function describe(step: Step, dryRun: boolean): string {
  const verb = dryRun ? 'would' : 'will';
  switch (step.kind) {
    case 'run':
      return `${verb} run: ${step.argv.join(' ')}`;
    case 'mkdir':
      return `${verb} create ${step.dir} (0700, owned by the service user)`;
    case 'write':
      return `${verb} write ${step.file} (${step.mode.toString(8)}):\n${step.text.replace(/^/gm, '    ')}`;
    case 'pin':
      return `${verb} pin the daemon for ${step.result.daemons.find((entry) => entry.user === step.pin.user)?.accounts?.join(', ') || 'no account'} in ${step.file} (644, root's alone):\n${systemPinsText(step.result).replace(/^/gm, '    ')}`;
    case 'note':
      return `note: ${step.text}`;
  }
}

function take(step: Step, user: string, home: string, env: NodeJS.ProcessEnv): void {
  switch (step.kind) {
    case 'run':
      execFileSync(step.argv[0] as string, step.argv.slice(1), { stdio: ['ignore', 'ignore', 'inherit'] });
      return;
    case 'mkdir': {
      const account = lookUpUser(user);
      if (account === undefined) throw new ServiceUserError(`the user ${user} was not created`);
      prepareDataDirFor(home, account);
      return;
    }
    case 'write':
      // Root's own directories (/etc/systemd/system, /Library/LaunchDaemons): nothing of a user's.
      mkdirSync(path.dirname(step.file), { recursive: true, mode: 0o755 });
      writeFileAtomic(step.file, step.text, step.mode);
      return;
    case 'pin':
      writeSystemPin(env, step.pin, step.keep);
      return;
    case 'note':
      return;
  }
}
