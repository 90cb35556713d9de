/**
 * A second daemon on a stack's enrolled data directory with shortened connection limits, so that
 * time limits can be seen to fire within a test (src/http/local-server.ts DEFAULT_SERVER_LIMITS
 * holds the real ones).
 */
import { PassThrough } from 'node:stream';
import { createDaemon, type DaemonHandle } from '../../src/daemon/create-daemon.js';
import type { ServerLimits } from '../../src/http/local-server.js';

export interface LimitedDaemon {
  daemon: DaemonHandle;
  portA: number;
  portB: number;
  logs(): string;
  close(): Promise<void>;
}

/** startLimitedDaemon starts both listeners on port 0 over home with these limits. */
export async function startLimitedDaemon(home: string, limits: Partial<ServerLimits>): Promise<LimitedDaemon> {
  let logText = '';
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => (logText += chunk.toString()));
  const daemon = createDaemon({ home, portA: 0, portB: 0, env: { LATCH_HOME: home }, logStream, limits });
  const ports = await daemon.listen();
  return {
    daemon,
    portA: ports.portA as number,
    portB: ports.portB as number,
    logs: () => logText,
    close: () => daemon.close({ deadlineMs: 1_000 }),
  };
}
