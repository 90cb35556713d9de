/**
 * The /v1 signing proxy end to end (decisions §6, §13), asserting on what an upstream actually
 * received: no path trick reaches another host or leaves /v1/, the caller's credentials and
 * signature headers never travel, redirects are not followed, the 1 MiB cap holds, and the
 * cloud's status and body come back unchanged.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { errorCode } from '../http/raw-client.js';
import { assertError } from '../support/e2e-assert.js';
import { startExtraDaemon, type ExtraDaemon } from '../support/extra-daemon.js';
import { verifyLatchSignature } from '../support/independent-http-signature.js';
import { hang, jsonAnswer, startRecordingServer, type RecordingServer } from '../support/recording-server.js';
import { startStack, type Stack } from '../support/stack.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROXY_ROUTES } from '../../src/proxy/proxy-routes.js';

let stack: Stack;
let cloud: RecordingServer;
/** Another server on loopback: any request it receives is an escape. */
let evil: RecordingServer;
let daemon: ExtraDaemon;
before(async () => {
  stack = await startStack();
  cloud = await startRecordingServer();
  evil = await startRecordingServer();
  daemon = await startExtraDaemon(stack.home, { LATCH_CLOUD_URL: cloud.url });
});
after(async () => {
  await daemon.close();
  await cloud.close();
  await evil.close();
  await stack.close();
});
afterEach(() => {
  cloud.respondWith(jsonAnswer(200, { ok: true }));
  assert.equal(evil.requests.length, 0, 'nothing may ever reach another host');
});

const jwk = () => {
  const device = [...stack.sandbox.state().devices.values()][0];
  return { kty: 'OKP' as const, crv: 'Ed25519' as const, x: device?.public_key_x ?? '' };
};

/** pathStaysUnderV1 checks a received target as the upstream's own URL parser would read it. */
function assertUnderV1(target: string): void {
  assert.ok(target.startsWith('/v1/'), target);
  const normalized = new URL(target, 'http://upstream.invalid').pathname;
  assert.ok(normalized.startsWith('/v1/'), `${target} normalizes to ${normalized}`);
  assert.equal(normalized, target.split('?')[0], `${target} must arrive without dot segments`);
}

describe('escapes', () => {
  const evilHost = () => `127.0.0.1:${evil.port}`;
  const attempts = (): string[] => [
    '/v1/../x',
    '/v1/../../v2/x',
    '/v1/%2e%2e/x',
    '/v1/%2E%2e/x',
    '/v1/.%2E/x',
    '/v1/%2e%2E%2fx',
    '/v1/./wallet',
    '/v1/%2e/wallet',
    '/v1/wallet/..',
    '/v1/wallet/%2e%2e',
    `/v1//${evilHost()}/x`,
    `//${evilHost()}/v1/x`,
    `/v1/\\\\${evilHost()}/x`,
    '/v1/a\\..\\..\\x',
    '/v1/a%5c..%5cx',
    '/v1/%2f..',
    '/v1/%2F%2E%2E/x',
    '/v1/a%2f..%2f..%2fx',
    '/v1/a%00b',
    '/v1/x#/../../admin',
    '/v1/wallet#fragment',
    '/v1/wallet?a=1#/../x',
    `http://${evilHost()}/v1/x`,
    'http://evil.example/v1/x',
    `${evilHost()}`,
    '*',
  ];

  test('every escape attempt is refused; nothing reaches another host or leaves /v1/', async () => {
    const before = cloud.requests.length;
    for (const target of attempts()) {
      for (const method of ['GET', 'POST']) {
        const body = method === 'POST' ? '{}' : undefined;
        const headers: Array<[string, string]> = method === 'POST' ? [['Content-Type', 'application/json']] : [];
        const answer = await daemon.raw(method, target, headers, body);
        assert.ok([400, 403, 404].includes(answer.status), `${method} ${target} → ${answer.status} ${answer.body}`);
        assert.ok(['invalid_request', 'forbidden_host', 'not_found', 'proxy_route_not_allowed'].includes(errorCode(answer) ?? ''), `${target}: ${answer.body}`);
      }
    }
    assert.equal(evil.requests.length, 0);
    for (const request of cloud.requests.slice(before)) assertUnderV1(request.target);
    assert.equal(cloud.requests.length, before, 'none of them was forwarded at all');
  });

  test('odd paths that are no row of the allow-list are refused, never forwarded', async () => {
    const before = cloud.requests.length;
    const odd = ['/v1/a.b/c..d', '/v1/@evil.example/x', '/v1/x?next=http://evil.example/../../y', '/v1/%252e%252e/x', '/v1/x;y=..', '/v1/wallet;x', '/v1/wallet/'];
    for (const target of odd) {
      const answer = await daemon.raw('GET', target);
      assert.ok(['invalid_request', 'proxy_route_not_allowed'].includes(errorCode(answer) ?? ''), `${target}: ${answer.status} ${answer.body}`);
    }
    assert.equal(cloud.requests.length, before);
  });

  test('a Host naming another host is refused before any routing', async () => {
    const answer = await daemon.raw('GET', '/v1/wallet', [['Host', evilHost()]]);
    assert.equal(errorCode(answer), 'forbidden_host');
  });
});

