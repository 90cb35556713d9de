/**
 * The listeners of one daemon, in the order they bind (A, B, then the console), with the ports
 * they bound: listen, close and list their addresses as one.
 */
import type { LocalServer } from '../http/local-server.js';

/** The owner console's default port (spec owner-console §1). */
export const DEFAULT_PORT_CONSOLE = 7724;

/** The daemon's listeners: Variant A, Variant B and the owner console. */
export type ListenerName = 'a' | 'b' | 'console';

/** The ports actually bound, for the listeners that are enabled. */
export interface DaemonPorts {
  portA?: number;
  portB?: number;
  portConsole?: number;
}

/** DaemonListeners holds one daemon's listeners and the ports they bound. */
export class DaemonListeners {
  private readonly listeners: Array<{ name: ListenerName; server: LocalServer }> = [];
  /**
   * The ports bound so far. They stay after close(): a request that finishes during the stop still
   * knows the console's origin.
   */
  private readonly ports: DaemonPorts = {};

  add(name: ListenerName, server: LocalServer): void {
    this.listeners.push({ name, server });
  }

  /** listen binds each listener in turn; on a failure the ones bound stay bound (close them). */
  async listen(): Promise<DaemonPorts> {
    const ports: DaemonPorts = {};
    for (const { name, server } of this.listeners) {
      const port = await server.listen();
      if (name === 'a') ports.portA = this.ports.portA = port;
      else if (name === 'b') ports.portB = this.ports.portB = port;
      else ports.portConsole = this.ports.portConsole = port;
    }
    return ports;
  }

  /** consolePort is the console's bound port, or 0 before it is bound. */
  consolePort(): number {
    return this.ports.portConsole ?? 0;
  }

  /** close closes every listener, letting in-flight requests finish within deadlineMs. */
  close(deadlineMs: number): Promise<void> {
    return Promise.all(this.listeners.map((l) => l.server.close(deadlineMs))).then(() => undefined);
  }

  /** addresses lists the bound address of each listening listener. */
  addresses(): Array<{ listener: ListenerName; address: string; port: number }> {
    return this.listeners.flatMap(({ name, server }) => {
      const bound = server.address();
      return bound === undefined ? [] : [{ listener: name, ...bound }];
    });
  }
}
