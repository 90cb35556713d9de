import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { holdsTestCardNumber, mentionsCvv } from '../support/card-text.js';
import { corsHeaders, errorCode, sendRaw, type RawRequest } from './raw-client.js';
import { startFixture, TEST_TOKEN, type Fixture } from './front-door-fixture.js';

let fixture: Fixture;
let port: number;
let host: string;
const auth = (): [string, string] => ['Authorization', `Bearer ${TEST_TOKEN}`];
const json: [string, string] = ['Content-Type', 'application/json'];

before(async () => {
  fixture = await startFixture();
  port = fixture.port;
  host = `127.0.0.1:${port}`;
});
after(() => fixture.server.close(1_000));

/** send writes one request on a fresh connection to the fixture. */
function send(request: RawRequest | string): ReturnType<typeof sendRaw> {
  return sendRaw(port, request);
}

describe('Host allow-list', () => {
  const refused: Array<[string, () => RawRequest | string]> = [
    ['evil.com with our port', () => ({ headers: [['Host', `evil.com:${port}`]] })],
    ['evil.com:7723', () => ({ headers: [['Host', 'evil.com:7723']] })],
    ['localhost.evil.com', () => ({ headers: [['Host', `localhost.evil.com:${port}`]] })],
    ['127.0.0.1.nip.io', () => ({ headers: [['Host', `127.0.0.1.nip.io:${port}`]] })],
    ['localhost6', () => ({ headers: [['Host', `localhost6:${port}`]] })],
    ['empty name :PORT', () => ({ headers: [['Host', `:${port}`]] })],
    ['no port', () => ({ headers: [['Host', '127.0.0.1']] })],
    ['localhost without port', () => ({ headers: [['Host', 'localhost']] })],
    ['another port', () => ({ headers: [['Host', `127.0.0.1:${port === 65535 ? 1 : port + 1}`]] })],
    ['leading zero port', () => ({ headers: [['Host', `127.0.0.1:0${port}`]] })],
    ['trailing dot', () => ({ headers: [['Host', `localhost.:${port}`]] })],
    ['user info', () => ({ headers: [['Host', `user@127.0.0.1:${port}`]] })],
    ['IPv6 without brackets', () => ({ headers: [['Host', `::1:${port}`]] })],
    ['other loopback address', () => ({ headers: [['Host', `127.0.0.2:${port}`]] })],
    ['empty Host', () => ({ headers: [['Host', '']] })],
    ['two Host headers, both valid', () => ({ headers: [['Host', host], ['Host', host]] })],
    ['two Host headers, one foreign', () => ({ headers: [['Host', host], ['Host', 'evil.com']] })],
    ['absolute-form target, foreign host', () => ({ target: 'http://evil.com/health', headers: [['Host', host]] })],
    ['absolute-form target, our own host', () => ({ target: `http://${host}/health`, headers: [['Host', host]] })],
    ['asterisk-form target', () => ({ method: 'GET', target: '*', headers: [['Host', host]] })],
    ['HTTP/1.1 without Host', () => ({ headers: [] })],
    ['HTTP/1.0 without Host', () => ({ version: '1.0', headers: [] })],
    ['CONNECT authority-form', () => `CONNECT evil.com:443 HTTP/1.1\r\nHost: evil.com:443\r\n\r\n`],
  ];
  for (const path of ['/health', '/private']) {
    for (const [name, make] of refused) {
      test(`${name} on ${path} → 403 forbidden_host`, async () => {
        const request = make();
        const sent = typeof request === 'string' ? request : { target: path, ...request, headers: [...(request.headers ?? []), auth()] };
        const response = await send(sent);
        assert.equal(response.status, 403);
        assert.equal(errorCode(response), 'forbidden_host');
        assert.deepEqual(corsHeaders(response), []);
      });
    }
  }

  const accepted: Array<[string, () => string]> = [
    ['127.0.0.1:PORT', () => `127.0.0.1:${port}`],
    ['localhost:PORT', () => `localhost:${port}`],
    ['LocalHost:PORT (case-insensitive)', () => `LocalHost:${port}`],
    ['[::1]:PORT', () => `[::1]:${port}`],
  ];
  for (const [name, value] of accepted) {
    test(`${name} is accepted`, async () => {
      const response = await send({ target: '/health', headers: [['Host', value()]] });
      assert.equal(response.status, 200);
    });
  }

  test('HTTP/1.0 with a valid Host is accepted', async () => {
    const response = await send({ target: '/health', version: '1.0', headers: [['Host', host]], close: false });
    assert.equal(response.status, 200);
  });
});