/** auditLines counts the lines of the daemon's audit log: an upstream signature adds one. */
const auditLines = (): number => readFileSync(join(stack.home, 'audit.log'), 'utf8').split('\n').filter((line) => line !== '').length;

describe('the allow-list of method and canonical path (docs/decisions.md §29.1)', () => {
  /** Each would register, revoke or move money at a cloud that decodes escapes or folds case. */
  const disguised: Array<[string, string]> = [
    ['POST', '/v1/%61uthorizations'],
    ['POST', '/v1/%41uthorizations'],
    ['POST', '/v1/authorization%73'],
    ['POST', '/v1/Authorizations'],
    ['POST', '/v1/AUTHORIZATIONS'],
    ['POST', '/v1/%70olicy-windows'],
    ['POST', '/v1/Policy-Windows'],
    ['POST', '/v1/policy%2Dwindows'],
    ['POST', '/v1/authorizations/'],
    ['POST', '/v1/authorizations;x=1'],
    ['POST', '/v1/V1/authorizations'],
    ['POST', '/V1/authorizations'],
    ['POST', '/v1/authorizations/pw_abc/Revoke'],
    ['POST', '/v1/authorizations/%70w_abc/revoke'],
    ['POST', '/v1/authorizations/PW_ABC/revoke'],
    ['POST', '/v1/Authorizations/pw_abc/revoke'],
    ['POST', '/v1/wallet/Allocate'],
    ['POST', '/v1/wallet/%61llocate'],
    ['PUT', '/v1/authorizations'],
    ['PATCH', '/v1/authorizations/pw_abc'],
    ['DELETE', '/v1/authorizations/pw_abc'],
    ['POST', '/v1/authorizations/pw_abc'],
    ['POST', '/v1/devices'],
    ['POST', '/v1/sandbox/charges'],
    ['GET', '/v1/%63ards'],
    ['GET', '/v1/Cards'],
    ['GET', '/v1/cards/CARD_ABC'],
    ['GET', '/v1/cards/%63ard_abc'],
  ];

  test('POST /v1/%61uthorizations, /v1/Authorizations and every other disguise are refused, never signed nor forwarded', async () => {
    const sentBefore = cloud.requests.length;
    const linesBefore = auditLines();
    for (const [method, target] of disguised) {
      const body = method === 'GET' || method === 'DELETE' ? undefined : '{"jws":"a.b.c"}';
      const headers: Array<[string, string]> = body === undefined ? [] : [['Content-Type', 'application/json']];
      const answer = await daemon.raw(method, target, headers, body);
      assert.ok([400, 403, 404].includes(answer.status), `${method} ${target} → ${answer.status} ${answer.body}`);
      assert.ok(['invalid_request', 'proxy_route_not_allowed', 'not_found'].includes(errorCode(answer) ?? ''), `${method} ${target}: ${answer.body}`);
    }
    assert.equal(cloud.requests.length, sentBefore, 'nothing was forwarded');
    assert.equal(auditLines(), linesBefore, 'nothing was signed (an upstream signature is an audit line)');
  });

  test('a percent-escape anywhere in the path is 400 invalid_request, param path; a path outside the table is 403 proxy_route_not_allowed', async () => {
    const escaped = await daemon.raw('POST', '/v1/%61uthorizations', [['Content-Type', 'application/json']], '{"jws":"a.b.c"}');
    assert.equal(escaped.status, 400);
    assert.equal(errorCode(escaped), 'invalid_request');
    assert.equal((JSON.parse(escaped.body) as { error: { param: string } }).error.param, 'path');
    const folded = await daemon.raw('POST', '/v1/Authorizations', [['Content-Type', 'application/json']], '{"jws":"a.b.c"}');
    assert.equal(folded.status, 403);
    assert.equal(errorCode(folded), 'proxy_route_not_allowed');
  });

  test('every row of the table is forwarded as sent, and HEAD beside each GET', async () => {
    const before = cloud.requests.length;
    const sample = (pattern: string) => pattern.replace(':policy_id', 'pw_abc').replace(':card_id', 'card_abc').replace(':transaction_id', 'tx_abc');
    const rows = PROXY_ROUTES.filter((row) => row.purpose === 'read' || row.purpose === 'move_money');
    for (const row of rows) {
      const answer = await daemon.raw(row.method, sample(row.pattern), row.method === 'POST' ? [['Content-Type', 'application/json']] : [], row.method === 'POST' ? '{}' : undefined);
      assert.equal(answer.status, 200, `${row.method} ${row.pattern}: ${answer.body}`);
      if (row.method === 'GET') assert.equal((await daemon.raw('HEAD', sample(row.pattern))).status, 200, `HEAD ${row.pattern}`);
    }
    const received = cloud.requests.slice(before).map((request) => `${request.method} ${request.target}`);
    const expected = rows.flatMap((row) => (row.method === 'GET' ? [`GET ${sample(row.pattern)}`, `HEAD ${sample(row.pattern)}`] : [`${row.method} ${sample(row.pattern)}`]));
    assert.deepEqual(received, expected);
  });
});

