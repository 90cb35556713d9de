import path from 'node:path';
import { createDaemonWithLogger, DEFAULT_CLOSE_DEADLINE_MS, DEFAULT_PORT_A, DEFAULT_PORT_B, DEFAULT_PORT_CONSOLE } from '../../daemon/create-daemon.js';
import { CONSOLE_FLAGS, consoleOption } from '../console-flags.js';
import { writeFileAtomic } from '../../datadir/atomic-file.js';
import { loadConfig } from '../../datadir/config.js';
import { ensureHome, resolveHome, SANDBOX_NOTE } from '../../datadir/home.js';
import { lockDataDir, type DaemonLock } from '../../datadir/daemon-lock.js';
import { assertDataDirSecure } from '../../datadir/permissions.js';
import { tokenPath } from '../../datadir/token.js';
import { createLogger } from '../../log/logger.js';
import { bannerText } from '../../quickstart/banner.js';
import { latchInvocation } from '../../quickstart/latch-invocation.js';
import { adminApi, createDemoAccount } from '../../quickstart/sandbox-account.js';
import { startQuickStartSandbox, type QuickStartSandbox } from '../../sandbox/sandbox-thread.js';
import { UsageError, writeLine, type Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { parseFlags, portFlag } from '../flags.js';
import { assertPortsFree } from '../port-probe.js';
import { enrolledLine, enrollThisDevice } from '../enroll-this-device.js';
import { reportError } from '../report-error.js';
import { hostDaemonProcess } from '../daemon-host.js';
import { DEFAULT_SANDBOX_PORT } from './sandbox.js';
import { becomeServiceUserOrExplain, finishPin, reportListenError } from './daemon.js';
import { OWNER_ONLY_AGENT_OPTION, refuseAgentFlag, usageWithCommonOptions } from '../common-options.js';
import { stringFlag } from '../daemon-calls/command-args.js';

const USAGE = `Usage: latch start [--port-a N] [--port-b N] [--sandbox-port N] [--user NAME]

The quick start (npm start): runs the sandbox cloud and the daemon together. On the first run it
creates a sandbox account (two frozen cards with balances, wallet funds), makes a setup token and
enrolls this device with 'latch setup' exactly as a user would. It writes $LATCH_HOME/sandbox.json
with cloud_url and the admin key's path, prints the ports and copy-paste curl commands, and reuses
the same state when run again. The sandbox runs on a thread of its own (two cores for the two
servers); it is one process all the same, and Ctrl-C stops both.

Options:
  --port-a N        Variant A's port (default ${DEFAULT_PORT_A})
  --port-b N        Variant B's port (default ${DEFAULT_PORT_B})
  --sandbox-port N  the sandbox cloud's port (default ${DEFAULT_SANDBOX_PORT}; it is part of the
                    enrolled cloud_url, so keep it the same between runs)
  --user NAME       (root only) run as the user NAME: create LATCH_HOME (0700, owned by NAME)
                    if missing, refuse one owned by anyone else, then drop supplementary groups,
                    gid and uid to NAME before reading any data file or opening a port
  --port-console N  the owner console's port (default ${DEFAULT_PORT_CONSOLE}; see latch console)
  --no-console      do not serve the owner console

It hosts the daemon exactly as latch daemon does: SIGTERM, SIGINT and SIGHUP stop it and the
sandbox within ${DEFAULT_CLOSE_DEADLINE_MS / 1000} s, and the process exits by then whatever still holds it (a second
signal exits at once); SIGUSR1 is logged and never opens the inspector.

Exit codes: 0 stopped by a signal; 2 bad usage; 3 unsafe data directory, or another daemon already
serves it (named); 4 port in use; 5 could not listen; 1 anything else.`;

const FLAGS = { 'port-a': 'value', 'port-b': 'value', 'sandbox-port': 'value', json: 'boolean', agent: 'value', user: 'value', ...CONSOLE_FLAGS } as const;

/** `latch start` is the quick start: sandbox + enrollment + daemon. */
export const startCommand: Command = {
  name: 'start',
  summary: 'Quick start: the sandbox cloud and the daemon together, enrolled and ready',
  usage: usageWithCommonOptions(USAGE, OWNER_ONLY_AGENT_OPTION, '  --json         print only the JSON line {"event":"latch_started", ...}, not the tour'),
  async run(args, io) {
    // The same guards as latch daemon from the first moment: signals, the inspector, crashes.
    const host = hostDaemonProcess(createLogger({ stream: io.stderr }));
    let sandbox: QuickStartSandbox | undefined;
    let dataDirLock: DaemonLock | undefined;
    try {
      const flags = parseFlags(args, FLAGS);
      refuseAgentFlag('start', stringFlag(flags, 'agent'));
      const json = flags['json'] === true;
      // With --json stdout carries the one JSON line; the words for people are left out.
      const say = (line: string): void => {
        if (!json) writeLine(io.stdout, line);
      };
      const portA = portFlag(flags, 'port-a') ?? DEFAULT_PORT_A;
      const portB = portFlag(flags, 'port-b') ?? DEFAULT_PORT_B;
      const sandboxPort = portFlag(flags, 'sandbox-port') ?? DEFAULT_SANDBOX_PORT;
      // Before anything is read or bound: the rest runs as the service user (docs/decisions.md §21).
      const pin = typeof flags['user'] === 'string' ? becomeServiceUserOrExplain(flags['user'], io.env) : undefined;
      const ownerConsole = consoleOption(flags, portA);
      const home = resolveHome(io.env);
      // A daemon serving this directory already holds the ports: name it (exit 3), as latch daemon
      // does, before the port probe; the lock itself is taken once the directory is there, below.
      host.refuseSecondDaemon(home);
      try {
        // Before anything is created: a busy port must not leave an account or enrollment behind.
        await assertPortsFree([portA, portB, sandboxPort, ...(ownerConsole === undefined ? [] : [ownerConsole.port ?? DEFAULT_PORT_CONSOLE])]);
      } catch (error) {
        host.dispose();
        return reportListenError(error, io, 'start');
      }
      ensureHome(home);
      assertDataDirSecure(home);
      // Held from here, before the sandbox and the enrollment, until the process is done: a second
      // start while this one is still setting up is refused (exit 3) instead of opening a second
      // sandbox on the same journal. The daemon below takes the same lock again; locks taken in one
      // process are shared, so it is one lock with two holders (daemon-lock.ts).
      dataDirLock = lockDataDir(home);
      const config = loadConfig(home);
      try {
        // On its own thread: a crash there is this process's crash, as it was on one thread.
        sandbox = await startQuickStartSandbox({
          dataDir: path.join(home, 'sandbox'),
          port: sandboxPort,
          log: createLogger({ stream: io.stderr }),
          onUnexpectedExit: (reason) => host.crash(new Error(`the sandbox thread stopped: ${reason}`)),
        });
      } catch (error) {
        host.dispose();
        return reportListenError(error, io, 'start');
      }
      writeFileAtomic(path.join(home, SANDBOX_NOTE), `${JSON.stringify({ cloud_url: sandbox.url, admin_key_path: sandbox.adminKeyPath }, null, 2)}\n`);
      if (config.device_id !== undefined && config.cloud_url !== sandbox.url) {
        throw new UsageError(`this data directory is enrolled with ${config.cloud_url ?? 'another cloud'}, not the sandbox at ${sandbox.url}; use another LATCH_HOME (or the same --sandbox-port as before)`);
      }
      // A sandbox whose journal was removed no longer knows the enrolled device: start over with
      // a new account and reconnect, rather than serve a daemon whose every call fails.
      const known = config.device_id !== undefined && (await sandbox.knowsDevice(config.device_id));
      if (!known) {
        const account = await createDemoAccount(adminApi(sandbox.url, sandbox.adminKey));
        const reconnect = config.device_id !== undefined;
        if (!reconnect) {
          say(`Created sandbox account ${account.accountId} with two cards and wallet funds; enrolling this device with latch setup…`);
        } else {
          say(`The sandbox no longer knows device ${config.device_id}; created sandbox account ${account.accountId} and reconnecting with latch setup --reconnect…`);
        }
        try {
          // The same workflow as `latch setup --token … --cloud <sandbox> [--reconnect]`.
          const enrolled = await enrollThisDevice({ home, env: io.env, setupToken: account.setupToken, cloudUrl: sandbox.url, reconnect });
          say(enrolledLine(enrolled));
        } catch (error) {
          await sandbox.close({ deadlineMs: DEFAULT_CLOSE_DEADLINE_MS });
          host.dispose();
          return reportError(error, io, 'setup');
        }
      }
      const { daemon, logger: daemonLogger } = createDaemonWithLogger({
        home,
        env: io.env,
        logStream: io.stderr,
        portA,
        portB,
        ...(ownerConsole !== undefined && { console: ownerConsole }),
      });
      host.useLogger(daemonLogger);
      let ports;
      try {
        ports = await host.listen(daemon);
      } catch (error) {
        await sandbox.close({ deadlineMs: DEFAULT_CLOSE_DEADLINE_MS });
        return reportListenError(error, io, 'start');
      }
      const firstCardId = await sandbox.firstCard(loadConfig(home).account_id);
      writeLine(io.stdout, JSON.stringify({ event: 'latch_started', port_a: ports.portA, port_b: ports.portB, port_console: ports.portConsole ?? null, cloud_url: sandbox.url, sandbox_thread: sandbox.thread }));
      const homeIsDefault = home === resolveHome({});
      const banner = { portA: ports.portA as number, portB: ports.portB as number, cloudUrl: sandbox.url, tokenPath: tokenPath(home), adminKeyPath: sandbox.adminKeyPath, firstCardId };
      say(bannerText({ ...banner, home, homeIsDefault, latchCommand: latchInvocation(), consolePort: ports.portConsole ?? null }));
      if (pin !== undefined) say(pinnedLine(finishPin(pin, home, ports.portA)));
      // The sandbox closes within what is left of the same deadline: a client holding a connection
      // to it open (trickling a request) must not keep the process alive (docs/decisions.md §27.5).
      const running = sandbox;
      await host.untilStopped(daemon, DEFAULT_CLOSE_DEADLINE_MS, (remainingMs) => running.close({ deadlineMs: remainingMs }));
      // The stop's deadline holds for the process too: whatever handle is still open (a peer's
      // socket, a timer) does not keep it past the deadline (issue 44 item 9).
      if (io.stdout === process.stdout) exitByStopDeadline(EXIT.ok);
      return EXIT.ok;
    } catch (error) {
      host.dispose();
      await sandbox?.close({ deadlineMs: DEFAULT_CLOSE_DEADLINE_MS });
      return reportError(error, io, 'start');
    } finally {
      // After the sandbox is closed: until its journal is, another start must not open it.
      dataDirLock?.release();
    }
  },
};

/** pinnedLine tells root what the owners' pin of --user now holds, and the owner's next step. */
function pinnedLine(result: { file: string; key_id: string } | { error: string }): string {
  if ('error' in result) return `Not pinned for the owners: ${result.error}.`;
  return `Pinned this daemon (key ${result.key_id}) for every account in ${result.file}. Next, from the owner's own account without sudo: latch doctor, then latch approvals (docs/separate-user.md).`;
}

/**
 * exitByStopDeadline ends the process a short moment after a graceful stop if nothing else has:
 * the stop already closed every server, so what remains (a keep-alive socket, a timer) must not
 * keep it. Unreferenced, so a process that ends on its own ends at once. Only when the command
 * owns the process (its output is the process's), never under the tests' in-process runner.
 */
function exitByStopDeadline(code: number): void {
  setTimeout(() => process.exit(code), STOPPED_EXIT_GRACE_MS).unref();
}

/** How long a stopped process may take to end by itself before it is ended. */
const STOPPED_EXIT_GRACE_MS = 500;
