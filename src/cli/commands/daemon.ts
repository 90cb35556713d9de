import { createDaemonWithLogger, DEFAULT_CLOSE_DEADLINE_MS, DEFAULT_PORT_A, DEFAULT_PORT_B, type DaemonHandle } from '../../daemon/create-daemon.js';
import { resolveHome } from '../../datadir/home.js';
import { UsageError, writeLine, type CliIo, type Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { createLogger, type Logger } from '../../log/logger.js';
import { parseFlags, portFlag, type Flags } from '../flags.js';
import { OWNER_ONLY_AGENT_OPTION, refuseAgentFlag, usageWithCommonOptions } from '../common-options.js';
import { stringFlag } from '../daemon-calls/command-args.js';
import { reportError, reportErrorAsLog } from '../report-error.js';
import { becomeServiceUser, ServiceUserError } from '../../service/service-user.js';
import { completeDaemonPin, type DaemonPin } from '../../service/daemon-pin.js';
import { parseForFlag } from '../../service/pin-accounts.js';
import { hostDaemonProcess } from '../daemon-host.js';
import { CONSOLE_FLAGS, consoleOption } from '../console-flags.js';

/** The longest --stop-timeout: systemd's default grace before SIGKILL is 90 s. */
const STOP_TIMEOUT_SECONDS_MAX = 60;

const USAGE = `Usage: latch daemon [--port-a N] [--port-b N] [--no-variant-a] [--no-variant-b] [--stop-timeout S] [--user NAME [--for NAMES]]

Serves the local API on loopback until SIGTERM, SIGINT or SIGHUP:
  Variant A (canonical)      127.0.0.1:${DEFAULT_PORT_A}  GET /health without a token, the rest with one
  Variant B (compatibility)  127.0.0.1:${DEFAULT_PORT_B}  every endpoint with the token

Options:
  --port-a N          Variant A's port (0 picks a free port)
  --port-b N          Variant B's port (0 picks a free port)
  --no-variant-a      do not serve Variant A
  --no-variant-b      do not serve Variant B
  --stop-timeout S    on a stop signal, how long in-flight requests may finish, in seconds
                      (0 to ${STOP_TIMEOUT_SECONDS_MAX}, default ${DEFAULT_CLOSE_DEADLINE_MS / 1000}); requests waiting for an approval are answered at once
  --user NAME         (root only) run as the user NAME: create LATCH_HOME (0700, owned by NAME)
                      if missing, refuse one owned by anyone else, then drop supplementary groups,
                      gid and uid to NAME before reading any data file or opening a port; once
                      listening, pin its key and address in /etc/latch/daemon.json
  --for NAMES         with --user: the accounts the pin is for (comma-separated: the owner, and
                      agents' own accounts); default: $SUDO_USER, added to those already pinned.
                      An account the pin does not name is not redirected to this daemon
  --port-console N    the owner console's port (default 7724, or config.json's console_port;
                      a free one when --port-a is 0); see latch console
  --no-console        do not serve the owner console

Once listening it prints one JSON line on stdout:
  {"event":"daemon_listening","pid":...,"port_a":N|null,"port_b":N|null}
Logs, startup errors and crashes are JSON lines on stderr. The data directory is LATCH_HOME
(default ~/.latch).

Signals: SIGTERM, SIGINT and SIGHUP stop it gracefully (exit 0); a second one exits at once (1).

Exit codes: 0 stopped by a signal; 2 bad usage; 3 unsafe, broken or unwritable data directory;
4 port in use; 5 could not listen; 11 the process's limits leave no room to run; 1 anything else.`;

/**
 * becomeServiceUserOrExplain runs the `--user NAME` step (service/service-user.ts); its refusals
 * are usage errors (exit 2) naming what to do.
 */
export function becomeServiceUserOrExplain(name: string, env: NodeJS.ProcessEnv, forAccounts?: string[]): DaemonPin | { error: string } {
  try {
    return becomeServiceUser(name, env, forAccounts).pin;
  } catch (error) {
    if (error instanceof ServiceUserError) throw new UsageError(error.message);
    throw error;
  }
}

/** finishPin completes the owners' pin of `--user` (or passes on why it could not be opened). */
export function finishPin(pin: DaemonPin | { error: string }, home: string, portA: number | undefined): { file: string; key_id: string; accounts: string[] } | { error: string } {
  return 'error' in pin ? pin : completeDaemonPin(pin, home, portA);
}

/** logPin says on stderr what the owners' pin now holds, and the owner's next step. */
function logPin(result: { file: string; key_id: string; accounts: string[] } | { error: string }, logger: Logger): void {
  if ('error' in result) logger.warn('daemon_not_pinned', { message: result.error, remedy: 'Owners cannot prove this daemon until it is pinned: see docs/separate-user.md.' });
  else if (result.accounts.length === 0) logger.warn('daemon_pinned_for_nobody', { file: result.file, key_id: result.key_id, remedy: 'The pin names no account, so no account uses this daemon: start it again with --for NAME (the owner, agents\' own accounts)' });
  else logger.info('daemon_pinned', { file: result.file, key_id: result.key_id, accounts: result.accounts, next: "from the owner's own account, without sudo: latch doctor, then latch approvals" });
}

/** What --json means for a server whose stdout is JSON lines already. */
export const DAEMON_JSON_OPTION = '  --json         accepted: stdout already carries only the JSON line above';

const FLAGS = { 'port-a': 'value', 'port-b': 'value', 'no-variant-a': 'boolean', 'no-variant-b': 'boolean', 'stop-timeout': 'value', json: 'boolean', agent: 'value', user: 'value', for: 'value', ...CONSOLE_FLAGS } as const;

/** `latch daemon` runs the daemon in the foreground until a stop signal. */
export const daemonCommand: Command = {
  name: 'daemon',
  summary: 'Run the local API (both listeners) in the foreground',
  usage: usageWithCommonOptions(USAGE, OWNER_ONLY_AGENT_OPTION, DAEMON_JSON_OPTION),
  async run(args, io) {
    // Everything this command writes to stderr is a JSON line, its failures too (docs/decisions.md §24.6).
    const host = hostDaemonProcess(createLogger({ stream: io.stderr }));
    let logger = createLogger({ stream: io.stderr });
    let daemon: DaemonHandle;
    let stopTimeoutMs: number;
    let pin: DaemonPin | { error: string } | undefined;
    try {
      const flags = parseFlags(args, FLAGS);
      refuseAgentFlag('daemon', stringFlag(flags, 'agent'));
      const variantA = flags['no-variant-a'] !== true;
      const variantB = flags['no-variant-b'] !== true;
      if (!variantA && !variantB) throw new UsageError('--no-variant-a and --no-variant-b together leave nothing to serve');
      const portA = portFlag(flags, 'port-a');
      const portB = portFlag(flags, 'port-b');
      stopTimeoutMs = stopTimeoutFlag(flags);
      // Before anything is read or bound: the rest runs as the service user (docs/decisions.md §21).
      if (flags['for'] !== undefined && typeof flags['user'] !== 'string') throw new UsageError('--for goes with --user');
      if (typeof flags['user'] === 'string') pin = becomeServiceUserOrExplain(flags['user'], io.env, parseForFlag(stringFlag(flags, 'for')));
      ({ daemon, logger } = createDaemonWithLogger({
        home: resolveHome(io.env),
        env: io.env,
        logStream: io.stderr,
        variantA,
        variantB,
        ...(portA === undefined ? {} : { portA }),
        ...(portB === undefined ? {} : { portB }),
        ...(variantA && { console: consoleOption(flags, portA) }),
      }));
      // The daemon's own logger knows its secrets (the token), so a crash report cannot carry them.
      host.useLogger(logger);
    } catch (error) {
      host.dispose();
      return reportErrorAsLog(error, logger, 'daemon', 'daemon_start_failed');
    }
    let ports;
    try {
      ports = await host.listen(daemon);
    } catch (error) {
      return reportListenErrorAsLog(error, logger);
    }
    if (pin !== undefined) logPin(finishPin(pin, resolveHome(io.env), ports.portA), logger);
    writeLine(io.stdout, JSON.stringify({ event: 'daemon_listening', pid: process.pid, port_a: ports.portA ?? null, port_b: ports.portB ?? null, port_console: ports.portConsole ?? null }));
    await host.untilStopped(daemon, stopTimeoutMs);
    return EXIT.ok;
  },
};

/** stopTimeoutFlag reads --stop-timeout (whole seconds) as milliseconds, or the default. */
function stopTimeoutFlag(flags: Flags): number {
  const value = flags['stop-timeout'];
  if (value === undefined) return DEFAULT_CLOSE_DEADLINE_MS;
  if (value === true || !/^[0-9]{1,3}$/.test(value) || Number(value) > STOP_TIMEOUT_SECONDS_MAX) {
    throw new UsageError(`--stop-timeout must be whole seconds from 0 to ${STOP_TIMEOUT_SECONDS_MAX}`);
  }
  return Number(value) * 1000;
}

/** reportListenErrorAsLog is reportListenError as one JSON log line. */
function reportListenErrorAsLog(error: unknown, logger: Logger): number {
  const listenError = error as NodeJS.ErrnoException & { port?: number; address?: string };
  const where = `${listenError.address ?? '127.0.0.1'}:${listenError.port ?? '?'}`;
  if (listenError.code === 'EADDRINUSE') {
    logger.error('daemon_start_failed', { code: 'port_in_use', message: `port ${listenError.port ?? '?'} on ${listenError.address ?? '127.0.0.1'} is already in use`, remedy: 'Stop the other process (is another latch daemon running?) or choose another port with --port-a / --port-b.', exit_code: EXIT.portInUse });
    return EXIT.portInUse;
  }
  if (typeof listenError.code === 'string' && listenError.syscall === 'listen') {
    logger.error('daemon_start_failed', { code: 'listen_failed', message: `cannot listen on ${where} (${listenError.code})`, exit_code: EXIT.listenFailed });
    return EXIT.listenFailed;
  }
  return reportErrorAsLog(error, logger, 'daemon', 'daemon_start_failed');
}

/** reportListenError explains a listen failure (port in use, cannot bind) and returns its exit code. */
export function reportListenError(error: unknown, io: CliIo, commandName = 'daemon'): number {
  const listenError = error as NodeJS.ErrnoException & { port?: number; address?: string };
  if (listenError.code === 'EADDRINUSE') {
    writeLine(io.stderr, `latch ${commandName}: port ${listenError.port ?? '?'} on ${listenError.address ?? '127.0.0.1'} is already in use. Stop the other process (is another latch daemon running?) or choose another port with --port-a / --port-b.`);
    return EXIT.portInUse;
  }
  if (typeof listenError.code === 'string' && typeof listenError.syscall === 'string' && listenError.syscall === 'listen') {
    writeLine(io.stderr, `latch ${commandName}: cannot listen on ${listenError.address ?? '127.0.0.1'}:${listenError.port ?? '?'} (${listenError.code}).`);
    return EXIT.listenFailed;
  }
  return reportError(error, io, commandName);
}
