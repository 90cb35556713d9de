/**
 * A second daemon on an existing data directory (usually a stack's enrolled home) with its own
 * environment, e.g. LATCH_CLOUD_URL pointing at a recording server or a hanging one.
 */
import { PassThrough } from 'node:stream';
import { createDaemon, type DaemonHandle } from '../../src/daemon/create-daemon.js';
import { readToken } from '../../src/datadir/token.js';
import { sendRaw, type RawResponse } from '../http/raw-client.js';
import { JsonClient } from './stack.js';

export interface ExtraDaemon {
  daemon: DaemonHandle;
  portA: number;
  /** Variant A with the token. */
  a: JsonClient;
  logs(): string;
  /** raw sends exactly this request line and these headers to Variant A (Host and token added). */
  raw(method: string, target: string, headers?: Array<[string, string]>, body?: string | Buffer): Promise<RawResponse>;
  close(): Promise<void>;
}

/** startExtraDaemon starts a daemon (Variant A only) on home with env. */
export async function startExtraDaemon(home: string, env: NodeJS.ProcessEnv): Promise<ExtraDaemon> {
  let logText = '';
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => (logText += chunk.toString()));
  const daemon = createDaemon({ home, portA: 0, variantB: false, env: { LATCH_HOME: home, ...env }, logStream });
  const ports = await daemon.listen();
  const portA = ports.portA as number;
  const token = () => readToken(home);
  return {
    daemon,
    portA,
    a: new JsonClient(`http://127.0.0.1:${portA}`, token),
    logs: () => logText,
    raw: (method, target, headers = [], body) =>
      sendRaw(portA, {
        method,
        target,
        headers: [['Host', `127.0.0.1:${portA}`], ['Authorization', `Bearer ${token()}`], ...headers],
        ...(body === undefined ? {} : { body }),
      }),
    close: () => daemon.close({ deadlineMs: 1000 }),
  };
}