describe('browser signs', () => {
  const refused: Array<[string, () => Array<[string, string]>]> = [
    ['Origin of another site', () => [['Origin', 'https://evil.example']]],
    ['Origin of our own address', () => [['Origin', `http://${host}`]]],
    ['Origin: null', () => [['Origin', 'null']]],
    ['empty Origin', () => [['Origin', '']]],
    ['Referer', () => [['Referer', 'https://evil.example/page']]],
    ['Referer of our own address', () => [['Referer', `http://${host}/`]]],
    ['Sec-Fetch-Site: cross-site', () => [['Sec-Fetch-Site', 'cross-site']]],
    ['Sec-Fetch-Site: same-site', () => [['Sec-Fetch-Site', 'same-site']]],
    ['Sec-Fetch-Site: same-origin', () => [['Sec-Fetch-Site', 'same-origin']]],
    ['two Sec-Fetch-Site headers', () => [['Sec-Fetch-Site', 'none'], ['Sec-Fetch-Site', 'cross-site']]],
  ];
  for (const path of ['/health', '/private']) {
    for (const [name, headers] of refused) {
      test(`${name} on ${path} → 403 forbidden_origin without CORS headers`, async () => {
        const response = await send({ target: path, headers: [['Host', host], auth(), ...headers()] });
        assert.equal(response.status, 403);
        assert.equal(errorCode(response), 'forbidden_origin');
        assert.deepEqual(corsHeaders(response), []);
      });
    }
  }

  test('Sec-Fetch-Site: none (typed into the address bar) is accepted', async () => {
    const response = await send({ target: '/health', headers: [['Host', host], ['Sec-Fetch-Site', 'none']] });
    assert.equal(response.status, 200);
  });

  for (const path of ['/health', '/private', '/nowhere']) {
    test(`OPTIONS ${path} (CORS preflight) → 403 forbidden_origin`, async () => {
      const response = await send({
        method: 'OPTIONS',
        target: path,
        headers: [['Host', host], ['Access-Control-Request-Method', 'POST'], ['Access-Control-Request-Headers', 'authorization']],
      });
      assert.equal(response.status, 403);
      assert.equal(errorCode(response), 'forbidden_origin');
      assert.deepEqual(corsHeaders(response), []);
    });
  }

  test('a handler cannot add Access-Control-* headers', async () => {
    const response = await send({ target: '/cors', headers: [['Host', host], auth()] });
    assert.equal(response.status, 200);
    assert.deepEqual(corsHeaders(response), []);
    assert.deepEqual(response.headers['x-kept'], ['yes']);
  });
});

