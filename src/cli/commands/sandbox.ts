import path from 'node:path';
import { ensureHome, resolveHome } from '../../datadir/home.js';
import { createLogger } from '../../log/logger.js';
import { createSandbox } from '../../sandbox/create-sandbox.js';
import { DEFAULT_CLOSE_DEADLINE_MS } from '../../daemon/create-daemon.js';
import { writeLine, type Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { parseFlags, portFlag } from '../flags.js';
import { reportError } from '../report-error.js';
import { stopSignal } from '../stop-signal.js';
import { DAEMON_JSON_OPTION, reportListenError } from './daemon.js';
import { OWNER_ONLY_AGENT_OPTION, refuseAgentFlag, usageWithCommonOptions } from '../common-options.js';
import { stringFlag } from '../daemon-calls/command-args.js';

/** The sandbox cloud's default port for `latch sandbox` and `latch start`. */
export const DEFAULT_SANDBOX_PORT = 7780;

const USAGE = `Usage: latch sandbox [--port N] [--data-dir DIR]

Runs the sandbox cloud: a faithful, stateful stand-in for the cloud API (enrollment, cards,
wallet, authorizations, charge decisions), kept in an fsynced journal. Sandbox-only endpoints
under /v1/sandbox/ need the admin key written to DIR/admin_key (0600).

Options:
  --port N        port on 127.0.0.1 (default ${DEFAULT_SANDBOX_PORT}; 0 picks a free port)
  --data-dir DIR  journal and admin key (default $LATCH_HOME/sandbox)

Once listening it prints one JSON line {"cloud_url", "admin_key_path"} on stdout.`;

const FLAGS = { port: 'value', 'data-dir': 'value', json: 'boolean', agent: 'value' } as const;

/** `latch sandbox` runs the sandbox cloud in the foreground. */
export const sandboxCommand: Command = {
  name: 'sandbox',
  summary: 'Run the sandbox cloud (the embedded default) in the foreground',
  usage: usageWithCommonOptions(USAGE, OWNER_ONLY_AGENT_OPTION, DAEMON_JSON_OPTION),
  async run(args, io) {
    let dataDir: string;
    let port: number;
    try {
      const flags = parseFlags(args, FLAGS);
      refuseAgentFlag('sandbox', stringFlag(flags, 'agent'));
      port = portFlag(flags, 'port') ?? DEFAULT_SANDBOX_PORT;
      const home = resolveHome(io.env);
      if (typeof flags['data-dir'] === 'string') dataDir = path.resolve(flags['data-dir']);
      else {
        ensureHome(home);
        dataDir = path.join(home, 'sandbox');
      }
    } catch (error) {
      return reportError(error, io, 'sandbox');
    }
    const stop = stopSignal();
    const log = createLogger({ stream: io.stderr });
    let sandbox;
    try {
      sandbox = await createSandbox({ dataDir, port, log });
    } catch (error) {
      stop.dispose();
      return reportListenError(error, io, 'sandbox');
    }
    log.addSecret(sandbox.adminKey);
    writeLine(io.stdout, JSON.stringify({ cloud_url: sandbox.url, admin_key_path: sandbox.adminKeyPath }));
    await stop.received;
    // Within the daemon's stop deadline: a client trickling a request must not keep it alive.
    await sandbox.close({ deadlineMs: DEFAULT_CLOSE_DEADLINE_MS });
    return EXIT.ok;
  },
};
