/**
 * The front door attacked on the real daemon (both listeners and the /v1 proxy), as a web page, a
 * DNS-rebinding page and a local process without the token would (decisions §8). Every refused
 * request is checked for its code, for the absence of any CORS header, and, under /v1, for having
 * reached nobody: the sandbox's count of remembered nonces does not move.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runLatch, startStack, type Stack } from '../support/stack.js';
import { exchange, requestText, type Exchange } from './wire.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

interface Target {
  listener: 'a' | 'b';
  method: string;
  path: string;
  body?: string;
}

const port = (listener: 'a' | 'b'): number => (listener === 'a' ? stack.portA : stack.portB);
const goodHost = (listener: 'a' | 'b'): string => `127.0.0.1:${port(listener)}`;

/** A body that would be a valid /authorize on A, so only the front door can refuse it. */
function authorizeBody(listener: 'a' | 'b'): string {
  const card = stack.cards[0].card_id;
  return JSON.stringify(listener === 'a' ? { card_id: card, amount: 1, merchant_name: 'front-door.example' } : { card_id: card, amount: 1, merchant: 'front-door.example' });
}

function targets(): Target[] {
  return [
    { listener: 'a', method: 'GET', path: '/health' },
    { listener: 'a', method: 'GET', path: '/cards' },
    { listener: 'a', method: 'POST', path: '/authorize', body: authorizeBody('a') },
    { listener: 'a', method: 'GET', path: '/v1/wallet' },
    { listener: 'a', method: 'POST', path: '/v1/wallet/allocate', body: JSON.stringify({ card_id: stack.cards[0].card_id, amount: '1.00' }) },
    { listener: 'b', method: 'GET', path: '/health' },
    { listener: 'b', method: 'GET', path: '/cards' },
    { listener: 'b', method: 'POST', path: '/authorize', body: authorizeBody('b') },
  ];
}

/** send writes one request with exactly these headers (plus Content-Type/-Length for a body) and reads the answer. */
async function send(target: Target, headers: Array<[string, string]>, options: { contentType?: string | null; requestTarget?: string } = {}): Promise<Exchange> {
  const all: Array<[string, string]> = [...headers];
  if (target.body !== undefined) {
    if (options.contentType !== null) all.push(['Content-Type', options.contentType ?? 'application/json']);
    all.push(['Content-Length', String(Buffer.byteLength(target.body))]);
  }
  all.push(['Connection', 'close']);
  const answer = await exchange(port(target.listener), requestText(target.method, options.requestTarget ?? target.path, all, target.body ?? ''));
  assert.ok(!/\r\naccess-control-/i.test(answer.text), `no CORS header ever: ${answer.text.slice(0, 300)}`);
  assert.ok(!answer.text.includes(stack.token()), 'the token is never echoed');
  return answer;
}

const bearer = (): [string, string] => ['Authorization', `Bearer ${stack.token()}`];

async function nonces(): Promise<number> {
  return (await stack.admin.get('/v1/sandbox/state')).body.remembered_nonces as number;
}

/** assertRefused checks one status and code, and that the request never reached the cloud. */
function assertRefused(answer: Exchange, status: number, code: string, what: string): void {
  assert.equal(answer.statuses[0], status, `${what}: ${answer.text.slice(0, 300)}`);
  assert.equal(answer.codes[0], code, what);
  assert.equal(answer.statuses.length, 1, `${what}: one answer`);
}