describe('headers', () => {
  test("the caller's credentials, signature headers, cookies, hop-by-hop and forwarding headers never travel", async () => {
    const before = cloud.requests.length;
    const sent: Array<[string, string]> = [
      ['Content-Type', 'application/json'],
      ['Cookie', 'session=cookie-secret'],
      ['Signature', 'latch=:c2lnbmF0dXJlLXNlY3JldA==:'],
      ['Signature-Input', 'latch=("@method");created=1;keyid="attacker"'],
      ['Content-Digest', 'sha-256=:ZGlnZXN0LXNlY3JldA==:'],
      ['Connection', 'keep-alive, X-Hop-Secret'],
      ['X-Hop-Secret', 'hop-secret'],
      ['Keep-Alive', 'timeout=99'],
      ['TE', 'trailers'],
      ['Proxy-Authorization', 'Basic cHJveHktc2VjcmV0'],
      ['X-Forwarded-For', '203.0.113.7'],
      ['X-Forwarded-Host', 'forwarded-host.example'],
      ['Forwarded', 'for=203.0.113.7'],
      ['X-Real-IP', '203.0.113.7'],
      ['Via', '1.1 via-secret'],
      ['X-Api-Key', 'api-key-secret'],
      ['Accept-Language', 'en-GB'],
      ['Idempotency-Key', 'caller-key-1'],
    ];
    const answer = await daemon.raw('POST', '/v1/wallet/allocate', sent, '{"card_id":"card_abc","amount":"1.00"}');
    assert.equal(answer.status, 200, answer.body);
    const received = cloud.requests.slice(before);
    assert.equal(received.length, 1);
    const request = received[0]!;
    const names = request.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    const allowed = new Set([
      'host',
      'accept',
      'user-agent',
      'content-type',
      'content-length',
      'content-digest',
      'signature',
      'signature-input',
      'idempotency-key',
      'accept-language',
      // Added by Node's fetch itself, describing its own connection and decoding.
      'connection',
      'accept-encoding',
      'sec-fetch-mode',
    ]);
    for (const name of names) assert.ok(allowed.has(name), `${name} reached the upstream`);
    const everything = cloud.everything();
    for (const secret of ['cookie-secret', 'c2lnbmF0dXJlLXNlY3JldA', 'attacker', 'ZGlnZXN0LXNlY3JldA', 'hop-secret', 'timeout=99', 'cHJveHktc2VjcmV0', '203.0.113.7', 'forwarded-host', 'via-secret', 'api-key-secret']) {
      assert.ok(!everything.includes(secret), `${secret} reached the upstream`);
    }
    assert.notEqual(request.headers['connection'], 'keep-alive, X-Hop-Secret');
    assert.equal(request.headers['accept-language'], 'en-GB');
    assert.equal(request.headers['idempotency-key'], 'caller-key-1');
    assert.equal(request.body.toString('utf8'), '{"card_id":"card_abc","amount":"1.00"}');
    // The daemon's own signature is there, once, and verifies.
    const checked = verifyLatchSignature(request, jwk());
    assert.equal(checked.keyid, stack.sandbox.state().devices.values().next().value?.key_id);
  });

  test('the local token never reaches the upstream, in any header or body', async () => {
    await daemon.a.get('/v1/wallet');
    await daemon.a.post('/v1/authorizations', { jws: 'a.b.c' });
    await daemon.a.get('/cards');
    await daemon.a.post('/authorize', { card_id: stack.cards[0].card_id, amount: 1, merchant_name: 'shop.example.com' });
    assert.ok(cloud.requests.length > 0);
    assert.ok(!cloud.everything().includes(stack.token()));
    for (const request of cloud.requests) assert.ok(!/bearer/i.test(request.rawHeaders.join('\n')), 'no bearer credential of any kind');
  });

  test("the cloud's cookies, CORS and other response headers do not come back", async () => {
    cloud.respondWith(jsonAnswer(200, { ok: true }, { 'set-cookie': 'tracking=1', 'access-control-allow-origin': '*', 'x-internal': 'secret', 'retry-after': '5' }));
    const answer = await daemon.raw('GET', '/v1/wallet');
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['set-cookie'], undefined);
    assert.equal(answer.headers['access-control-allow-origin'], undefined);
    assert.equal(answer.headers['x-internal'], undefined);
    assert.deepEqual(answer.headers['retry-after'], ['5']);
  });
});

