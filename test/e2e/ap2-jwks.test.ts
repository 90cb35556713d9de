/**
 * GET /ap2/jwks and `latch ap2 key` on the real daemon and sandbox: the same public key, the
 * spec's members only, kid the RFC 7638 thumbprint (computed by jose), and a rotation that keeps
 * the old kid listed while the daemon runs on.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { calculateJwkThumbprint, importJWK } from 'jose';
import { runLatch, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

async function jwks(): Promise<{ keys: Record<string, string>[] }> {
  const answer = await fetch(`http://127.0.0.1:${stack.portA}/ap2/jwks`);
  assert.equal(answer.status, 200);
  return (await answer.json()) as { keys: Record<string, string>[] };
}

test('GET /ap2/jwks needs no token and lists the mandate key: EC P-256, ES256, sig, kid its RFC 7638 thumbprint, never d', async () => {
  const { keys } = await jwks();
  assert.equal(keys.length, 1);
  const key = keys[0] as Record<string, string>;
  assert.deepEqual(Object.keys(key).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
  assert.deepEqual([key['kty'], key['crv'], key['alg'], key['use']], ['EC', 'P-256', 'ES256', 'sig']);
  assert.equal(key['kid'], await calculateJwkThumbprint({ kty: 'EC', crv: 'P-256', x: key['x'] as string, y: key['y'] as string }));
  await importJWK(key, 'ES256');
  const device = (await stack.a.get('/health')).body.signing_key.key_id as string;
  assert.notEqual(key['kid'], device, 'the mandate key is not the device key');
});

test('latch ap2 key prints, and --out writes (0644), the same public JWK the daemon serves', async () => {
  const env = { LATCH_HOME: stack.home };
  const printed = await runLatch(['ap2', 'key', '--json'], env);
  assert.equal(printed.code, 0, printed.stderr);
  const served = (await jwks()).keys[0];
  assert.deepEqual(JSON.parse(printed.stdout).jwk, served);
  const file = path.join(stack.root, 'mandate.jwk');
  const written = await runLatch(['ap2', 'key', '--out', file], env);
  assert.equal(written.code, 0, written.stderr);
  assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), served);
  assert.equal(statSync(file).mode & 0o777, 0o644);
});

test('latch setup --rotate-mandate-key: the running daemon serves the new key first and keeps the old kid listed', async () => {
  const before = (await jwks()).keys[0] as Record<string, string>;
  const rotated = await runLatch(['setup', '--rotate-mandate-key', '--json'], { LATCH_HOME: stack.home });
  assert.equal(rotated.code, 0, rotated.stderr);
  const result = JSON.parse(rotated.stdout);
  assert.equal(result.old_key_id, before['kid']);
  const after = (await jwks()).keys.map((key) => key['kid']);
  assert.deepEqual(after, [result.key_id, before['kid']]);
  const misuse = await runLatch(['setup', '--rotate-mandate-key', '--token', 'x'], { LATCH_HOME: stack.home });
  assert.equal(misuse.code, 2);
});

test('latch setup makes mandate.key (0600) with the device key, before any daemon starts', async () => {
  const home = path.join(stack.root, 'fresh-home');
  const token = await stack.admin.post('/v1/sandbox/setup-tokens', {});
  assert.equal(token.status, 201, token.text);
  const setup = await runLatch(['setup', '--token', token.body.setup_token, '--cloud', stack.sandbox.url], { LATCH_HOME: home });
  assert.equal(setup.code, 0, setup.stderr);
  assert.equal(statSync(path.join(home, 'mandate.key')).mode & 0o777, 0o600);
  assert.equal(JSON.parse(readFileSync(path.join(home, 'mandate.key'), 'utf8')).format, 'raw');
});