describe('bearer token', () => {
  const wrongSameLength = `${TEST_TOKEN.slice(0, -1)}${TEST_TOKEN.endsWith('A') ? 'B' : 'A'}`;
  const cases: Array<[string, Array<[string, string]>, string, string]> = [
    ['no Authorization', [], '/private', 'missing_bearer_token'],
    ['token in ?token=', [], `/private?token=${TEST_TOKEN}`, 'missing_bearer_token'],
    ['token in ?access_token=', [], `/private?access_token=${TEST_TOKEN}`, 'missing_bearer_token'],
    ['token in a cookie', [['Cookie', `token=${TEST_TOKEN}`]], '/private', 'missing_bearer_token'],
    ['token in a cookie named daemon_token', [['Cookie', `daemon_token=${TEST_TOKEN}`]], '/private', 'missing_bearer_token'],
    ['token in X-Token header', [['X-Token', TEST_TOKEN]], '/private', 'missing_bearer_token'],
    ['wrong token of the same length', [['Authorization', `Bearer ${wrongSameLength}`]], '/private', 'invalid_bearer_token'],
    ['wrong length (prefix)', [['Authorization', `Bearer ${TEST_TOKEN.slice(0, 20)}`]], '/private', 'invalid_bearer_token'],
    ['wrong length (extra)', [['Authorization', `Bearer ${TEST_TOKEN}x`]], '/private', 'invalid_bearer_token'],
    ['empty Bearer', [['Authorization', 'Bearer ']], '/private', 'invalid_bearer_token'],
    ['Bearer without space', [['Authorization', 'Bearer']], '/private', 'invalid_bearer_token'],
    ['double space', [['Authorization', `Bearer  ${TEST_TOKEN}`]], '/private', 'invalid_bearer_token'],
    ['Basic scheme', [['Authorization', `Basic ${Buffer.from(`user:${TEST_TOKEN}`).toString('base64')}`]], '/private', 'invalid_bearer_token'],
    ['token without scheme', [['Authorization', TEST_TOKEN]], '/private', 'invalid_bearer_token'],
    ['two Authorization headers', [['Authorization', `Bearer ${TEST_TOKEN}`], ['Authorization', `Bearer ${TEST_TOKEN}`]], '/private', 'invalid_bearer_token'],
    ['right token but on an unknown path: still 401 first', [], '/no/such/path', 'missing_bearer_token'],
    ['wrong token on an unknown path', [['Authorization', 'Bearer nope']], '/no/such/path', 'invalid_bearer_token'],
  ];
  for (const [name, headers, target, code] of cases) {
    test(`${name} → 401 ${code}`, async () => {
      const runsBefore = fixture.handlerRuns.count;
      const response = await send({ target, headers: [['Host', host], ...headers] });
      assert.equal(response.status, 401);
      assert.equal(errorCode(response), code);
      if (code === 'missing_bearer_token') assert.deepEqual(response.headers['www-authenticate'], ['Bearer']);
      else assert.match(response.headers['www-authenticate']?.[0] ?? '', /^Bearer/);
      assert.equal(fixture.handlerRuns.count, runsBefore, 'the handler must not run');
    });
  }

  test('a valid token is accepted, and the scheme is case-insensitive', async () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const response = await send({ target: '/private', headers: [['Host', host], ['Authorization', `${scheme} ${TEST_TOKEN}`]] });
      assert.equal(response.status, 200, scheme);
    }
  });

  test('GET /health (auth none) needs no token, and the route table is hidden behind the token', async () => {
    assert.equal((await send({ target: '/health', headers: [['Host', host]] })).status, 200);
    const withToken = await send({ target: '/no/such/path', headers: [['Host', host], auth()] });
    assert.equal(withToken.status, 404);
    assert.equal(errorCode(withToken), 'not_found');
    const postHealth = await send({ method: 'POST', target: '/health', headers: [['Host', host], json], body: '{}' });
    assert.equal(postHealth.status, 401, 'a method probe on a public path is still behind the token');
    const wrongMethod = await send({ method: 'PUT', target: '/private', headers: [['Host', host], auth(), json], body: '{}' });
    assert.equal(wrongMethod.status, 405);
    assert.equal(errorCode(wrongMethod), 'method_not_allowed');
    assert.deepEqual(wrongMethod.headers['allow'], ['DELETE, GET']);
  });

  test('handlers never see the Authorization header', async () => {
    const response = await send({ method: 'POST', target: '/echo', headers: [['Host', host], auth(), json], body: '{"a":1}' });
    assert.equal(response.status, 200);
    assert.equal(JSON.parse(response.body).sawAuthorization, false);
  });
});

