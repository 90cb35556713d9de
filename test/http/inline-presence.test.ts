/**
 * The passphrase sent with a request, through the real front door: wherever it travels (the JSON
 * body, the Latch-Owner-Passphrase header, the console's Latch-Owner-Presence header) it is bounded
 * the same way, and an empty or oversized one is 400 before the lockout sees it, so it never counts
 * as an attempt; with no factor configured neither header is parsed at all.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CONSOLE_SECURITY_HEADERS, consoleOrigin, cookieValues } from '../../src/console/console-headers.js';
import { createConsoleSessions } from '../../src/console/console-sessions.js';
import type { OwnerPresence } from '../../src/owner/owner-presence.js';
import { OWNER } from '../../src/core/principal.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { createFrontDoor } from '../../src/http/front-door.js';
import { PASSPHRASE_CHARS_MAX } from '../../src/http/inline-presence.js';
import { createLocalServer, type LocalServer } from '../../src/http/local-server.js';
import { Router } from '../../src/http/router.js';
import { createLogger } from '../../src/log/logger.js';
import { noPresenceFactor, passphrasePresence } from '../support/owner-presence.js';
import { errorCode, sendRaw, type RawResponse } from './raw-client.js';

const PASSPHRASE = 'correct horse battery staple';
const TOKEN = 'O'.repeat(43);
const presenceHeader = (proof: unknown): string => Buffer.from(JSON.stringify(proof)).toString('base64url');

interface Door {
  server: LocalServer;
  port: number;
  send(headers: Record<string, string>, body?: string): Promise<RawResponse>;
}

/** startDoor serves one owner_present route, on A's rules or the console's. */
async function startDoor(presence: OwnerPresence, consoleRules: boolean): Promise<Door> {
  const sessions = createConsoleSessions();
  const login = sessions.login(sessions.issueCode().code);
  assert.ok(login !== undefined);
  const frontDoor = createFrontDoor({
    listener: consoleRules ? 'console' : 'a',
    router: new Router([{ method: 'POST', pattern: '/resume', access: 'owner_present', handler: () => ({ status: 200, body: { resumed: true } }) }]),
    credentials: () => [{ token: TOKEN, principal: OWNER }],
    presence,
    log: createLogger({ level: 'silent' }),
    ...(consoleRules && {
      browser: { origin: consoleOrigin, sessions, cookieValues, provePasskey: () => Promise.reject(new LatchError('passkey_not_verified')), answerHeaders: CONSOLE_SECURITY_HEADERS },
    }),
  });
  const server = createLocalServer({ listener: 'test', port: 0, frontDoor, log: createLogger({ level: 'silent' }) });
  const port = await server.listen();
  const credential = consoleRules
    ? { host: `localhost:${port}`, origin: consoleOrigin(port), cookie: `__Host-latch_console=${login.cookie}`, 'x-latch-csrf': login.csrf }
    : { host: `127.0.0.1:${port}`, authorization: `Bearer ${TOKEN}` };
  return {
    server,
    port,
    send: (headers, body = '{}') =>
      sendRaw(port, { method: 'POST', target: '/resume', headers: Object.entries({ ...credential, 'content-type': 'application/json', ...headers }), body }),
  };
}

function assertRefused(answer: RawResponse, param: string, what: string): void {
  assert.equal(answer.status, 400, `${what}: ${answer.body}`);
  assert.equal(errorCode(answer), 'invalid_request', what);
  assert.equal(JSON.parse(answer.body).error.param, param, what);
}

describe('a passphrase sent with a request', () => {
  const checks = { count: 0 };
  const { presence } = passphrasePresence(PASSPHRASE, { checks });
  const doors: Door[] = [];
  let a: Door;
  let consoleDoor: Door;
  let bare: Door;
  let bareConsole: Door;

  before(async () => {
    a = await startDoor(presence, false);
    consoleDoor = await startDoor(presence, true);
    bare = await startDoor(noPresenceFactor(), false);
    bareConsole = await startDoor(noPresenceFactor(), true);
    doors.push(a, consoleDoor, bare, bareConsole);
  });
  after(async () => {
    for (const door of doors) await door.server.close(0);
  });

  test('Latch-Owner-Passphrase, the body and Latch-Owner-Presence: empty or longer than 4096 characters is 400, and never a counted attempt', async () => {
    const long = 'x'.repeat(PASSPHRASE_CHARS_MAX + 1);
    for (const door of [a, consoleDoor]) {
      checks.count = 0;
      assertRefused(await door.send({ 'latch-owner-passphrase': '' }), 'latch-owner-passphrase', 'an empty header');
      assertRefused(await door.send({ 'latch-owner-passphrase': long }), 'latch-owner-passphrase', 'a 4097-character header');
      assertRefused(await door.send({}, JSON.stringify({ passphrase: '' })), 'passphrase', 'an empty body member');
      assertRefused(await door.send({}, JSON.stringify({ passphrase: long })), 'passphrase', 'a 4097-character body member');
      assert.equal(checks.count, 0, 'a malformed passphrase reached the lockout');
      assert.equal((await door.send({ 'latch-owner-passphrase': PASSPHRASE })).status, 200);
    }
    checks.count = 0;
    assertRefused(await consoleDoor.send({ 'latch-owner-presence': presenceHeader({ passphrase: '' }) }), 'latch-owner-presence', 'an empty presence passphrase');
    assertRefused(await consoleDoor.send({ 'latch-owner-presence': presenceHeader({ passphrase: long }) }), 'latch-owner-presence', 'a 4097-character presence passphrase');
    assert.equal(checks.count, 0, 'a malformed presence passphrase reached the lockout');
    assert.equal((await consoleDoor.send({ 'latch-owner-presence': presenceHeader({ passphrase: PASSPHRASE }) })).status, 200);
  });

  test('with no presence factor configured, neither header is parsed: the route is reached', async () => {
    assert.equal((await bare.send({ 'latch-owner-passphrase': '' })).status, 200);
    assert.equal((await bareConsole.send({ 'latch-owner-presence': 'not base64url json!' })).status, 200);
    assert.equal((await bareConsole.send({ 'latch-owner-presence': presenceHeader({ passphrase: '' }) })).status, 200);
  });
});
