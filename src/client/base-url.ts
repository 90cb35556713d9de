import { isLoopbackName } from '../http/loopback.js';

/** The daemon's default address: Variant A, the canonical listener (docs/decisions.md §2). */
export const DEFAULT_DAEMON_URL = 'http://127.0.0.1:7723';

/** The environment variable that points clients (CLI, MCP bridge, embedders) at another daemon address. */
export const DAEMON_URL_ENV = 'LATCH_URL';


/**
 * daemonOrigin returns the normalized origin of a daemon URL, or undefined when it is unusable.
 * Only plain http to a loopback name with nothing but an optional port is accepted: the client
 * sends the daemon token with every request, and a URL pointing anywhere else would hand that
 * token to another machine (the daemon itself listens on loopback only). `localhost` becomes
 * 127.0.0.1: what a name resolves to is not ours to decide, and where it resolves to ::1 first
 * the client would reach whatever holds [::1] on that port rather than the daemon.
 */
export function daemonOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || !isLoopbackName(url.hostname)) return undefined;
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return undefined;
  if (url.pathname !== '/' || text.includes('?') || text.includes('#')) return undefined;
  return url.hostname === 'localhost' ? `http://127.0.0.1${url.port === '' ? '' : `:${url.port}`}` : url.origin;
}

/** DaemonUrlError is an unusable daemon URL (a configuration mistake, not a daemon failure). */
export class DaemonUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DaemonUrlError';
  }
}

/**
 * resolveDaemonUrl picks the daemon origin: the explicit option, else LATCH_URL, else where the
 * running daemon of this data directory says it listens (`discovered`, from listen.json:
 * docs/decisions.md §19), else http://127.0.0.1:7723. An unusable value throws a DaemonUrlError
 * naming where it came from, rather than silently falling back to the default.
 */
export function resolveDaemonUrl(option: string | undefined, env: NodeJS.ProcessEnv, discovered: () => string | undefined = () => undefined): string {
  const fromEnv = env[DAEMON_URL_ENV];
  const found = option === undefined && (fromEnv === undefined || fromEnv === '') ? discovered() : undefined;
  const [text, source] =
    option !== undefined ? [option, 'baseUrl'] : fromEnv !== undefined && fromEnv !== '' ? [fromEnv, DAEMON_URL_ENV] : found !== undefined ? [found, 'listen.json'] : [DEFAULT_DAEMON_URL, 'default'];
  const origin = daemonOrigin(text);
  if (origin === undefined) {
    throw new DaemonUrlError(`${source} must be an http URL on 127.0.0.1, localhost or [::1] with an optional port and no path, like ${DEFAULT_DAEMON_URL}`);
  }
  return origin;
}
