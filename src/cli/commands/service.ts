/**
 * `latch service install | uninstall`: run the daemon for this user at login, restarted after a
 * crash, with this LATCH_HOME — a systemd user unit on Linux, a launchd agent on macOS. The
 * commands write or remove the file and print the one command that starts or stops it; they never
 * start anything themselves, so nothing runs that the user has not seen.
 */
import { existsSync, mkdirSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from '../../datadir/atomic-file.js';
import { resolveHome } from '../../datadir/home.js';
import { ProgramFlagError, serviceCommand } from '../../service/program-flag.js';
import { parseForFlag } from '../../service/pin-accounts.js';
import { launchdPlist, launchdPlistPath, LAUNCHD_LABEL, systemdUnit, systemdUnitPath } from '../../service/service-files.js';
import { UsageError, writeLine, type Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { parseFlags, portFlag, type Flags } from '../flags.js';
import { JSON_OPTION, OWNER_ONLY_AGENT_OPTION, refuseAgentFlag } from '../common-options.js';
import { stringFlag } from '../daemon-calls/command-args.js';
import { reportError } from '../report-error.js';
import { installSystemService } from './service-system.js';
import { uninstallSystemService } from './service-uninstall-system.js';
import { commandUnderPrivateTmp, underPrivateTmp } from './service-private-tmp.js';

export { underPrivateTmp };
import { DEFAULT_SERVICE_USER, SYSTEM_DATA_DIR } from '../../service/service-user.js';
import { KEY_PASSPHRASE_FILE } from '../../service/system-service-files.js';

/** The kinds of service definition Latch writes. */
type ServiceKind = 'systemd' | 'launchd';

/** serviceKindFor picks the service manager of a platform, or undefined where Latch has none. */
export function serviceKindFor(platform: NodeJS.Platform): ServiceKind | undefined {
  if (platform === 'linux') return 'systemd';
  if (platform === 'darwin') return 'launchd';
  return undefined;
}

const FLAGS = { force: 'boolean', print: 'boolean', 'port-a': 'value', 'port-b': 'value', json: 'boolean', agent: 'value', system: 'boolean', user: 'value', 'dry-run': 'boolean', for: 'value', program: 'value' } as const;

/** commandFlag is the program the service runs: --program, else this Latch. */
function commandFlag(flags: Flags) {
  try {
    return serviceCommand(stringFlag(flags, 'program'));
  } catch (error) {
    if (error instanceof ProgramFlagError) throw new UsageError(error.message);
    throw error;
  }
}

/** daemonPortArgs turns --port-a / --port-b into the arguments the service passes to latch daemon. */
function daemonPortArgs(flags: Flags): string[] {
  const args: string[] = [];
  for (const name of ['port-a', 'port-b']) {
    const port = portFlag(flags, name);
    if (port !== undefined) args.push(`--${name}`, String(port));
  }
  return args;
}

function serviceFile(kind: ServiceKind, env: NodeJS.ProcessEnv): string {
  const userHome = env['HOME'] !== undefined && path.isAbsolute(env['HOME']) ? env['HOME'] : os.homedir();
  return kind === 'systemd' ? systemdUnitPath(env, userHome) : launchdPlistPath(userHome);
}

function platformKind(name: string): ServiceKind {
  const kind = serviceKindFor(process.platform);
  if (kind === undefined) throw new UsageError(`latch ${name} supports Linux (systemd) and macOS (launchd); run \`latch daemon\` under your own service manager here`);
  return kind;
}

/** `latch service install` writes the service definition. */
export const serviceInstallCommand: Command = {
  name: 'service install',
  summary: 'Run the daemon at login: write a systemd user unit (Linux) or launchd agent (macOS)',
  usage: `Usage: latch service install [--port-a N] [--port-b N] [--program PATH] [--print] [--force] [--json]
       latch service install --system [--user NAME] [--for NAMES] [--dry-run] [--port-a N] [--port-b N] [--program PATH] [--force]

Writes a service definition that runs \`latch daemon\` as you, with LATCH_HOME set to this
data directory, restarted if it crashes:
  Linux   ~/.config/systemd/user/latch.service  (then: systemctl --user daemon-reload && systemctl --user enable --now latch)
  macOS   ~/Library/LaunchAgents/${LAUNCHD_LABEL}.plist  (then: launchctl load -w <that file>)
It starts nothing itself. The service runs the program you ran this command with (the single
binary, or node and this script), or the one --program names, so install from the Latch you mean
to keep.

The daemon listens where --port-a and --port-b say (the defaults otherwise); it writes the ports it
listens on into the data directory, where latch commands find them without LATCH_URL.

On Linux the unit has PrivateTmp=yes: the service gets its own empty /tmp and /var/tmp, so a
LATCH_HOME there is refused (the service would not see it and would start an empty one).

With --system (as root), the daemon runs as its own system user instead (the separate-user
setup, docs/decisions.md §21.7): the user (default ${DEFAULT_SERVICE_USER}; no login shell; home = the data
directory, ${SYSTEM_DATA_DIR}) is created when missing, the data directory is created 0700 for it, a
hardened systemd system unit (or a launchd daemon with UserName) is written, and, once the daemon
is enrolled, its key and address are pinned where only root can write (/etc/latch/daemon.json), for
the accounts --for names (default: the account that ran sudo, added to those pinned before), so
that their clients prove the daemon before they send a passphrase (before enrollment it prints the
commands that enroll it, then run it again with --force to pin). An account the pin does not name
keeps its own setup. Several daemons may be pinned, one per service user. Where PID 1 is not
systemd (a container, a chroot) it says how to start the daemon instead. The unit reads the device
key's passphrase, if any, from the systemd credential latch-key-passphrase (${KEY_PASSPHRASE_FILE}). It writes nothing into
your home, and refuses a ~/.latch of $SUDO_USER that is a symbolic link. Nothing that runs as you
can then read the key, the tokens, the policy or the journals; you reach the daemon over loopback
with a session (latch commands ask for the owner passphrase) and give agents tokens with latch
agent add. See docs/separate-user.md.

Options:
  --system     install the system service (separate user) instead of the user service
  --user NAME  the system user of --system (default ${DEFAULT_SERVICE_USER})
  --for NAMES  with --system: the accounts the pin is for, comma-separated (you, agents' own
               accounts); default $SUDO_USER, added to those already pinned for this daemon
  --dry-run    with --system: print every file and command without changing anything
  --program PATH  the Latch the service runs (default: the one running this command), e.g.
               /usr/local/bin/latch when installing from a checkout
  --port-a N   Variant A's port for the service's daemon
  --port-b N   Variant B's port for the service's daemon
  --print   print the definition instead of writing it
  --force   replace an existing definition
${JSON_OPTION} ({"file", "written": true, "start"}; with --print {"file", "text"})
${OWNER_ONLY_AGENT_OPTION}

Exit codes: 0 written; 2 bad usage, unsupported platform, LATCH_HOME or the program under /tmp
(Linux), a symlinked ~/.latch (--system), or already installed without --force; 7 --agent given;
1 anything else.`,
  async run(args, io) {
    try {
      const flags = parseFlags(args, FLAGS);
      refuseAgentFlag('service install', stringFlag(flags, 'agent'));
      // Every flag's own mistake first, before what the flags lead to is checked.
      const daemonArgs = daemonPortArgs(flags);
      if (flags['system'] === true) {
        const forAccounts = parseForFlag(stringFlag(flags, 'for'));
        return await installSystemService(io, { user: stringFlag(flags, 'user') ?? DEFAULT_SERVICE_USER, dryRun: flags['dry-run'] === true, force: flags['force'] === true, daemonArgs, command: commandFlag(flags), ...(forAccounts !== undefined && { forAccounts }) });
      }
      if (flags['user'] !== undefined || flags['dry-run'] !== undefined || flags['for'] !== undefined) throw new UsageError('--user, --for and --dry-run go with --system');
      const json = flags['json'] === true;
      const kind = platformKind('service install');
      const home = resolveHome(io.env);
      if (kind === 'systemd' && underPrivateTmp(home)) {
        throw new UsageError(
          `LATCH_HOME ${home} is under /tmp or /var/tmp, which the unit's PrivateTmp=yes replaces with the service's own empty folder: the service would not use this data directory. Set LATCH_HOME to a directory elsewhere (the default is ~/.latch) and install again`,
        );
      }
      const command = commandFlag(flags);
      const hidden = kind === 'systemd' ? commandUnderPrivateTmp(command) : undefined;
      if (hidden !== undefined) {
        throw new UsageError(`the service would run ${hidden}, under /tmp or /var/tmp, which the unit's PrivateTmp=yes replaces with its own empty folder: the service could not start. Install Latch elsewhere (e.g. ~/.local or /opt) and run this again from there`);
      }
      const spec = { command, home, daemonArgs };
      const text = kind === 'systemd' ? systemdUnit(spec) : launchdPlist(spec);
      const file = serviceFile(kind, io.env);
      if (flags['print'] === true) {
        if (json) writeLine(io.stdout, JSON.stringify({ file, text }));
        else io.stdout.write(text);
        return EXIT.ok;
      }
      if (existsSync(file) && flags['force'] !== true) throw new UsageError(`${file} already exists; use --force to replace it`);
      mkdirSync(path.dirname(file), { recursive: true });
      // A unit file holds no secret, but a world-writable one would let others choose what runs as you.
      writeFileAtomic(file, text, 0o644);
      const start = kind === 'systemd' ? 'systemctl --user daemon-reload && systemctl --user enable --now latch' : `launchctl load -w ${file}`;
      if (json) {
        writeLine(io.stdout, JSON.stringify({ file, written: true, start }));
        return EXIT.ok;
      }
      writeLine(io.stdout, `Wrote ${file}`);
      writeLine(io.stdout, 'Start it now and at every login with:');
      writeLine(io.stdout, `  ${start}`);
      return EXIT.ok;
    } catch (error) {
      return reportError(error, io, 'service install');
    }
  },
};

/** `latch service uninstall` removes the service definition. */
export const serviceUninstallCommand: Command = {
  name: 'service uninstall',
  summary: 'Remove the service definition written by latch service install',
  usage: `Usage: latch service uninstall [--json]
       latch service uninstall --system [--user NAME] [--purge] [--dry-run]

Removes the file \`latch service install\` wrote. Stop the service first:
  Linux   systemctl --user disable --now latch
  macOS   launchctl unload -w ~/Library/LaunchAgents/${LAUNCHD_LABEL}.plist
The data directory is left as it is.

With --system (as root) it takes the separate-user setup down: it stops and disables the unit
(where systemd runs), removes the unit (only one that runs that user), and takes the daemon out of
root's pin /etc/latch/daemon.json (the file goes when no daemon is left). It then asks on the
terminal whether to remove the service user and its data directory too (the device key, journals
and audit log: this cannot be undone); --purge removes them without asking, and without a
terminal and without --purge they are kept. Every step is printed first. See
docs/separate-user.md, "Taking it down".

Options:
  --system     uninstall the system service (separate user)
  --user NAME  its user (default ${DEFAULT_SERVICE_USER})
  --purge      with --system: also remove the user and its data directory, without asking
  --dry-run    with --system: print the steps without changing anything
${JSON_OPTION} ({"file", "removed": true|false})
${OWNER_ONLY_AGENT_OPTION}

Exit codes: 0 removed (or nothing to remove); 2 bad usage, unsupported platform, or --system
without root; 7 --agent given; 1 anything else.`,
  async run(args, io) {
    try {
      const flags = parseFlags(args, { json: 'boolean', agent: 'value', system: 'boolean', user: 'value', purge: 'boolean', 'dry-run': 'boolean' });
      refuseAgentFlag('service uninstall', stringFlag(flags, 'agent'));
      if (flags['system'] === true) {
        if (flags['json'] !== undefined) throw new UsageError('--json does not go with --system');
        return await uninstallSystemService(io, { user: stringFlag(flags, 'user') ?? DEFAULT_SERVICE_USER, purge: flags['purge'] === true, dryRun: flags['dry-run'] === true });
      }
      if (flags['user'] !== undefined || flags['purge'] !== undefined || flags['dry-run'] !== undefined) throw new UsageError('--user, --purge and --dry-run go with --system');
      const kind = platformKind('service uninstall');
      const file = serviceFile(kind, io.env);
      if (flags['json'] === true) {
        const removed = existsSync(file);
        if (removed) unlinkSync(file);
        writeLine(io.stdout, JSON.stringify({ file, removed }));
        return EXIT.ok;
      }
      if (!existsSync(file)) {
        writeLine(io.stdout, `Nothing to remove: ${file} does not exist.`);
        return EXIT.ok;
      }
      unlinkSync(file);
      writeLine(io.stdout, `Removed ${file}`);
      writeLine(io.stdout, kind === 'systemd' ? 'If it was running, stop it with: systemctl --user disable --now latch && systemctl --user daemon-reload' : `If it was loaded, unload it with: launchctl unload -w ${file}`);
      return EXIT.ok;
    } catch (error) {
      return reportError(error, io, 'service uninstall');
    }
  },
};
