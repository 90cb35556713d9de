/**
 * The baseline: a bare node:http server on loopback, started the same way as the daemon, doing
 * the least work each daemon figure is compared with.
 *
 * - `GET /health` answers `{"status":"ok"}`.
 * - `POST /sign-card-policy-window` reads the body (at most 64 KiB), parses the JSON, and signs a
 *   payload of the same shape and size as the daemon's policy window with one @noble/ed25519
 *   signature. No token, no validation, no audit log: what is left is the floor of the design.
 * - `GET /v1/wallet` answers a fixed wallet without verifying anything: the upstream for the /v1
 *   proxy figures, so that those measure the daemon and not a cloud.
 *
 *     node --import tsx bench/bare-server.ts [--port N]
 *
 * Once listening it prints `{"event":"listening","port":N}` on stdout.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { toBase64Url, utf8 } from '../src/crypto/base64url.js';
import { generateSecretKey, signEd25519 } from '../test/support/raw-signing.js';

const BODY_BYTES_MAX = 64 * 1024;
const WALLET = Buffer.from(JSON.stringify({ usdt: '250.00', allocated: '150.00', available: '100.00', currency: 'USDT' }));
const HEALTH = Buffer.from(JSON.stringify({ status: 'ok' }));

const key = generateSecretKey();
const portIndex = process.argv.indexOf('--port');
const port = portIndex === -1 ? 0 : Number(process.argv[portIndex + 1]);

const server = http.createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/health') return answer(response, 200, HEALTH);
  if (request.method === 'GET' && request.url === '/v1/wallet') return answer(response, 200, WALLET);
  if (request.method === 'POST' && request.url === '/sign-card-policy-window') return signWindow(request, response);
  answer(response, 404, Buffer.from('{"error":{"code":"not_found"}}'));
});

function signWindow(request: http.IncomingMessage, response: http.ServerResponse): void {
  const chunks: Buffer[] = [];
  let bytes = 0;
  request.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > BODY_BYTES_MAX) request.destroy();
    else chunks.push(chunk);
  });
  request.on('end', () => {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      return answer(response, 400, Buffer.from('{"error":{"code":"invalid_request"}}'));
    }
    const now = Math.floor(Date.now() / 1000);
    const payload = {
      v: 1,
      typ: 'card_policy_window',
      policy_id: `pw_${randomBytes(12).toString('hex')}`,
      device_id: 'dev_baseline',
      card_id: body['card_id'],
      merchant: body['merchant_name'],
      amount: String(body['amount']),
      currency: body['currency'] ?? 'USD',
      authorization_type: 'exact',
      kind: 'one_time',
      not_before: now,
      not_after: now + 1800,
      nonce: randomBytes(16).toString('hex'),
      iat: now,
    };
    const signingInput = `${toBase64Url(utf8('{"alg":"EdDSA","kid":"baseline"}'))}.${toBase64Url(utf8(JSON.stringify(payload)))}`;
    const jws = `${signingInput}.${toBase64Url(signEd25519(utf8(signingInput), key))}`;
    answer(response, 200, Buffer.from(JSON.stringify({ policy_window: payload, jws, key_id: 'baseline' })));
  });
}

function answer(response: http.ServerResponse, status: number, body: Buffer): void {
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
  response.end(body);
}

server.listen(port, '127.0.0.1', () => {
  const address = server.address() as { port: number };
  process.stdout.write(`${JSON.stringify({ event: 'listening', port: address.port })}\n`);
});

const stop = (): void => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