describe('answers', () => {
  test("the cloud's status and body come back byte for byte", async () => {
    const cases: Array<[number, string, string]> = [
      [418, 'application/json', '{"teapot": true, "amount": 1.50, "nested": {"x": [1, 2]}}'],
      [201, 'application/json', '{"created":true}'],
      [404, 'application/json', '{"error":{"code":"not_found","message":"No such thing."}}'],
      [409, 'text/plain; charset=utf-8', 'plain words, not JSON'],
      [500, 'application/json', '{"error":{"code":"internal_error","message":"cloud bug"}}'],
      [503, 'application/json', '{"error":{"code":"upstream_unavailable","message":"busy"}}'],
    ];
    for (const [status, contentType, body] of cases) {
      cloud.respondWith((_request, response) => {
        response.writeHead(status, { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) });
        response.end(body);
      });
      // POST with a key: retried on 503 like any safe request, and still passed back as it was.
      const answer = await daemon.raw('POST', '/v1/wallet/allocate', [['Content-Type', 'application/json']], '{}');
      assert.equal(answer.status, status);
      assert.equal(answer.body, body);
      assert.deepEqual(answer.headers['content-type'], [contentType]);
    }
  });

  test('redirects are passed back, never followed, and Location does not come back', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      cloud.respondWith((_request, response) => {
        response.writeHead(status, { location: `${evil.url}/v1/stolen`, 'content-type': 'application/json' });
        response.end('{"moved":true}');
      });
      const answer = await daemon.raw('POST', '/v1/wallet/allocate', [['Content-Type', 'application/json']], '{"a":1}');
      assert.equal(answer.status, status);
      assert.equal(answer.body, '{"moved":true}');
      assert.equal(answer.headers['location'], undefined);
    }
    // A convenience endpoint given a redirect fails as upstream_unavailable.
    assertError(await daemon.a.get('/cards'), 502, 'upstream_unavailable');
    assert.equal(evil.requests.length, 0);
  });

  test('a 1 MiB body is forwarded whole; one byte more is 413 and nothing is sent', async () => {
    const cap = 1024 * 1024;
    const frame = '{"pad":""}';
    const exact = `{"pad":"${'a'.repeat(cap - frame.length)}"}`;
    assert.equal(Buffer.byteLength(exact), cap);
    const before = cloud.requests.length;
    const ok = await daemon.raw('POST', '/v1/wallet/allocate', [['Content-Type', 'application/json']], exact);
    assert.equal(ok.status, 200, ok.body.slice(0, 200));
    assert.equal(cloud.requests.length, before + 1);
    assert.equal(cloud.requests.at(-1)?.body.toString('utf8'), exact);
    const over = `{"pad":"${'a'.repeat(cap - frame.length + 1)}"}`;
    const refused = await daemon.raw('POST', '/v1/wallet/allocate', [['Content-Type', 'application/json']], over);
    assert.equal(refused.status, 413);
    assert.equal(errorCode(refused), 'payload_too_large');
    assert.equal(cloud.requests.length, before + 1);
  });

  test('a cloud answer of 1 MiB comes back; a larger one, declared or streamed, is 502', async () => {
    const cap = 1024 * 1024;
    cloud.respondWith((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(cap) });
      response.end(Buffer.alloc(cap, 0x61));
    });
    const whole = await daemon.raw('GET', '/v1/wallet');
    assert.equal(whole.status, 200);
    assert.equal(whole.body.length, cap);
    cloud.respondWith((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(cap + 1) });
      response.end(Buffer.alloc(cap + 1, 0x61));
    });
    assert.equal(errorCode(await daemon.raw('GET', '/v1/wallet')), 'upstream_unavailable');
    cloud.respondWith((_request, response) => {
      // Chunked, no Content-Length: the daemon must count as it reads.
      response.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 5; i++) response.write(Buffer.alloc(cap / 4, 0x61));
      response.end();
    });
    const streamed = await daemon.raw('GET', '/v1/wallet');
    assert.equal(streamed.status, 502);
    assert.equal(errorCode(streamed), 'upstream_unavailable');
  });

  test('GET /v1/wallet against the real sandbox', async () => {
    const answer = await stack.a.get('/v1/wallet');
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { usdt: '400.00', allocated: '150.00', available: '250.00' });
    const refused = await stack.a.get('/v1/nothing-here');
    assertError(refused, 403, 'proxy_route_not_allowed');
  });
});

