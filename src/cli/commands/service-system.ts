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
import { systemPinPath, systemPinText, writeSystemPin, type SystemPin } from '../../datadir/system-pin.js';
import { currentLatchCommand } from '../../service/latch-command.js';
import { serviceKeyId } from '../../service/service-key.js';
import { lookUpUser, prepareDataDirFor, requireRoot, ServiceUserError, SYSTEM_DATA_DIR, validUserName, type ServiceUser } from '../../service/service-user.js';
import { LAUNCH_DAEMON_PATH, launchdDaemonPlist, SYSTEM_UNIT_PATH, systemdSystemUnit } from '../../service/system-service-files.js';
import { UsageError, writeLine, type CliIo } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { commandUnderPrivateTmp } from './service-private-tmp.js';

type Step =
  | { kind: 'run'; argv: string[] }
  | { kind: 'write'; file: string; text: string; mode: number }
  | { kind: 'mkdir'; dir: string }
  | { kind: 'pin'; file: string; pin: SystemPin }
  | { kind: 'note'; text: string };

/** installSystemService plans the steps, prints them, and (without --dry-run) takes them. */
export async function installSystemService(io: CliIo, options: { user: string; dryRun: boolean; force: boolean; daemonArgs?: string[] }): Promise<number> {
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
  const command = currentLatchCommand();
  const daemonArgs = options.daemonArgs ?? [];
  if (linux) {
    const hidden = commandUnderPrivateTmp(command);
    if (hidden !== undefined) throw new UsageError(`the service would run ${hidden}, under /tmp or /var/tmp, which the unit's PrivateTmp=yes replaces with its own empty folder: the service could not start. Install Latch elsewhere (e.g. /usr/local or /opt) and run this again from there`);
  }
  const owner = ownerAccount(io.env);
  const spec = { command, user: options.user, home, daemonArgs };
  const unitFile = linux ? SYSTEM_UNIT_PATH : LAUNCH_DAEMON_PATH;
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
  if (keyId !== undefined) steps.push({ kind: 'pin', file: systemPinPath(io.env), pin: { key_id: keyId, url: `http://127.0.0.1:${portOf(daemonArgs)}`, data_dir: home, user: options.user } });
  else steps.push({ kind: 'note', text: `the daemon is not enrolled yet, so its key cannot be pinned now: enroll it as ${options.user}, then run this again with --force` });
  if (/^\/(home|root)\//.test(command.program) || command.args.some((arg) => /^\/(home|root)\//.test(arg))) {
    steps.push({ kind: 'note', text: `the service runs ${command.program}${command.args.length > 0 ? ` ${command.args.join(' ')}` : ''}, under a home directory that ProtectHome=yes hides from it: install Latch outside /home and /root (e.g. /usr/local or /opt) first` });
  }

  for (const step of steps) writeLine(io.stdout, describe(step, options.dryRun));
  if (options.dryRun) {
    writeLine(io.stdout, 'Dry run: nothing was changed.');
    return EXIT.ok;
  }
  for (const step of steps) take(step, options.user, home, io.env);
  writeLine(io.stdout, 'Start it now and at every boot with:');
  writeLine(io.stdout, linux ? '  systemctl daemon-reload && systemctl enable --now latch' : `  launchctl bootstrap system ${LAUNCH_DAEMON_PATH}`);
  for (const line of nextSteps(keyId, options.user, home, owner)) writeLine(io.stdout, line);
  return EXIT.ok;
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
function nextSteps(keyId: string | undefined, user: string, home: string, owner: ServiceUser | undefined): string[] {
  const asService = `sudo -u ${user} env LATCH_HOME=${home} latch`;
  if (keyId === undefined) {
    return [
      'The daemon is not enrolled yet, so its key is not pinned. Next, once:',
      `  ${asService} setup --token …                  (enroll it as ${user})`,
      `  ${asService} approvals passphrase set          (the owner passphrase)`,
      '  sudo latch service install --system --force     (pins its key for every account)',
    ];
  }
  return [
    `Pinned the daemon's key ${keyId} for every account in the root-only pin (latch doctor shows it).`,
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
      return `${verb} pin the daemon for every account in ${step.file} (644, root's alone):\n${systemPinText(step.pin).replace(/^/gm, '    ')}`;
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
      writeSystemPin(env, step.pin);
      return;
    case 'note':
      return;
  }
}
