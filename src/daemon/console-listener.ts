/**
 * The owner console's listener (docs/decisions.md §25, §29.2): the one front door, with the
 * console's rules (its Origin, its cookie session, passkeys), in front of one table of the
 * console's pages, its own routes and Variant A's routes, served beside Variant A. Its port may
 * come from config.json, so the listener is made only once listen() has checked the data directory.
 */
import { CONSOLE_SECURITY_HEADERS, consoleOrigin, cookieValues } from '../console/console-headers.js';
import { provePasskey } from '../console/presence-proof.js';
import { consoleTable } from '../console/console-table.js';
import { LatchError } from '../errors/latch-error.js';
import { createFrontDoor } from '../http/front-door.js';
import { createLocalServer, type LocalServer, type ServerLimits } from '../http/local-server.js';
import type { Route } from '../http/route.js';
import { Router } from '../http/router.js';
import { bindConsole, type ConsoleBinding } from './console-binding.js';
import { DEFAULT_PORT_CONSOLE } from './daemon-listeners.js';
import type { CoreBinding } from './core-binding.js';
import type { DaemonServices } from './services.js';

/** The console's binding, and how to make its listener once config.json may be read. */
export interface ConsoleListener {
  binding: ConsoleBinding;
  makeServer(): LocalServer;
}

/** What the console's listener is made from. */
export interface ConsoleListenerInputs {
  services: DaemonServices;
  core: CoreBinding;
  /** Variant A's routes: the console calls them as the owner. */
  routesA: Route[];
  /** The port asked for; absent, config.json's console_port, else DEFAULT_PORT_CONSOLE. */
  port: number | undefined;
  /** The console's bound port (0 before it is bound): its origin, checked on every request. */
  boundPort: () => number;
  ready: Promise<void>;
  limits: Partial<ServerLimits>;
}

/** consoleListener binds the console to one daemon and says how to make its listener. */
export function consoleListener(inputs: ConsoleListenerInputs): ConsoleListener {
  const { services, core, limits, ready } = inputs;
  const binding = bindConsole(services, core, inputs.boundPort);
  const frontDoor = createFrontDoor({
    listener: 'console',
    router: new Router(consoleTable(binding.deps, inputs.routesA)),
    // No bearer is a credential here: the console's is the session cookie with its CSRF header.
    credentials: () => [],
    presence: core.presence,
    log: services.logger,
    browser: {
      origin: consoleOrigin,
      sessions: binding.sessions,
      cookieValues,
      provePasskey: (assertion, route, params) => provePasskey(binding.deps, assertion, route, params),
      answerHeaders: CONSOLE_SECURITY_HEADERS,
    },
  });
  // Its port may come from config.json, which is read only once listen() has checked the directory.
  const makeServer = () =>
    createLocalServer({ listener: 'console', port: inputs.port ?? services.config().console_port ?? DEFAULT_PORT_CONSOLE, frontDoor, log: services.logger, ready, limits });
  return { binding, makeServer };
}

/**
 * consoleLoginLink answers A's POST /console/login-code: a one-time code in a link to the console
 * on its bound port, or not_found when this daemon has no console.
 */
export function consoleLoginLink(binding: ConsoleBinding | undefined, port: number): { url: string; expires_at: string } {
  if (binding === undefined) throw new LatchError('not_found', { message: 'The owner console is off on this daemon (started with --no-console).' });
  const { code, expiresMs } = binding.sessions.issueCode();
  return { url: `${consoleOrigin(port)}/login#${code}`, expires_at: new Date(expiresMs).toISOString().replace(/\.\d{3}Z$/, 'Z') };
}