describe('idempotency keys', () => {
  test('forwarded when sent; made for a POST when absent; none for GET', async () => {
    const before = cloud.requests.length;
    await daemon.a.post('/v1/wallet/allocate', { a: 1 }, { 'idempotency-key': 'my-key-123' });
    await daemon.a.post('/v1/wallet/allocate', { a: 1 });
    await daemon.a.post('/v1/wallet/allocate', { a: 2 });
    await daemon.a.get('/v1/wallet');
    const keys = cloud.requests.slice(before).map((r) => r.headers['idempotency-key']);
    assert.equal(keys[0], 'my-key-123');
    for (const key of keys.slice(1, 3)) assert.match(key as string, /^[\x21-\x7e]{8,255}$/);
    assert.equal(new Set(keys.slice(0, 3)).size, 3);
    assert.equal(keys[3], undefined);
  });

  test('a malformed key is 400 and nothing is sent', async () => {
    const before = cloud.requests.length;
    const answer = await daemon.a.post('/v1/wallet/allocate', { a: 1 }, { 'idempotency-key': 'k'.repeat(256) });
    assertError(answer, 400, 'invalid_request', 'Idempotency-Key');
    const raw = await daemon.raw('POST', '/v1/wallet/allocate', [['Content-Type', 'application/json'], ['Idempotency-Key', 'tab\tinside']], '{}');
    assert.equal(errorCode(raw), 'invalid_request');
    assert.equal(cloud.requests.length, before);
  });
});

describe('the upstream down or slow', () => {
  test('connection refused → 502 upstream_unavailable', async () => {
    const gone = await startRecordingServer();
    await gone.close();
    const down = await startExtraDaemon(stack.home, { LATCH_CLOUD_URL: gone.url });
    try {
      assertError(await down.a.get('/v1/wallet'), 502, 'upstream_unavailable');
      assertError(await down.a.post('/v1/wallet/allocate', { a: 1 }), 502, 'upstream_unavailable');
    } finally {
      await down.close();
    }
  });

  test('no answer within the deadline → 504 upstream_unavailable', async () => {
    const slow = await startRecordingServer(hang);
    const daemonSlow = await startExtraDaemon(stack.home, { LATCH_CLOUD_URL: slow.url, LATCH_UPSTREAM_TIMEOUT_MS: '250' });
    try {
      assertError(await daemonSlow.a.get('/v1/wallet'), 504, 'upstream_unavailable');
      assertError(await daemonSlow.a.post('/v1/wallet/allocate', { a: 1 }), 504, 'upstream_unavailable');
      assert.ok(slow.requests.length >= 2);
    } finally {
      await daemonSlow.close();
      await slow.close();
    }
  });
});
