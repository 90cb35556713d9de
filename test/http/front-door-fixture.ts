import { noPresenceFactor } from '../support/owner-presence.js';
import { OWNER } from '../../src/core/principal.js';
import { LatchError } from '../../src/errors/latch-error.js';
import type { EventLog } from '../../src/http/event-log.js';
import { createFrontDoor } from '../../src/http/front-door.js';
import { createLocalServer, type LocalServer, type ServerLimits } from '../../src/http/local-server.js';
import type { Route } from '../../src/http/route.js';
import { Router } from '../../src/http/router.js';
import { isJsonObject } from '../../src/json/parse-json.js';

/** CaptureLog keeps every log line as JSON text, so tests can assert what never appears. */
export class CaptureLog implements EventLog {
  readonly lines: string[] = [];
  info(event: string, fields: Record<string, unknown> = {}): void {
    this.lines.push(JSON.stringify({ level: 'info', event, ...fields }));
  }
  warn(event: string, fields: Record<string, unknown> = {}): void {
    this.lines.push(JSON.stringify({ level: 'warn', event, ...fields }));
  }
  error(event: string, fields: Record<string, unknown> = {}): void {
    this.lines.push(JSON.stringify({ level: 'error', event, ...fields }));
  }
  text(): string {
    return this.lines.join('\n');
  }
}

/** A test token of the real shape (43 base64url characters). */
export const TEST_TOKEN = 'tEsT_tOkEn-0123456789abcdefghijklmnopqrstuv';

export interface Fixture {
  server: LocalServer;
  port: number;
  log: CaptureLog;
  /** Releases the requests parked on GET /slow. */
  releaseSlow(): void;
  /** Signals seen by GET /hang handlers. */
  hangSignals: AbortSignal[];
  /** How many times any handler ran. */
  handlerRuns: { count: number };
}

/** startFixture starts a front door with test routes on an ephemeral loopback port. */
export async function startFixture(limits: Partial<ServerLimits> = {}): Promise<Fixture> {
  const log = new CaptureLog();
  const handlerRuns = { count: 0 };
  let release: () => void = () => undefined;
  let slowGate = new Promise<void>((resolve) => (release = resolve));
  const hangSignals: AbortSignal[] = [];
  const counted = (route: Route): Route => ({
    ...route,
    handler: (context) => {
      handlerRuns.count++;
      return route.handler(context);
    },
  });
  const table: Route[] = [
    { method: 'GET', pattern: '/health', access: 'public', handler: () => ({ status: 200, body: { status: 'ok' } }) },
    { method: 'GET', pattern: '/private', access: 'agents', handler: () => ({ status: 200, body: { ok: true } }) },
    { method: 'DELETE', pattern: '/private', access: 'agents', handler: () => ({ status: 200, body: { deleted: true } }) },
    {
      method: 'POST',
      pattern: '/echo',
      access: 'agents',
      handler: (context) => ({ status: 200, body: { keys: isJsonObject(context.body) ? Object.keys(context.body) : [], bytes: context.rawBody.byteLength, sawAuthorization: context.headers['authorization'] !== undefined } }),
    },
    { method: 'POST', pattern: '/big', access: 'agents', bodyBytesMax: 1024 * 1024, handler: (context) => ({ status: 200, body: { bytes: context.rawBody.byteLength } }) },
    { method: 'GET', pattern: '/cards/:card_id', access: 'agents', handler: (context) => ({ status: 200, body: { card_id: context.params['card_id'] } }) },
    {
      method: 'GET',
      pattern: '/boom',
      access: 'agents',
      handler: () => {
        throw new Error(`database said: secret-detail ${TEST_TOKEN}`);
      },
    },
    { method: 'GET', pattern: '/latch-error', access: 'agents', handler: () => Promise.reject(new LatchError('card_not_found')) },
    { method: 'GET', pattern: '/cors', access: 'agents', handler: () => ({ status: 200, body: {}, headers: { 'Access-Control-Allow-Origin': '*', 'x-kept': 'yes' } }) },
    {
      method: 'GET',
      pattern: '/slow',
      access: 'agents',
      handler: async () => {
        await slowGate;
        return { status: 200, body: { slow: true } };
      },
    },
    {
      method: 'GET',
      pattern: '/hang',
      access: 'agents',
      handler: (context) => {
        hangSignals.push(context.signal);
        return new Promise(() => undefined);
      },
    },
  ];
  const routes = table.map(counted);
  const frontDoor = createFrontDoor({ listener: 'test', router: new Router(routes), credentials: () => [{ token: TEST_TOKEN, principal: OWNER }], presence: noPresenceFactor(), log });
  const server = createLocalServer({ listener: 'test', port: 0, frontDoor, log, limits });
  const port = await server.listen();
  return {
    server,
    port,
    log,
    hangSignals,
    handlerRuns,
    releaseSlow: () => {
      release();
      slowGate = new Promise<void>((resolve) => (release = resolve));
    },
  };
}