describe('methods, content type and body', () => {
  test('methods outside the API are refused before routing', async () => {
    for (const method of ['TRACE', 'PROPFIND', 'LINK']) {
      const response = await send({ method, target: '/private', headers: [['Host', host], auth()] });
      assert.equal(response.status, 405, method);
      assert.equal(errorCode(response), 'method_not_allowed');
    }
    // Node's parser itself refuses methods HTTP does not define.
    const madeUp = await send({ method: 'FOO', target: '/private', headers: [['Host', host], auth()] });
    assert.equal(madeUp.status, 400);
    assert.equal(errorCode(madeUp), 'invalid_request');
  });

  const contentTypes: Array<[string | undefined, number]> = [
    [undefined, 415],
    ['text/plain', 415],
    ['text/plain;charset=UTF-8', 415],
    ['application/x-www-form-urlencoded', 415],
    ['multipart/form-data; boundary=x', 415],
    ['application/jsonx', 415],
    ['application/json; charset=latin1', 415],
    ['application/json; charset=utf-8; x=y', 415],
    ['application/json, text/plain', 415],
    ['application/json', 200],
    ['application/json; charset=utf-8', 200],
    ['Application/JSON;charset=UTF-8', 200],
    ['application/json; charset="utf-8"', 200],
  ];
  for (const [contentType, status] of contentTypes) {
    test(`POST with Content-Type ${contentType ?? '(none)'} → ${status}`, async () => {
      const headers: Array<[string, string]> = [['Host', host], auth()];
      if (contentType !== undefined) headers.push(['Content-Type', contentType]);
      const response = await send({ method: 'POST', target: '/echo', headers, body: '{"a":1}' });
      assert.equal(response.status, status);
      if (status === 415) assert.equal(errorCode(response), 'unsupported_media_type');
    });
  }

  test('the token is checked before the content type', async () => {
    const response = await send({ method: 'POST', target: '/echo', headers: [['Host', host], ['Content-Type', 'text/plain']], body: 'x' });
    assert.equal(errorCode(response), 'missing_bearer_token');
  });

  test('65 KiB body → 413 payload_too_large and the connection is closed', async () => {
    const body = `{"a":"${'x'.repeat(65 * 1024)}"}`;
    const response = await sendRaw(port, { method: 'POST', target: '/echo', headers: [['Host', host], auth(), json], body, close: false });
    assert.equal(response.status, 413);
    assert.equal(errorCode(response), 'payload_too_large');
    assert.deepEqual(response.headers['connection'], ['close']);
    assert.equal(response.closedByServer, true);
  });

  test('65 KiB chunked body (no Content-Length) → 413', async () => {
    const chunk = 'x'.repeat(65 * 1024);
    const body = `${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`;
    const response = await sendRaw(port, { method: 'POST', target: '/echo', headers: [['Host', host], auth(), json, ['Transfer-Encoding', 'chunked']], body, close: false });
    assert.equal(response.status, 413);
    assert.equal(response.closedByServer, true);
  });

  test('a body of exactly 64 KiB passes the cap', async () => {
    const body = `{"a":"${'x'.repeat(64 * 1024 - 8)}"}`;
    assert.equal(Buffer.byteLength(body), 64 * 1024);
    const response = await send({ method: 'POST', target: '/echo', headers: [['Host', host], auth(), json], body });
    assert.equal(response.status, 200);
    assert.equal(JSON.parse(response.body).bytes, 64 * 1024);
  });

  test('a route may raise the cap (the /v1 proxy takes 1 MiB)', async () => {
    const body = `{"a":"${'x'.repeat(200 * 1024)}"}`;
    const response = await send({ method: 'POST', target: '/big', headers: [['Host', host], auth(), json], body });
    assert.equal(response.status, 200);
    const tooBig = await send({ method: 'POST', target: '/big', headers: [['Host', host], auth(), json], body: `{"a":"${'x'.repeat(1024 * 1024)}"}` });
    assert.equal(tooBig.status, 413);
  });

  const badBodies: Array<[string, string | Buffer]> = [
    ['not JSON', 'hello'],
    ['empty body', ''],
    ['trailing comma', '{"a":1,}'],
    ['duplicate key', '{"a":1,"a":2}'],
    ['nesting deeper than the limit', `${'['.repeat(40)}${']'.repeat(40)}`],
    ['too many members', JSON.stringify(Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, i])))],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])],
    ['byte order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{}')])],
  ];
  for (const [name, body] of badBodies) {
    test(`${name} → 400 invalid_request param body`, async () => {
      const response = await send({ method: 'POST', target: '/echo', headers: [['Host', host], auth(), json], body });
      assert.equal(response.status, 400);
      assert.equal(errorCode(response), 'invalid_request');
      assert.equal(JSON.parse(response.body).error.param, 'body');
    });
  }

  for (const method of ['GET', 'DELETE']) {
    test(`${method} with a body → 400 invalid_request`, async () => {
      const response = await send({ method, target: '/private', headers: [['Host', host], auth(), json], body: '{}' });
      assert.equal(response.status, 400);
      assert.equal(errorCode(response), 'invalid_request');
    });
  }

  test('GET with Content-Length: 0 is fine', async () => {
    const response = await send({ target: '/private', headers: [['Host', host], auth(), ['Content-Length', '0']] });
    assert.equal(response.status, 200);
  });
});

