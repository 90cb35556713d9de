/**
 * `latch service uninstall --system` (issue 44 item 2): takes the separate-user setup down. It
 * stops and disables the unit where systemd runs, removes the unit (only one that runs this service
 * user), takes the daemon out of root's pin (the file goes when no daemon is left), and, when asked
 * on the terminal or with --purge, removes the service user and its data directory (the device key,
 * journals, audit log: this cannot be undone). Every step is printed first; --dry-run stops there.
 */
import { entryExists } from '../../datadir/filesystem-error.js';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { readSystemPins, removeSystemPin, SystemPinError, systemPinPath } from '../../datadir/system-pin.js';
import { initSystem } from '../../service/init-system.js';
import { lookUpUser, requireRoot, SYSTEM_DATA_DIR, validUserName } from '../../service/service-user.js';
import { LAUNCH_DAEMON_PATH, systemUnitPath } from '../../service/system-service-files.js';
import { terminalKeys, withKeys } from '../approvals/owner-input.js';
import { UsageError, writeLine, type CliIo } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { readChoice } from '../terminal/prompts.js';

/** What uninstall --system was asked to do. */
export interface UninstallSystemOptions {
  user: string;
  purge: boolean;
  dryRun: boolean;
}

/** uninstallSystemService prints the steps, asks about the user and its data, and takes them. */
export async function uninstallSystemService(io: CliIo, options: UninstallSystemOptions): Promise<number> {
  if (!validUserName(options.user)) throw new UsageError(`--user "${options.user}" is not a user name Latch accepts`);
  if (!options.dryRun) {
    try {
      requireRoot('latch service uninstall --system');
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }
  const linux = process.platform === 'linux';
  const unitFile = linux ? systemUnitPath(io.env) : LAUNCH_DAEMON_PATH;
  const unitRunsUser = existsSync(unitFile) && readFileSync(unitFile, 'utf8').split('\n').some((line) => line === `User=${options.user}` || line.includes(`<string>${options.user}</string>`));
  const pinned = pinnedDataDir(io.env, options.user);
  const account = lookUpUser(options.user);
  const dataDir = pinned ?? (account === undefined ? undefined : account.home === SYSTEM_DATA_DIR ? SYSTEM_DATA_DIR : path.join(account.home, '.latch'));
  const systemd = linux && initSystem().systemd && unitFile === systemUnitPath({});

  const steps: string[] = [];
  if (systemd && unitRunsUser) steps.push('systemctl disable --now latch');
  if (unitRunsUser) steps.push(`remove ${unitFile}`);
  else if (existsSync(unitFile)) steps.push(`keep ${unitFile}: it runs another user than ${options.user}`);
  if (pinned !== undefined) steps.push(`take ${options.user}'s daemon out of ${systemPinPath(io.env)} (the file goes when no daemon is left)`);
  const purgeable = account !== undefined && account.uid !== 0;
  const purgeSteps = purgeable ? [`userdel ${options.user}`, ...(dataDir !== undefined && ownedBy(dataDir, account.uid) ? [`remove ${dataDir} (the device key, journals, audit log)`] : [])] : [];
  const verb = options.dryRun ? 'would' : 'will';
  for (const step of steps) writeLine(io.stdout, `${verb} ${step}`);
  if (purgeSteps.length > 0) writeLine(io.stdout, `${options.purge ? verb : 'only with --purge or your yes:'} ${purgeSteps.join('; ')}`);
  if (steps.length === 0 && purgeSteps.length === 0) {
    writeLine(io.stdout, `Nothing to remove: no unit, pin or user of ${options.user}.`);
    return EXIT.ok;
  }
  if (options.dryRun) {
    writeLine(io.stdout, 'Dry run: nothing was changed.');
    return EXIT.ok;
  }
  if (systemd && unitRunsUser) runQuietly(['systemctl', 'disable', '--now', 'latch']);
  if (unitRunsUser) unlinkSync(unitFile);
  if (pinned !== undefined) removeSystemPin(io.env, options.user);
  if (unitRunsUser && systemd) runQuietly(['systemctl', 'daemon-reload']);
  const purge = purgeSteps.length > 0 && (options.purge || (await askPurge(io, options.user, dataDir)));
  if (purge && account !== undefined) {
    execFileSync('userdel', [options.user], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (dataDir !== undefined && ownedBy(dataDir, account.uid)) rmSync(dataDir, { recursive: true, force: true });
    writeLine(io.stdout, `Removed the user ${options.user}${dataDir !== undefined ? ` and ${dataDir}` : ''}.`);
  } else if (purgeSteps.length > 0) {
    writeLine(io.stdout, `Kept the user ${options.user}${dataDir !== undefined ? ` and its data in ${dataDir}` : ''}; to remove them: sudo latch service uninstall --system --user ${options.user} --purge`);
  }
  writeLine(io.stdout, `The separate-user service of ${options.user} is uninstalled.`);
  return EXIT.ok;
}

/**
 * pinnedDataDir is the data directory root's pin names for the user, or undefined when it pins none.
 * Taking a daemon down reads the pin only to remove from it, so a pin file that is not there (one
 * LATCH_SYSTEM_PIN names included, which a client refuses to trust) pins nothing to remove.
 */
function pinnedDataDir(env: NodeJS.ProcessEnv, user: string): string | undefined {
  if (!entryExists(systemPinPath(env))) return undefined;
  try {
    return readSystemPins(env)?.daemons.find((entry) => entry.user === user)?.data_dir;
  } catch (error) {
    if (error instanceof SystemPinError) throw new UsageError(`${error.message}; remove it by hand once you have checked it`);
    throw error;
  }
}

/** ownedBy reports whether dir is a real directory of uid (never a link): only that is removed. */
function ownedBy(dir: string, uid: number): boolean {
  try {
    const stats = lstatSync(dir);
    return stats.isDirectory() && stats.uid === uid;
  } catch {
    return false;
  }
}

/** askPurge asks on the terminal; without one the user and data are kept (say --purge). */
async function askPurge(io: CliIo, user: string, dataDir: string | undefined): Promise<boolean> {
  let keys;
  try {
    keys = terminalKeys(io, 'keeping them');
  } catch {
    return false;
  }
  const question = `Also remove the user ${user}${dataDir !== undefined ? ` and ${dataDir} (its device key, journals and audit log; this cannot be undone)` : ''}? [y/N] `;
  return (await withKeys(keys, (k) => readChoice(k, io.stderr, question, ['y', 'n'] as const, 'n'))) === 'y';
}

function runQuietly(argv: string[]): void {
  try {
    execFileSync(argv[0] as string, argv.slice(1), { stdio: ['ignore', 'ignore', 'ignore'] });
  } catch {
    // A unit that was not running or not enabled: nothing to stop.
  }
}