describe('Host allow-list on both listeners, /health and /v1 included', () => {
  const badHosts: Array<[string, (listener: 'a' | 'b') => Array<[string, string]>]> = [
    ['an attacker name with our port', (l) => [['Host', `evil.com:${port(l)}`]]],
    ['a rebinding name that starts with localhost', (l) => [['Host', `localhost.evil.com:${port(l)}`]]],
    ['a wildcard-DNS name for 127.0.0.1', (l) => [['Host', `127.0.0.1.nip.io:${port(l)}`]]],
    ['the other listener’s port', (l) => [['Host', `127.0.0.1:${port(l === 'a' ? 'b' : 'a')}`]]],
    ['no port', () => [['Host', '127.0.0.1']]],
    ['localhost without a port', () => [['Host', 'localhost']]],
    ['an empty port', () => [['Host', '127.0.0.1:']]],
    ['a port with a leading zero', (l) => [['Host', `127.0.0.1:0${port(l)}`]]],
    ['another loopback address', (l) => [['Host', `127.0.0.2:${port(l)}`]]],
    ['0.0.0.0', (l) => [['Host', `0.0.0.0:${port(l)}`]]],
    ['127.1 shorthand', (l) => [['Host', `127.1:${port(l)}`]]],
    ['decimal 127.0.0.1', (l) => [['Host', `2130706433:${port(l)}`]]],
    ['hex 127.0.0.1', (l) => [['Host', `0x7f000001:${port(l)}`]]],
    ['IPv4-mapped IPv6', (l) => [['Host', `[::ffff:127.0.0.1]:${port(l)}`]]],
    ['localhost with a trailing dot', (l) => [['Host', `localhost.:${port(l)}`]]],
    ['user info', (l) => [['Host', `user@127.0.0.1:${port(l)}`]]],
    ['an empty Host', () => [['Host', '']]],
    ['no Host at all', () => []],
    ['two Host headers, both good', (l) => [['Host', goodHost(l)], ['Host', goodHost(l)]]],
    ['a good and a bad Host', (l) => [['Host', goodHost(l)], ['Host', `evil.com:${port(l)}`]]],
  ];
  for (const [name, hostHeaders] of badHosts) {
    test(`${name} → 403 forbidden_host everywhere, nothing forwarded`, async () => {
      const before = await nonces();
      for (const target of targets()) {
        assertRefused(await send(target, [...hostHeaders(target.listener), bearer()]), 403, 'forbidden_host', `${target.listener} ${target.method} ${target.path}`);
      }
      assert.equal(await nonces(), before, 'no signed request reached the cloud');
    });
  }

  test('absolute-form and asterisk targets → 403 forbidden_host, even naming us', async () => {
    for (const target of targets()) {
      for (const requestTarget of [`http://${goodHost(target.listener)}${target.path}`, `http://evil.com${target.path}`, '*']) {
        assertRefused(await send(target, [['Host', goodHost(target.listener)], bearer()], { requestTarget }), 403, 'forbidden_host', `${target.listener} ${requestTarget}`);
      }
    }
  });

  test('the loopback names in any letter case are accepted', async () => {
    for (const listener of ['a', 'b'] as const) {
      for (const host of [`127.0.0.1:${port(listener)}`, `localhost:${port(listener)}`, `LocalHost:${port(listener)}`, `[::1]:${port(listener)}`]) {
        const answer = await send({ listener, method: 'GET', path: '/health' }, [['Host', host], bearer()]);
        assert.equal(answer.statuses[0], 200, `${listener} ${host}: ${answer.text.slice(0, 200)}`);
      }
    }
  });
});

describe('browser signs on both listeners', () => {
  const browserHeaders: Array<[string, (l: 'a' | 'b') => Array<[string, string]>]> = [
    ['Origin of another site', () => [['Origin', 'https://evil.example']]],
    ['Origin null (sandboxed iframe, file://)', () => [['Origin', 'null']]],
    ['an empty Origin', () => [['Origin', '']]],
    ['Origin of the daemon itself', (l) => [['Origin', `http://${goodHost(l)}`]]],
    ['Referer of another site', () => [['Referer', 'https://evil.example/page']]],
    ['Referer of the daemon itself', (l) => [['Referer', `http://${goodHost(l)}/`]]],
    ['Sec-Fetch-Site: cross-site', () => [['Sec-Fetch-Site', 'cross-site']]],
    ['Sec-Fetch-Site: same-site', () => [['Sec-Fetch-Site', 'same-site']]],
    ['Sec-Fetch-Site: same-origin', () => [['Sec-Fetch-Site', 'same-origin']]],
  ];
  for (const [name, extra] of browserHeaders) {
    test(`${name} → 403 forbidden_origin with a valid token, nothing forwarded`, async () => {
      const before = await nonces();
      for (const target of targets()) {
        assertRefused(await send(target, [['Host', goodHost(target.listener)], bearer(), ...extra(target.listener)]), 403, 'forbidden_origin', `${target.listener} ${target.path}`);
      }
      assert.equal(await nonces(), before);
    });
  }

  test('OPTIONS (a CORS preflight) → 403 forbidden_origin on every path, with or without a token', async () => {
    for (const target of targets()) {
      for (const withToken of [true, false]) {
        const headers: Array<[string, string]> = [['Host', goodHost(target.listener)], ['Access-Control-Request-Method', 'POST'], ['Access-Control-Request-Headers', 'authorization, content-type']];
        if (withToken) headers.push(bearer());
        assertRefused(await send({ ...target, method: 'OPTIONS', body: undefined } as Target, headers), 403, 'forbidden_origin', `${target.listener} OPTIONS ${target.path}`);
      }
    }
  });

  test('Sec-Fetch-Site: none (typed into the address bar) is not a browser sign', async () => {
    const answer = await send({ listener: 'a', method: 'GET', path: '/cards' }, [['Host', goodHost('a')], bearer(), ['Sec-Fetch-Site', 'none']]);
    assert.equal(answer.statuses[0], 200);
  });
});

describe('content type of POST bodies', () => {
  const refused: Array<string | null> = [
    null,
    'text/plain',
    'text/plain; charset=utf-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonx',
    'text/json',
    'application/json; charset=utf-16',
    'application/json, text/plain',
    'application/ld+json',
  ];
  for (const contentType of refused) {
    test(`Content-Type ${contentType ?? '(none)'} → 415 on A, B and /v1; nothing signed or forwarded`, async () => {
      const before = await nonces();
      for (const target of targets().filter((t) => t.body !== undefined)) {
        assertRefused(await send(target, [['Host', goodHost(target.listener)], bearer()], { contentType }), 415, 'unsupported_media_type', `${target.listener} ${target.path}`);
      }
      assert.equal(await nonces(), before);
    });
  }

  test('application/json with charset=utf-8, in any case, is accepted', async () => {
    for (const contentType of ['application/json', 'Application/JSON; charset=UTF-8', 'application/json;charset="utf-8"']) {
      const answer = await send({ listener: 'a', method: 'POST', path: '/sign-policy-window', body: JSON.stringify({ amount: 1, merchant_name: 'ct.example' }) }, [['Host', goodHost('a')], bearer()], { contentType });
      assert.equal(answer.statuses[0], 200, `${contentType}: ${answer.text.slice(0, 300)}`);
    }
  });
});

