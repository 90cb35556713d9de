/**
 * Request smuggling and malformed framing, written byte by byte on raw sockets to the real
 * daemon. Each outer request is an authenticated wallet allocation that carries a second,
 * smuggled allocation; the only acceptable outcomes are a 400 (or a closed connection) and no
 * money moved at all — never a 500, never one request read as two. A control case sends the
 * same two allocations honestly pipelined and sees both, so the money check can fail.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startStack, type Stack } from '../support/stack.js';
import { exchange, requestText } from './wire.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

interface Surface {
  name: string;
  port: () => number;
  path: string;
  body: () => string;
}

const surfaces: Surface[] = [
  { name: 'A /wallet/allocate', port: () => stack.portA, path: '/wallet/allocate', body: () => JSON.stringify({ card_id: stack.cards[0].card_id, amount: '1.00' }) },
  { name: 'B /wallet/allocate', port: () => stack.portB, path: '/wallet/allocate', body: () => JSON.stringify({ card_id: stack.cards[0].card_id, amount: 1 }) },
  { name: 'A /v1/wallet/allocate (proxy)', port: () => stack.portA, path: '/v1/wallet/allocate', body: () => JSON.stringify({ card_id: stack.cards[0].card_id, amount: '1.00' }) },
];

/** The headers every request here carries before its framing headers. */
function baseLines(surface: Surface): string {
  return `Host: 127.0.0.1:${surface.port()}\r\nAuthorization: Bearer ${stack.token()}\r\nContent-Type: application/json\r\n`;
}