describe('card-data guard', () => {
  const pan = '4111111111111111';
  const cases: Array<[string, () => RawRequest]> = [
    ['PAN in the path', () => ({ target: `/cards/${pan}`, headers: [['Host', host], auth()] })],
    ['percent-encoded PAN in the path', () => ({ target: `/cards/${pan.split('').map((d) => `%3${d}`).join('')}`, headers: [['Host', host], auth()] })],
    ['PAN with spaces in the query', () => ({ target: `/private?q=4111%201111%201111%201111`, headers: [['Host', host], auth()] })],
    ['cvv field in the query', () => ({ target: `/private?cvv=123`, headers: [['Host', host], auth()] })],
    ['PAN with dashes in a body string', () => ({ method: 'POST', target: '/echo', headers: [['Host', host], auth(), json], body: '{"note":"4111-1111-1111-1111"}' })],
    ['PAN as a JSON number', () => ({ method: 'POST', target: '/echo', headers: [['Host', host], auth(), json], body: `{"amount":${pan}}` })],
    ['cvv field in the body', () => ({ method: 'POST', target: '/echo', headers: [['Host', host], auth(), json], body: '{"card":{"cvv":"123"}}' })],
    ['card_number field in the body', () => ({ method: 'POST', target: '/echo', headers: [['Host', host], auth(), json], body: '{"card_number":"x"}' })],
  ];
  for (const [name, make] of cases) {
    test(`${name} → 400 card_data_not_accepted, never echoed or logged`, async () => {
      const logBefore = fixture.log.lines.length;
      const response = await send(make());
      assert.equal(response.status, 400);
      assert.equal(errorCode(response), 'card_data_not_accepted');
      assert.equal(holdsTestCardNumber(response.raw), false);
      assert.doesNotMatch(response.raw, /=123\b|"123"/, 'the cvv value is not echoed');
      const newLines = fixture.log.lines.slice(logBefore).join('\n');
      assert.ok(newLines.length > 0, 'the request was logged');
      assert.equal(holdsTestCardNumber(newLines), false);
      assert.equal(mentionsCvv(newLines), false, 'the cvv field name is not logged');
      assert.doesNotMatch(newLines, /=123\b|"123"/, 'the cvv value is not logged');
    });
  }

  test('a random request id that spells "cvv" is not the cvv field (the cause of a one-in-2,000 flake)', () => {
    const logged = (id: string) => JSON.stringify({ event: 'request', request_id: id, status: 400, code: 'card_data_not_accepted' });
    assert.equal(mentionsCvv(logged('req_k2cvv9ab3kx9pq2m7nzt4w8r')), false);
    assert.equal(mentionsCvv(logged('req_k2abc9ab3kx9pq2m7nzt4w8r')), false);
    assert.equal(mentionsCvv(`${logged('req_k2abc9ab3kx9pq2m7nzt4w8r')} "field":"cvv"`), true);
    assert.equal(mentionsCvv('card_CVV'), true, 'a name that is no random id still counts');
  });

  test('a card id, an 11-digit and a Luhn-invalid number pass', async () => {
    for (const target of ['/cards/card_ab3kx9pq2m7nzt4w8r6yv5hc', '/cards/12345678901', '/cards/1111111111111111', '/private?since=2026-11-21T05:38:04.123Z']) {
      const response = await send({ target, headers: [['Host', host], auth()] });
      assert.equal(response.status, 200, target);
    }
  });
});