describe('the bearer token', () => {
  const tokenCases: Array<[string, () => Array<[string, string]>, string, string?]> = [
    ['no Authorization header', () => [], 'missing_bearer_token'],
    ['the token in the query string', () => [], 'missing_bearer_token', 'token'],
    ['the token in a cookie', () => [['Cookie', `token=${stack.token()}; daemon_token=${stack.token()}`]], 'missing_bearer_token'],
    ['a wrong token', () => [['Authorization', 'Bearer AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']], 'invalid_bearer_token'],
    ['the token without its last character', () => [['Authorization', `Bearer ${stack.token().slice(0, -1)}`]], 'invalid_bearer_token'],
    ['the token with one more character', () => [['Authorization', `Bearer ${stack.token()}A`]], 'invalid_bearer_token'],
    ['the token in upper case', () => [['Authorization', `Bearer ${stack.token().toUpperCase()}`]], 'invalid_bearer_token'],
    ['two spaces after Bearer', () => [['Authorization', `Bearer  ${stack.token()}`]], 'invalid_bearer_token'],
    ['Bearer with nothing after it', () => [['Authorization', 'Bearer ']], 'invalid_bearer_token'],
    ['the Basic scheme', () => [['Authorization', `Basic ${Buffer.from(`latch:${stack.token()}`).toString('base64')}`]], 'invalid_bearer_token'],
    ['the bare token without a scheme', () => [['Authorization', stack.token()]], 'invalid_bearer_token'],
    ['two Authorization headers, both right', () => [bearer(), bearer()], 'invalid_bearer_token'],
    ['a right and a wrong Authorization header', () => [bearer(), ['Authorization', 'Bearer nope']], 'invalid_bearer_token'],
  ];
  for (const [name, headers, code, queryName] of tokenCases) {
    test(`${name} → 401 ${code} on every protected path; nothing forwarded`, async () => {
      const before = await nonces();
      for (const target of targets().filter((t) => !(t.listener === 'a' && t.path === '/health'))) {
        const requestTarget = queryName === undefined ? target.path : `${target.path}?${queryName}=${stack.token()}`;
        const answer = await send(target, [['Host', goodHost(target.listener)], ...headers()], { requestTarget });
        assertRefused(answer, 401, code, `${target.listener} ${target.path}`);
        assert.match(answer.text, /\r\nWWW-Authenticate: Bearer/i);
      }
      assert.equal(await nonces(), before);
    });
  }

  test('the route table is hidden: unknown paths and wrong methods without a token are 401, not 404/405', async () => {
    for (const listener of ['a', 'b'] as const) {
      for (const [method, path] of [['GET', '/nope'], ['GET', '/.env'], ['DELETE', '/cards'], ['PUT', '/authorize'], ['GET', '/v2/anything']]) {
        assertRefused(await send({ listener, method: method as string, path: path as string }, [['Host', goodHost(listener)]]), 401, 'missing_bearer_token', `${listener} ${method} ${path}`);
      }
    }
  });

  test('Variant A’s /health is public and B’s is not', async () => {
    const a = await send({ listener: 'a', method: 'GET', path: '/health' }, [['Host', goodHost('a')]]);
    assert.equal(a.statuses[0], 200);
    const b = await send({ listener: 'b', method: 'GET', path: '/health' }, [['Host', goodHost('b')]]);
    assertRefused(b, 401, 'missing_bearer_token', 'B /health');
  });

  test('after latch token rotate, the old token is refused on both listeners and the new one works at once', async () => {
    const old = stack.token();
    const rotated = await runLatch(['token', 'rotate'], { LATCH_HOME: stack.home });
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.ok(!rotated.stdout.includes(stack.token()) && !rotated.stderr.includes(stack.token()), 'the new token is never printed');
    assert.notEqual(stack.token(), old);
    for (const target of targets().filter((t) => !(t.listener === 'a' && t.path === '/health') && t.body === undefined)) {
      assertRefused(await send(target, [['Host', goodHost(target.listener)], ['Authorization', `Bearer ${old}`]]), 401, 'invalid_bearer_token', `${target.listener} ${target.path}`);
      const fresh = await send(target, [['Host', goodHost(target.listener)], bearer()]);
      assert.equal(fresh.statuses[0], 200, `${target.listener} ${target.path}: ${fresh.text.slice(0, 200)}`);
    }
  });
});

describe('the log', () => {
  test('the daemon’s log never holds the token, whatever was sent where', () => {
    const logs = stack.logs();
    assert.ok(logs.length > 0);
    assert.ok(!logs.includes(stack.token()));
    assert.ok(!/Bearer [A-Za-z0-9_-]{20,}/.test(logs));
  });
});