/** A complete, valid allocation request: what a smuggler would hide inside the outer one. */
function inner(surface: Surface): string {
  const body = surface.body();
  return `POST ${surface.path} HTTP/1.1\r\n${baseLines(surface)}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

type Shape = (surface: Surface) => string;
const hex = (text: string): string => Buffer.byteLength(text).toString(16);

/** Each shape is a whole connection's worth of bytes. */
const shapes: Array<[string, Shape]> = [
  ['two equal Content-Length headers', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Content-Length: ${s.body().length}\r\nContent-Length: ${s.body().length}\r\n\r\n${s.body()}${inner(s)}`],
  ['two different Content-Length headers', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Content-Length: ${s.body().length}\r\nContent-Length: ${s.body().length + inner(s).length}\r\n\r\n${s.body()}${inner(s)}`],
  ['a Content-Length list', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Content-Length: ${s.body().length}, ${s.body().length}\r\n\r\n${s.body()}${inner(s)}`],
  ['Content-Length then Transfer-Encoding (CL.TE)', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Content-Length: ${s.body().length + 5}\r\nTransfer-Encoding: chunked\r\n\r\n${hex(s.body())}\r\n${s.body()}\r\n0\r\n\r\n${inner(s)}`],
  ['Transfer-Encoding then Content-Length (TE.CL)', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n${hex(s.body())}\r\n${s.body()}\r\n0\r\n\r\n${inner(s)}`],
  ['Transfer-Encoding twice', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n${hex(s.body())}\r\n${s.body()}\r\n0\r\n\r\n${inner(s)}`],
  ['Transfer-Encoding: gzip, chunked (a coding nobody decodes)', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Transfer-Encoding: gzip, chunked\r\n\r\n${hex(s.body())}\r\n${s.body()}\r\n0\r\n\r\n`],
  ['Transfer-Encoding: chunked, identity', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Transfer-Encoding: chunked, identity\r\n\r\n${hex(s.body())}\r\n${s.body()}\r\n0\r\n\r\n`],
  ['Transfer-Encoding: xchunked with Content-Length', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Transfer-Encoding: xchunked\r\nContent-Length: ${s.body().length}\r\n\r\n${s.body()}`],
  ['a space before the Transfer-Encoding colon', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Transfer-Encoding : chunked\r\nContent-Length: ${s.body().length}\r\n\r\n${s.body()}`],
  ['Transfer-Encoding folded onto a second line (obs-fold)', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Transfer-Encoding:\r\n chunked\r\nContent-Length: ${s.body().length}\r\n\r\n${s.body()}`],
  ['Content-Length folded onto a second line (obs-fold)', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Content-Length: 1\r\n ${s.body().length}\r\n\r\n${s.body()}`],
  ['an ordinary header folded (obs-fold)', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}X-Note: a\r\n\tb\r\nContent-Length: ${s.body().length}\r\n\r\n${s.body()}`],
  ['chunk size that is not hex', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Transfer-Encoding: chunked\r\n\r\nzz\r\n${s.body()}\r\n0\r\n\r\n`],
  ['negative chunk size', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Transfer-Encoding: chunked\r\n\r\n-1\r\n${s.body()}\r\n0\r\n\r\n`],
  ['chunk size that overflows 64 bits', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Transfer-Encoding: chunked\r\n\r\n1${'0'.repeat(16)}${hex(s.body())}\r\n${s.body()}\r\n0\r\n\r\n${inner(s)}`],
  ['chunk size with a 0x prefix', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Transfer-Encoding: chunked\r\n\r\n0x${hex(s.body())}\r\n${s.body()}\r\n0\r\n\r\n`],
  ['chunk size with a space inside', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Transfer-Encoding: chunked\r\n\r\n1 ${hex(s.body())}\r\n${s.body()}\r\n0\r\n\r\n`],
  ['chunk shorter than its data (the rest would be a request)', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Transfer-Encoding: chunked\r\n\r\n${hex(s.body())}\r\n${s.body()}${inner(s)}\r\n0\r\n\r\n`],
  ['chunk lines ending in bare LF', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Transfer-Encoding: chunked\r\n\r\n${hex(s.body())}\n${s.body()}\n0\n\n${inner(s)}`],
  ['a header in the chunked trailer that frames a body', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Transfer-Encoding: chunked\r\n\r\n${hex(s.body())}\r\n${s.body()}\r\n0\r\nContent-Length: ${inner(s).length}\r\n\r\n${inner(s)}`],
  ['a 20 KiB chunk extension', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Transfer-Encoding: chunked\r\n\r\n${hex(s.body())};${'x'.repeat(20 * 1024)}\r\n${s.body()}\r\n0\r\n\r\n`],
  ['header lines ending in bare LF', (s) => `POST ${s.path} HTTP/1.1\n${baseLines(s).replace(/\r\n/g, '\n')}Content-Length: ${s.body().length}\n\n${s.body()}${inner(s)}`],
  ['one bare LF among CRLFs', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}X-A: 1\nContent-Length: ${s.body().length}\r\n\r\n${s.body()}`],
  ['a bare CR inside the headers', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}X-A: 1\rContent-Length: 0\r\nContent-Length: ${s.body().length}\r\n\r\n${s.body()}`],
  ['a header name with a space', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Content Length: 0\r\nContent-Length: ${s.body().length}\r\n\r\n${s.body()}`],
  ['a space before the Content-Length colon', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Content-Length : ${s.body().length}\r\n\r\n${s.body()}${inner(s)}`],
  ['a tab in a header name', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}X\tA: 1\r\nContent-Length: ${s.body().length}\r\n\r\n${s.body()}`],
  ['a NUL in a header value', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}X-A: a\u0000b\r\nContent-Length: ${s.body().length}\r\n\r\n${s.body()}`],
  ['Content-Length with a plus sign', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Content-Length: +${s.body().length}\r\n\r\n${s.body()}`],
  ['negative Content-Length', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Content-Length: -1\r\n\r\n${s.body()}`],
  ['hexadecimal Content-Length', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Content-Length: 0x${hex(s.body())}\r\n\r\n${s.body()}`],
  ['Content-Length beyond 64 bits', (s) => `POST ${s.path} HTTP/1.1\r\n${baseLines(s)}Content-Length: 99999999999999999999999\r\n\r\n${s.body()}`],
  ['a lower-case method', (s) => `post ${s.path} HTTP/1.1\r\n${baseLines(s)}Content-Length: ${s.body().length}\r\n\r\n${s.body()}`],
  ['HTTP/1.2', (s) => `POST ${s.path} HTTP/1.2\r\n${baseLines(s)}Content-Length: ${s.body().length}\r\n\r\n${s.body()}`],
  ['an HTTP/2 preface', () => 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
  ['a request line without a version', (s) => `POST ${s.path}\r\n${baseLines(s)}Content-Length: ${s.body().length}\r\n\r\n${s.body()}`],
];

