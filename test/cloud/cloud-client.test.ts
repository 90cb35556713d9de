import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudClient, parseCloudOrigin, type CloudRequest } from '../../src/cloud/cloud-client.js';
import { upstreamKeyOf } from '../support/test-signer.js';
import { generateSecretKey, publicKeyOf } from '../support/raw-signing.js';
import { parseSignature, verifyRequestSignature } from '../../src/verify/http-signature-verify.js';
import { contentDigestMatches } from '../../src/verify/http-signature-verify.js';
import { utf8 } from '../../src/crypto/base64url.js';
import { LatchError } from '../../src/errors/latch-error.js';

const secretKey = generateSecretKey();
const publicKey = publicKeyOf(secretKey);
const key = upstreamKeyOf(secretKey);

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

async function upstream(answer: (seen: Seen, count: number) => { status: number; body?: string; headers?: Record<string, string> } | 'hang') {
  const seen: Seen[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const entry = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) };
      seen.push(entry);
      const result = answer(entry, seen.length);
      if (result === 'hang') return;
      response.writeHead(result.status, { 'content-type': 'application/json', ...result.headers });
      response.end(result.body ?? '{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    seen,
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** client signs every request with the test key, as the daemon passes the key it resolved. */
function client(url: string, timeoutMs = 2000) {
  const inner = new CloudClient({ cloudUrl: url, userAgent: 'latch-test', timeoutMs, onRequestSigned: () => undefined, assertFetchCanRun: () => undefined });
  return { send: (request: CloudRequest) => inner.send({ key, ...request }) };
}

test('a POST carries a valid RFC 9421 signature over method, authority, path, query, type, digest and idempotency key', async () => {
  const cloud = await upstream(() => ({ status: 200, body: '{"ok":true}' }));
  try {
    const body = utf8('{"jws":"x"}');
    const response = await client(cloud.url).send({ method: 'POST', pathAndQuery: '/v1/authorizations?x=1', body, contentType: 'application/json', idempotencyKey: 'k1' });
    assert.equal(response.status, 200);
    const received = cloud.seen[0] as Seen;
    assert.equal(received.headers['idempotency-key'], 'k1');
    assert.equal(received.headers['authorization'], undefined);
    assert.ok(contentDigestMatches(received.headers['content-digest'] as string, received.body));
    const parsed = parseSignature(received.headers['signature-input'] as string, received.headers['signature'] as string, 'latch');
    assert.ok(parsed);
    assert.deepEqual(parsed.components, ['@method', '@authority', '@path', '@query', 'content-type', 'content-digest', 'idempotency-key']);
    assert.equal(parsed.params['alg'], 'ed25519');
    assert.equal(parsed.params['keyid'], key.keyId);
    assert.equal(Number(parsed.params['expires']) - Number(parsed.params['created']), 300);
    const [path, query = ''] = received.url.split('?');
    const signable = { method: received.method, authority: received.headers.host as string, path: path as string, query, headers: received.headers as Record<string, string> };
    assert.equal(verifyRequestSignature(signable, parsed, publicKey), true);
    assert.equal(verifyRequestSignature({ ...signable, path: '/v1/other' }, parsed, publicKey), false);
    assert.equal(verifyRequestSignature({ ...signable, headers: { ...signable.headers, 'idempotency-key': 'k2' } }, parsed, publicKey), false);
  } finally {
    await cloud.close();
  }
});

test('GET is retried on 503 with a fresh signature, at most twice', async () => {
  const cloud = await upstream(() => ({ status: 503, body: '{"error":{"code":"upstream_unavailable","message":"busy"}}' }));
  try {
    const response = await client(cloud.url).send({ method: 'GET', pathAndQuery: '/v1/wallet' });
    assert.equal(response.status, 503);
    assert.equal(cloud.seen.length, 3);
    const nonces = new Set(cloud.seen.map((s) => s.headers['signature-input']));
    assert.equal(nonces.size, 3, 'each attempt is signed anew');
  } finally {
    await cloud.close();
  }
});

test('a POST without an idempotency key is never retried', async () => {
  const cloud = await upstream(() => ({ status: 503 }));
  try {
    const response = await client(cloud.url).send({ method: 'POST', pathAndQuery: '/v1/wallet/allocate', body: utf8('{}') });
    assert.equal(response.status, 503);
    assert.equal(cloud.seen.length, 1);
  } finally {
    await cloud.close();
  }
});

test('redirects are passed back, never followed', async () => {
  const cloud = await upstream((seen) => (seen.url === '/v1/wallet' ? { status: 302, headers: { location: '/v1/elsewhere' } } : { status: 200 }));
  try {
    const response = await client(cloud.url).send({ method: 'GET', pathAndQuery: '/v1/wallet' });
    assert.equal(response.status, 302);
    assert.equal(cloud.seen.length, 1);
  } finally {
    await cloud.close();
  }
});

test('connection refused → 502 upstream_unavailable; a hanging cloud → 504', async () => {
  const closed = await upstream(() => ({ status: 200 }));
  await closed.close();
  await assert.rejects(client(closed.url).send({ method: 'GET', pathAndQuery: '/v1/wallet' }), (e: unknown) => e instanceof LatchError && e.code === 'upstream_unavailable' && e.status === 502);
  const hanging = await upstream(() => 'hang');
  try {
    await assert.rejects(client(hanging.url, 300).send({ method: 'GET', pathAndQuery: '/v1/wallet' }), (e: unknown) => e instanceof LatchError && e.code === 'upstream_unavailable' && e.status === 504);
  } finally {
    await hanging.close();
  }
});

test('no signing key → device_not_enrolled, nothing sent', async () => {
  const cloud = await upstream(() => ({ status: 200 }));
  try {
    const unenrolled = new CloudClient({ cloudUrl: cloud.url, userAgent: 't', onRequestSigned: () => undefined, assertFetchCanRun: () => undefined });
    await assert.rejects(unenrolled.send({ method: 'GET', pathAndQuery: '/v1/wallet' }), (e: unknown) => e instanceof LatchError && e.code === 'device_not_enrolled');
    assert.equal(cloud.seen.length, 0);
  } finally {
    await cloud.close();
  }
});

test('cloud_url must be an origin; plain http only for loopback', () => {
  assert.equal(parseCloudOrigin('https://api.example.com').href, 'https://api.example.com/');
  assert.equal(parseCloudOrigin('http://127.0.0.1:7000/').href, 'http://127.0.0.1:7000/');
  for (const bad of ['http://api.example.com', 'https://u:p@api.example.com', 'https://api.example.com/v1', 'ftp://x', 'not a url', 'https://a.example?x=1']) {
    assert.throws(() => parseCloudOrigin(bad), LatchError, bad);
  }
});

test('a cloud_url of http://localhost reaches 127.0.0.1, never a listener on [::1] at the same port', async () => {
  const cloud = await upstream(() => ({ status: 200, body: '{"ok":true}' }));
  const port = Number(new URL(cloud.url).port);
  // Another local user's program on the other loopback family (where this machine has one).
  const squatted: string[] = [];
  const squatter = http.createServer((request, response) => {
    squatted.push(request.url ?? '');
    response.end('{}');
  });
  const squatting = await new Promise<boolean>((resolve) => {
    squatter.once('error', () => resolve(false));
    squatter.listen(port, '::1', () => resolve(true));
  });
  try {
    const response = await client(`http://localhost:${port}`).send({ method: 'GET', pathAndQuery: '/v1/cards' });
    assert.equal(response.status, 200);
    const received = cloud.seen[0] as Seen;
    assert.equal(received.headers.host, `127.0.0.1:${port}`);
    const parsed = parseSignature(received.headers['signature-input'] as string, received.headers['signature'] as string, 'latch');
    assert.ok(parsed);
    const signable = { method: 'GET', authority: `127.0.0.1:${port}`, path: '/v1/cards', query: '', headers: received.headers as Record<string, string> };
    assert.equal(verifyRequestSignature(signable, parsed, publicKey), true, 'the signed @authority is 127.0.0.1');
    assert.deepEqual(squatted, [], squatting ? 'nothing reached [::1]' : 'no ::1 here');
  } finally {
    if (squatting) await new Promise<void>((resolve) => squatter.close(() => resolve()));
    await cloud.close();
  }
});
