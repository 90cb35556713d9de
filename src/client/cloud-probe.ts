/**
 * Whether anything listens at the cloud's address (issue 44 item 4): when a server-backed call
 * fails as upstream_unavailable, `latch doctor` names the cloud URL the daemon uses and, when a
 * plain TCP connection to it is refused, says that nothing listens there, which "retry later"
 * does not fix.
 */
import net from 'node:net';
import { effectiveCloudUrl, loadConfig } from '../datadir/config.js';

const PROBE_TIMEOUT_MS = 2_000;

/** The daemon's cloud URL as this data directory configures it, or undefined when it cannot be read. */
export function configuredCloudUrl(home: string, env: NodeJS.ProcessEnv): string | undefined {
  try {
    return effectiveCloudUrl(loadConfig(home), env);
  } catch {
    return undefined;
  }
}

/** probeCloud says whether a TCP connection to the URL's host and port is refused, accepted, or neither in time. */
export function probeCloud(url: string): Promise<'refused' | 'listening' | 'unknown'> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve('unknown');
  }
  const port = Number(target.port !== '' ? target.port : target.protocol === 'https:' ? 443 : 80);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (answer: 'refused' | 'listening' | 'unknown') => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done('unknown'));
    socket.once('connect', () => done('listening'));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED' ? 'refused' : 'unknown'));
  });
}

/** cloudDownNote is the sentence doctor adds: the cloud URL, and that nothing listens there when so. */
export async function cloudDownNote(home: string, env: NodeJS.ProcessEnv): Promise<{ message: string; remedy?: string }> {
  const url = configuredCloudUrl(home, env);
  if (url === undefined) return { message: '' };
  const seen = await probeCloud(url);
  if (seen === 'refused') {
    return {
      message: ` The daemon's cloud is ${url} (config.json's cloud_url, or LATCH_CLOUD_URL), and nothing listens there: the connection is refused.`,
      remedy: `Start the cloud at ${url} (with the sandbox: latch sandbox, or latch start, which runs both), or point the daemon at the right one (latch setup --reconnect … --cloud URL); retrying does not help while nothing listens.`,
    };
  }
  return { message: ` The daemon's cloud is ${url}${seen === 'listening' ? ' (something listens there, so the fault is in its answers)' : ''}.` };
}