async function allocated(): Promise<string> {
  const wallet = await stack.a.get('/wallet/balance');
  assert.equal(wallet.status, 200, wallet.text);
  return wallet.body.allocated as string;
}

describe('smuggling shapes on every money-moving surface', () => {
  for (const surface of surfaces) {
    for (const [name, shape] of shapes) {
      test(`${surface.name}: ${name} → 400 or closed, nothing processed`, async () => {
        const before = await allocated();
        const answer = await exchange(surface.port(), shape(surface));
        assert.ok(!answer.statuses.some((status) => status >= 500), `never a 5xx: ${answer.text.slice(0, 300)}`);
        assert.ok(!answer.statuses.some((status) => status >= 200 && status < 300), `nothing processed: ${answer.text.slice(0, 300)}`);
        assert.ok(answer.statuses.length <= 1, `at most one answer on the connection: ${answer.statuses}`);
        if (answer.statuses.length === 1) {
          assert.equal(answer.statuses[0], 400, answer.text.slice(0, 300));
          assert.equal(answer.codes[0], 'invalid_request');
        }
        assert.ok(answer.closedByServer, 'the server closes a connection whose framing it cannot trust');
        assert.equal(await allocated(), before, 'no money moved');
      });
    }
  }
});

describe('refused requests whose body is a request', () => {
  for (const surface of surfaces) {
    test(`${surface.name}: a wrong token, text/plain or a GET carrying an allocation as its body → one refusal, no effect`, async () => {
      const before = await allocated();
      const payload = inner(surface);
      const host = `Host: 127.0.0.1:${surface.port()}\r\n`;
      const cases: Array<[string, number, string]> = [
        [`POST ${surface.path} HTTP/1.1\r\n${host}Authorization: Bearer wrong\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n${payload}`, 401, 'invalid_bearer_token'],
        [`POST ${surface.path} HTTP/1.1\r\n${host}Authorization: Bearer ${stack.token()}\r\nContent-Type: text/plain\r\nContent-Length: ${payload.length}\r\n\r\n${payload}`, 415, 'unsupported_media_type'],
        [`POST ${surface.path} HTTP/1.1\r\n${host}Authorization: Bearer ${stack.token()}\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n${payload}`, 400, 'invalid_request'],
        [`GET /cards HTTP/1.1\r\n${host}Authorization: Bearer ${stack.token()}\r\nContent-Length: ${payload.length}\r\n\r\n${payload}`, 400, 'invalid_request'],
        [`POST ${surface.path} HTTP/1.1\r\n${host}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${hex(payload)}\r\n${payload}\r\n0\r\n\r\n`, 401, 'missing_bearer_token'],
      ];
      for (const [bytes, status, code] of cases) {
        const answer = await exchange(surface.port(), bytes);
        assert.deepEqual(answer.statuses, [status], answer.text.slice(0, 300));
        assert.equal(answer.codes[0], code);
      }
      assert.equal(await allocated(), before);
    });
  }
});