describe('errors and request ids', () => {
  test('every answer carries X-Request-Id, and error bodies the same request_id', async () => {
    const ok = await send({ target: '/health', headers: [['Host', host]] });
    assert.match(ok.headers['x-request-id']?.[0] ?? '', /^req_[a-z0-9]{24}$/);
    for (const request of [
      { target: '/private', headers: [['Host', host]] as Array<[string, string]> },
      { target: '/private', headers: [['Host', 'evil.com']] as Array<[string, string]> },
      { target: '/latch-error', headers: [['Host', host], auth()] as Array<[string, string]> },
    ]) {
      const response = await send(request);
      const id = response.headers['x-request-id']?.[0];
      assert.match(id ?? '', /^req_/);
      assert.equal(JSON.parse(response.body).error.request_id, id);
    }
  });

  test('request ids differ between requests', async () => {
    const a = await send({ target: '/health', headers: [['Host', host]] });
    const b = await send({ target: '/health', headers: [['Host', host]] });
    assert.notEqual(a.headers['x-request-id']?.[0], b.headers['x-request-id']?.[0]);
  });

  test('a LatchError from a handler keeps its code and status', async () => {
    const response = await send({ target: '/latch-error', headers: [['Host', host], auth()] });
    assert.equal(response.status, 404);
    assert.equal(errorCode(response), 'card_not_found');
  });

  test('an unexpected exception → 500 internal_error with no detail in the answer or the log', async () => {
    const logBefore = fixture.log.lines.length;
    const response = await send({ target: '/boom', headers: [['Host', host], auth()] });
    assert.equal(response.status, 500);
    assert.equal(errorCode(response), 'internal_error');
    assert.equal(response.raw.includes('secret-detail'), false);
    const lines = fixture.log.lines.slice(logBefore).map((line) => JSON.parse(line) as Record<string, unknown>);
    const internal = lines.find((line) => line['event'] === 'internal_error');
    assert.equal(internal?.['cause'], 'Error');
    assert.equal(JSON.stringify(lines).includes('secret-detail'), false);
    // The server keeps serving.
    assert.equal((await send({ target: '/health', headers: [['Host', host]] })).status, 200);
  });

  test('malformed HTTP gets a JSON 400 and the server keeps serving', async () => {
    for (const garbage of ['GARBAGE\r\n\r\n', 'GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 'GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab']) {
      const response = await sendRaw(port, garbage);
      assert.equal(response.status, 400, JSON.stringify(garbage));
      assert.equal(errorCode(response), 'invalid_request');
    }
    assert.equal((await send({ target: '/health', headers: [['Host', host]] })).status, 200);
  });

  test('oversized headers are refused', async () => {
    const response = await send({ target: '/health', headers: [['Host', host], ['X-Big', 'x'.repeat(20 * 1024)]] });
    assert.equal(response.status, 400);
    assert.equal(errorCode(response), 'invalid_request');
  });
});

describe('request log', () => {
  test('one line per request with method, route pattern, status and request id; never the token, path values or query', async () => {
    const logBefore = fixture.log.lines.length;
    const response = await send({ target: '/cards/card_secretish?filter=qvalue', headers: [['Host', host], auth()] });
    const lines = fixture.log.lines.slice(logBefore).map((line) => JSON.parse(line) as Record<string, unknown>);
    const requestLines = lines.filter((line) => line['event'] === 'request');
    assert.equal(requestLines.length, 1);
    const line = requestLines[0] as Record<string, unknown>;
    assert.equal(line['method'], 'GET');
    assert.equal(line['route'], '/cards/:card_id');
    assert.equal(line['status'], 200);
    assert.equal(line['request_id'], response.headers['x-request-id']?.[0]);
    assert.equal(typeof line['ms'], 'number');
    const text = JSON.stringify(lines);
    assert.equal(text.includes('card_secretish'), false);
    assert.equal(text.includes('qvalue'), false);
  });

  test('the token never appears in the captured log', async () => {
    await send({ target: `/private?token=${TEST_TOKEN}`, headers: [['Host', host], ['Cookie', `t=${TEST_TOKEN}`]] });
    await send({ target: '/private', headers: [['Host', host], ['Authorization', `Bearer ${TEST_TOKEN}x`]] });
    await send({ target: `/nowhere/${TEST_TOKEN}`, headers: [['Host', host], auth()] });
    assert.ok(fixture.log.lines.length > 10);
    assert.equal(fixture.log.text().includes(TEST_TOKEN), false);
    assert.equal(fixture.log.text().includes(TEST_TOKEN.slice(0, 16)), false);
  });
});
