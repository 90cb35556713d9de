import { createDaemon, DEFAULT_CLOSE_DEADLINE_MS, DEFAULT_PORT_A, DEFAULT_PORT_B, type DaemonHandle } from '../../daemon/create-daemon.js';
import { resolveHome } from '../../datadir/home.js';
import { UsageError, writeLine, type CliIo, type Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { parseFlags, portFlag } from '../flags.js';
import { OWNER_ONLY_AGENT_OPTION, refuseAgentFlag, usageWithCommonOptions } from '../common-options.js';
import { stringFlag } from '../daemon-calls/command-args.js';
import { reportError } from '../report-error.js';
import { stopSignal } from '../stop-signal.js';

const USAGE = `Usage: latch daemon [--port-a N] [--port-b N] [--no-variant-a] [--no-variant-b]

Serves the local API on loopback until SIGTERM or SIGINT:
  Variant A (canonical)      127.0.0.1:${DEFAULT_PORT_A}  GET /health without a token, the rest with one
  Variant B (compatibility)  127.0.0.1:${DEFAULT_PORT_B}  every endpoint with the token

Options:
  --port-a N        Variant A's port (0 picks a free port)
  --port-b N        Variant B's port (0 picks a free port)
  --no-variant-a    do not serve Variant A
  --no-variant-b    do not serve Variant B

Once listening it prints one JSON line on stdout:
  {"event":"daemon_listening","pid":...,"port_a":N|null,"port_b":N|null}
Logs are JSON lines on stderr. The data directory is LATCH_HOME (default ~/.latch).

Exit codes: 0 stopped by a signal; 2 bad usage; 3 unsafe or broken data directory;
4 port in use; 5 could not listen; 1 anything else.`;

/** What --json means for a server whose stdout is JSON lines already. */
export const DAEMON_JSON_OPTION = '  --json         accepted: stdout already carries only the JSON line above';

const FLAGS = { 'port-a': 'value', 'port-b': 'value', 'no-variant-a': 'boolean', 'no-variant-b': 'boolean', json: 'boolean', agent: 'value' } as const;

/** `latch daemon` runs the daemon in the foreground until a stop signal. */
export const daemonCommand: Command = {
  name: 'daemon',
  summary: 'Run the local API (both listeners) in the foreground',
  usage: usageWithCommonOptions(USAGE, OWNER_ONLY_AGENT_OPTION, DAEMON_JSON_OPTION),
  async run(args, io) {
    let daemon: DaemonHandle;
    try {
      const flags = parseFlags(args, FLAGS);
      refuseAgentFlag('daemon', stringFlag(flags, 'agent'));
      const variantA = flags['no-variant-a'] !== true;
      const variantB = flags['no-variant-b'] !== true;
      if (!variantA && !variantB) throw new UsageError('--no-variant-a and --no-variant-b together leave nothing to serve');
      const portA = portFlag(flags, 'port-a');
      const portB = portFlag(flags, 'port-b');
      daemon = createDaemon({
        home: resolveHome(io.env),
        env: io.env,
        logStream: io.stderr,
        variantA,
        variantB,
        ...(portA === undefined ? {} : { portA }),
        ...(portB === undefined ? {} : { portB }),
      });
    } catch (error) {
      return reportError(error, io, 'daemon');
    }
    // Listening for signals before binding means a SIGTERM during startup still closes cleanly.
    const stop = stopSignal();
    let ports;
    try {
      ports = await daemon.listen();
    } catch (error) {
      stop.dispose();
      return reportListenError(error, io);
    }
    writeLine(io.stdout, JSON.stringify({ event: 'daemon_listening', pid: process.pid, port_a: ports.portA ?? null, port_b: ports.portB ?? null }));
    await stop.received;
    await daemon.close({ deadlineMs: DEFAULT_CLOSE_DEADLINE_MS });
    return EXIT.ok;
  },
};

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
