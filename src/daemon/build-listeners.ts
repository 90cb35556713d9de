/**
 * The listeners of one daemon, made but not bound: Variant A and Variant B, each behind its own
 * front door with one shared credential set, and the owner console beside A. Nothing here touches
 * the disk or the network.
 */
import { createFrontDoor } from '../http/front-door.js';
import { createLocalServer, DEFAULT_SERVER_LIMITS, type LocalServer, type ServerLimits } from '../http/local-server.js';
import type { Route } from '../http/route.js';
import { Router } from '../http/router.js';
import { connectionsMaxFor } from '../runtime/descriptor-budget.js';
import { readProcessLimits, type LimitValue } from '../runtime/process-limits.js';
import { variantARoutes } from '../variant-a/routes.js';
import { variantBRoutes } from '../variant-b/routes.js';
import type { ConsoleBinding } from './console-binding.js';
import { consoleListener, consoleLoginLink } from './console-listener.js';
import type { CoreBinding } from './core-binding.js';
import type { Credentials } from './credentials.js';
import { DaemonListeners } from './daemon-listeners.js';
import type { DirectoryRegistrar } from './identity-registration.js';
import { daemonCredentials, listenerDeps, proofKeyFor, proofTokenFor } from './listener-deps.js';
import type { DaemonServices } from './services.js';

/** Which listeners to serve and on which ports (createDaemon's options with defaults applied). */
export interface ListenerChoices {
  serveA: boolean;
  serveB: boolean;
  portA: number;
  portB: number;
  /** Present: the console is served beside A (its port absent: config.json's, else the default). */
  console: { port?: number } | undefined;
}

/** What buildListeners made: the listeners, the console's (made at listen()), the registrar. */
export interface ListenerPlan {
  listeners: DaemonListeners;
  /** Adds the console's listener; call once listen() has checked the data directory. */
  addConsole: (() => void) | undefined;
  /** Keeps the cloud's copy of the agents' key directory (docs/decisions.md §23.6). */
  registrar: DirectoryRegistrar;
}

/** buildListeners makes the listeners of one daemon; every request on them waits on `ready`. */
export function buildListeners(services: DaemonServices, core: CoreBinding, choices: ListenerChoices, serving: { ready: Promise<void>; limits: Partial<ServerLimits> }): ListenerPlan {
  // One credential set for both listeners: an agent's last use is one record.
  const credentials = daemonCredentials(services);
  const listeners = new DaemonListeners();
  // The console answers A's POST /console/login-code; it exists once A's table does (it calls A's routes).
  let ownerConsole: ConsoleBinding | undefined;
  const deps = listenerDeps(services, core, () => consoleLoginLink(ownerConsole, listeners.consolePort()));
  const routesA = variantARoutes(deps.a);
  const variant = { services, core, credentials, ...serving };
  if (choices.serveA) listeners.add('a', variantListener(variant, 'a', choices.portA, routesA));
  let addConsole: (() => void) | undefined;
  if (choices.serveA && choices.console !== undefined) {
    const made = consoleListener({ services, core, routesA, port: choices.console.port, boundPort: () => listeners.consolePort(), ...serving });
    ownerConsole = made.binding;
    addConsole = () => listeners.add('console', made.makeServer());
  }
  if (choices.serveB) listeners.add('b', variantListener(variant, 'b', choices.portB, variantBRoutes(deps.b)));
  return { listeners, addConsole, registrar: deps.registrar };
}

/** What a variant's listener is made from. */
interface VariantInputs {
  services: DaemonServices;
  core: CoreBinding;
  credentials: Credentials;
  ready: Promise<void>;
  limits: Partial<ServerLimits>;
}

/** variantListener puts one variant's route table behind its own front door on a loopback listener. */
function variantListener(inputs: VariantInputs, name: 'a' | 'b', port: number, routes: Route[]): LocalServer {
  const { services, credentials } = inputs;
  const log = services.logger;
  const router = new Router(routes);
  // Variant A's public /health is where clients check the daemon's identity (daemon-proof.ts).
  const proofs = name === 'a' ? { proofs: { token: proofTokenFor(services, credentials), key: proofKeyFor(inputs.core.signer) } } : {};
  const frontDoor = createFrontDoor({ listener: name, router, credentials: credentials.list, noteCaller: credentials.noteUse, presence: inputs.core.presence, log, ...proofs });
  return createLocalServer({
    listener: name,
    port,
    frontDoor,
    log,
    ready: inputs.ready,
    limits: inputs.limits,
  });
}

/** Each listener's connection cap, the cap asked for, and the open-files limit that set it. */
export interface ConnectionBudget {
  connectionsMax: number;
  wanted: number;
  openFiles: LimitValue;
}

/**
 * connectionBudget lowers the connection cap asked for (default 256) when `ulimit -n` cannot hold
 * it on every listener (runtime/descriptor-budget.ts).
 */
export function connectionBudget(choices: ListenerChoices, limits: Partial<ServerLimits> | undefined): ConnectionBudget {
  const wanted = limits?.connectionsMax ?? DEFAULT_SERVER_LIMITS.connectionsMax;
  const openFiles = readProcessLimits().openFiles;
  const listenerCount = (choices.serveA ? 1 : 0) + (choices.serveB ? 1 : 0) + (choices.serveA && choices.console !== undefined ? 1 : 0);
  return { connectionsMax: connectionsMaxFor(openFiles, listenerCount, wanted), wanted, openFiles };
}
