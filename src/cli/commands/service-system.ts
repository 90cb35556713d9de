/**
 * `latch service install --system`: the separate-user setup (docs/decisions.md §21). Every step
 * is a file written or a command run (argv, never a shell), listed first; --dry-run prints the
 * list and changes nothing.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { PINNED_KEY_FILE } from '../../client/pinned-key.js';
import { writeFileAtomic } from '../../datadir/atomic-file.js';
import { loadConfig } from '../../datadir/config.js';
import { currentLatchCommand } from '../../service/latch-command.js';
import { lookUpUser, prepareDataDirFor, requireRoot, ServiceUserError, SYSTEM_DATA_DIR, validUserName } from '../../service/service-user.js';
import { LAUNCH_DAEMON_PATH, launchdDaemonPlist, SYSTEM_UNIT_PATH, systemdSystemUnit } from '../../service/system-service-files.js';
import { UsageError, writeLine, type CliIo } from '../command.js';
import { EXIT } from '../exit-codes.js';

type Step = { kind: 'run'; argv: string[] } | { kind: 'write'; file: string; text: string; mode: number; owner?: { uid: number; gid: number } } | { kind: 'mkdir'; dir: string } | { kind: 'note'; text: string };

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
  const spec = { command, user: options.user, home, daemonArgs: options.daemonArgs ?? [] };
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
  const pin = pinStep(home, io.env);
  steps.push(pin);
  if (/^\/(home|root)\//.test(command.program) || command.args.some((arg) => /^\/(home|root)\//.test(arg))) {
    steps.push({ kind: 'note', text: `the service runs ${command.program}${command.args.length > 0 ? ` ${command.args.join(' ')}` : ''}, under a home directory that ProtectHome=yes hides from it: install Latch outside /home and /root (e.g. /usr/local or /opt) first` });
  }

  for (const step of steps) writeLine(io.stdout, describe(step, options.dryRun));
  if (options.dryRun) {
    writeLine(io.stdout, 'Dry run: nothing was changed.');
    return EXIT.ok;
  }
  for (const step of steps) take(step, options.user, home);
  writeLine(io.stdout, 'Start it now and at every boot with:');
  writeLine(io.stdout, linux ? '  systemctl daemon-reload && systemctl enable --now latch' : `  launchctl bootstrap system ${LAUNCH_DAEMON_PATH}`);
  writeLine(io.stdout, `Enroll it (once) as the service user: sudo -u ${options.user} env LATCH_HOME=${home} latch setup --token …, then run this again with --force to pin its key.`);
  return EXIT.ok;
}

/**
 * pinStep pins the daemon's key for the account that ran sudo: the key id config.json recorded at
 * enrollment, written to that account's ~/.latch/daemon_key.pub. Before enrollment there is no key
 * to pin yet, and the step says so.
 */
function pinStep(home: string, env: NodeJS.ProcessEnv): Step {
  const owner = env['SUDO_USER'] === undefined ? undefined : lookUpUser(env['SUDO_USER']);
  let keyId: string | undefined;
  try {
    keyId = existsSync(home) ? loadConfig(home).key_id : undefined;
  } catch {
    keyId = undefined;
  }
  if (owner === undefined || owner.uid === 0) return { kind: 'note', text: 'no owner account to pin the key for (run this with sudo from your own account)' };
  if (keyId === undefined) return { kind: 'note', text: `the daemon is not enrolled yet, so its key cannot be pinned for ${owner.name} now` };
  const file = path.join(owner.home, '.latch', PINNED_KEY_FILE);
  return { kind: 'write', file, text: `${JSON.stringify({ v: 1, key_id: keyId })}\n`, mode: 0o600, owner: { uid: owner.uid, gid: owner.gid } };
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
    case 'note':
      return `note: ${step.text}`;
  }
}

function take(step: Step, user: string, home: string): void {
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
      mkdirSync(path.dirname(step.file), { recursive: true, mode: 0o700 });
      writeFileAtomic(step.file, step.text, step.mode);
      if (step.owner !== undefined) {
        chownSync(path.dirname(step.file), step.owner.uid, step.owner.gid);
        chownSync(step.file, step.owner.uid, step.owner.gid);
      }
      return;
    case 'note':
      return;
  }
}