describe('limits on the header section', () => {
  test('2,000 filler headers hiding a second Host, a second Authorization or an Origin → 400, never accepted', async () => {
    const filler = Array.from({ length: 2_000 }, (_, i): [string, string] => [`x${i}`, '1']);
    const base: Array<[string, string]> = [['Host', `127.0.0.1:${stack.portA}`], ['Authorization', `Bearer ${stack.token()}`]];
    for (const hidden of [['Host', 'evil.example:1'], ['Authorization', 'Bearer wrong'], ['Origin', 'https://evil.example'], ['Sec-Fetch-Site', 'cross-site']] as Array<[string, string]>) {
      const answer = await exchange(stack.portA, requestText('GET', '/cards', [...base, ...filler, hidden, ['Connection', 'close']]));
      assert.deepEqual(answer.statuses, [400], `${hidden[0]}: ${answer.text.slice(0, 200)}`);
      assert.equal(answer.codes[0], 'invalid_request');
    }
  });

  test('101 header fields are refused and 100 are accepted', async () => {
    const base: Array<[string, string]> = [['Host', `127.0.0.1:${stack.portB}`], ['Authorization', `Bearer ${stack.token()}`], ['Connection', 'close']];
    const filler = (n: number) => Array.from({ length: n }, (_, i): [string, string] => [`x-${i}`, 'a']);
    assert.deepEqual((await exchange(stack.portB, requestText('GET', '/health', [...base, ...filler(97)]))).statuses, [200]);
    assert.deepEqual((await exchange(stack.portB, requestText('GET', '/health', [...base, ...filler(98)]))).statuses, [400]);
  });

  test('a 20 KiB header, a 20 KiB request target and 16 KiB of cookies → 400 invalid_request, connection closed', async () => {
    const host = `Host: 127.0.0.1:${stack.portA}\r\n`;
    for (const bytes of [
      `GET /cards HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
      `GET /cards?${'q'.repeat(20 * 1024)} HTTP/1.1\r\n${host}\r\n`,
      `GET /cards HTTP/1.1\r\n${host}${Array.from({ length: 64 }, () => `Cookie: ${'c'.repeat(256)}\r\n`).join('')}\r\n`,
    ]) {
      const answer = await exchange(stack.portA, bytes);
      assert.deepEqual(answer.statuses, [400]);
      assert.equal(answer.codes[0], 'invalid_request');
      assert.ok(answer.closedByServer);
    }
  });

  test('Expect other than 100-continue → 400 with the error body; 100-continue works', async () => {
    const body = JSON.stringify({ amount: 1, merchant_name: 'expect.example' });
    const head = `POST /sign-policy-window HTTP/1.1\r\nHost: 127.0.0.1:${stack.portA}\r\nAuthorization: Bearer ${stack.token()}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n`;
    const odd = await exchange(stack.portA, `${head}Expect: 200-ok\r\n\r\n${body}`);
    assert.deepEqual(odd.statuses, [400]);
    assert.equal(odd.codes[0], 'invalid_request');
    assert.match(odd.text, /"param":"expect"/);
    const normal = await exchange(stack.portA, `${head}Expect: 100-continue\r\nConnection: close\r\n\r\n${body}`);
    assert.deepEqual(normal.statuses, [100, 200]);
  });
});

describe('tolerated oddities are one request, processed once', () => {
  // llhttp accepts extra spaces between the parts of the request line. With one listener and no
  // proxy in front, nothing else could read the same bytes differently, so this is harmless as
  // long as the request is what it appears to be: one allocation, once.
  for (const surface of surfaces) {
    test(`${surface.name}: extra spaces in the request line → one answer, 1.00 allocated`, async () => {
      const before = Number(await allocated());
      const body = surface.body();
      const answer = await exchange(surface.port(), `POST  ${surface.path}  HTTP/1.1\r\n${baseLines(surface)}Connection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      assert.deepEqual(answer.statuses, [200], answer.text.slice(0, 300));
      assert.equal(Number(await allocated()), before + 1);
    });
  }
});

describe('control: honest pipelining is served, so the checks above can see an effect', () => {
  for (const surface of surfaces) {
    test(`${surface.name}: two pipelined allocations → two answers, 2.00 allocated`, async () => {
      const before = Number(await allocated());
      const answer = await exchange(surface.port(), `${inner(surface)}${inner(surface).replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')}`);
      assert.deepEqual(answer.statuses, [200, 200], answer.text.slice(0, 500));
      assert.equal(Number(await allocated()), before + 2);
    });
  }
});
