/**
 * The console session's idle time through the real front door, on a clock the test moves: only a
 * request that passes the CSRF check keeps a session alive. A page on another localhost port can
 * make the browser send the cookie (an <img>, a link), never the CSRF header, so its requests, and
 * loads of the public pages, must not hold a session open past its 15 idle minutes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createConsoleSessions, SESSION_IDLE_SECONDS } from '../../src/console/console-sessions.js';
import { CONSOLE_SECURITY_HEADERS, consoleOrigin, cookieValues } from '../../src/console/console-headers.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { createFrontDoor } from '../../src/http/front-door.js';
import { createLocalServer, type LocalServer } from '../../src/http/local-server.js';
import { Router } from '../../src/http/router.js';
import { createLogger } from '../../src/log/logger.js';
import { noPresenceFactor } from '../support/owner-presence.js';
import { errorCode, sendRaw } from '../http/raw-client.js';

describe('console session idle time', () => {
  let now = 0;
  const sessions = createConsoleSessions(() => now);
  let server: LocalServer;
  let port = 0;

  before(async () => {
    const router = new Router([
      { method: 'GET', pattern: '/approvals', access: 'public', handler: () => ({ status: 200, body: { page: true } }) },
      { method: 'GET', pattern: '/console/api/session', access: 'owner', handler: () => ({ status: 200, body: { ok: true } }) },
    ]);
    const frontDoor = createFrontDoor({
      listener: 'console',
      router,
      credentials: () => [],
      presence: noPresenceFactor(),
      log: createLogger({ level: 'silent' }),
      browser: {
        origin: consoleOrigin,
        sessions,
        cookieValues,
        provePasskey: () => Promise.reject(new LatchError('passkey_not_verified')),
        answerHeaders: CONSOLE_SECURITY_HEADERS,
      },
    });
    server = createLocalServer({ listener: 'console', port: 0, frontDoor, log: createLogger({ level: 'silent' }) });
    port = await server.listen();
  });
  after(async () => server?.close(0));

  const get = (target: string, headers: Record<string, string>) =>
    sendRaw(port, { method: 'GET', target, headers: Object.entries({ host: `localhost:${port}`, ...headers }) });

  test("a cross-port page's <img> loads and public page loads (cookie, no CSRF header) do not keep the session alive past its idle timeout", async () => {
    now = 0;
    const login = sessions.login(sessions.issueCode().code);
    assert.ok(login !== undefined);
    const cookie = `__Host-latch_console=${login.cookie}`;
    // Every ten minutes, for an hour: an <img> on another port's page and a load of a public page.
    for (let minute = 10; minute < SESSION_IDLE_SECONDS / 60; minute += 10) {
      now = minute * 60_000;
      const image = await get('/console/api/session', { cookie, 'sec-fetch-site': 'same-site' });
      assert.equal(image.status, 403);
      assert.equal(errorCode(image), 'console_csrf_invalid');
      assert.equal((await get('/approvals', { cookie })).status, 200);
    }
    now = SESSION_IDLE_SECONDS * 1000;
    const after = await get('/console/api/session', { cookie, 'x-latch-csrf': login.csrf });
    assert.equal(after.status, 401, 'requests without the CSRF header kept the session alive');
    assert.equal(errorCode(after), 'console_login_required');
  });

  test("the session's own page, with the CSRF header, keeps it alive", async () => {
    now = 0;
    const login = sessions.login(sessions.issueCode().code);
    assert.ok(login !== undefined);
    const headers = { cookie: `__Host-latch_console=${login.cookie}`, 'x-latch-csrf': login.csrf };
    for (let minute = 10; minute <= 60; minute += 10) {
      now = minute * 60_000;
      assert.equal((await get('/console/api/session', headers)).status, 200, `at minute ${minute}`);
    }
  });
});
