/**
 * Never send a secret to an unproven peer (owner-presence §2): before the client sends a
 * passphrase, the peer must sign a fresh challenge with the pinned daemon key, bound to the
 * address the client connected to. A port squatter with a fake /health — answering with no proof,
 * its own key's proof, or the real daemon's proof relayed from another address — gets
 * daemon_not_verified and never sees the passphrase.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LatchClient } from '../../src/client/latch-client.js';
import { LatchClientError } from '../../src/client/client-errors.js';
import { readPinnedKey, writePinnedKey } from '../../src/client/pinned-key.js';
import { toBase64Url } from '../../src/crypto/base64url.js';
import { generateSecretKey, publicKeyOf, signEd25519 } from '../support/raw-signing.js';
import { keyIdOf } from '../../src/crypto/jwk.js';
import { clearApprovalPassphrase, setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { loadConfig } from '../../src/datadir/config.js';
import { keyProofMessage } from '../../src/http/daemon-proof.js';
import { startStack, type Stack } from '../support/stack.js';

const PASSPHRASE = 'pinned and proven passphrase';
let stack: Stack;
before(async () => {
  stack = await startStack();
  setApprovalPassphrase(stack.home, PASSPHRASE);
});
after(async () => {
  clearApprovalPassphrase(stack.home);
  await stack.close();
});

type Answer = (request: http.IncomingMessage, response: http.ServerResponse, port: number) => void | Promise<void>;

/** A squatter on an ephemeral port: answers /health as told and records every byte it is sent. */
async function squatter(answer: Answer): Promise<{ url: string; seen: () => string; close: () => Promise<void> }> {
  let seen = '';
  let port = 0;
  const server = http.createServer((request, response) => {
    seen += `${request.method} ${request.url}\n${JSON.stringify(request.headers)}\n`;
    request.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    request.on('end', () => void answer(request, response, port));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, seen: () => seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const healthBody = JSON.stringify({ status: 'ok', version: '1.0.0', uptime_seconds: 1, signing_key: null, paused: null, owner_presence: 'passphrase' });

describe('the client proves the daemon against the pinned key before any passphrase', () => {
  const squatters: Array<(request: http.IncomingMessage, port: number) => Record<string, string> | Promise<Record<string, string>>> = [];
  // 1. A fake /health with no proof at all.
  squatters.push(() => ({}));
  // 2. A proof signed by the squatter's own key, for the right challenge and address.
  const ownKey = generateSecretKey();
  squatters.push((request, port) => {
    const challenge = request.headers['latch-challenge'] as string;
    const signature = signEd25519(keyProofMessage(challenge, `127.0.0.1:${port}`), ownKey);
    return { 'latch-key-proof': `${keyIdOf(publicKeyOf(ownKey))}.${toBase64Url(publicKeyOf(ownKey))}.${toBase64Url(signature)}` };
  });
  // 3. The real daemon's proof, relayed: it binds the daemon's own address, not the squatter's.
  squatters.push(async (request) => {
    const relayed = await fetch(`http://127.0.0.1:${stack.portA}/health`, { headers: { 'latch-challenge': request.headers['latch-challenge'] as string } });
    const proof = relayed.headers.get('latch-key-proof');
    assert.ok(proof !== null, 'the real daemon gave a key proof to relay');
    return { 'latch-key-proof': proof };
  });
  // 4. The pinned key id with someone else's public key.
  squatters.push((request, port) => {
    const challenge = request.headers['latch-challenge'] as string;
    const signature = signEd25519(keyProofMessage(challenge, `127.0.0.1:${port}`), ownKey);
    return { 'latch-key-proof': `${loadConfig(stack.home).key_id}.${toBase64Url(publicKeyOf(ownKey))}.${toBase64Url(signature)}` };
  });

  squatters.forEach((headersFor, index) => {
    test(`squatter ${index + 1}: daemon_not_verified, and the passphrase never reaches it (session, approve, PUT /policy)`, async () => {
      const fake = await squatter(async (request, response, port) => {
        const extra = request.url === '/health' ? await headersFor(request, port) : {};
        response.writeHead(200, { 'content-type': 'application/json', ...extra });
        response.end(request.url === '/health' ? healthBody : JSON.stringify({ token: 'los_x', expires_at: '2030-01-01T00:00:00Z' }));
      });
      try {
        const client = new LatchClient({ home: stack.home, baseUrl: fake.url, env: {} });
        const attempts = [client.openOwnerSession(PASSPHRASE), client.approve('ap_abc123', { passphrase: PASSPHRASE }), client.putPolicy('{"v":1}', { passphrase: PASSPHRASE })];
        for (const attempt of attempts) {
          await assert.rejects(attempt, (error) => error instanceof LatchClientError && error.code === 'daemon_not_verified');
        }
        assert.ok(!fake.seen().includes(PASSPHRASE), 'the passphrase was never sent');
        assert.ok(!fake.seen().includes(stack.token()), 'nor the token');
        assert.match(fake.seen(), /GET \/health/, 'the squatter was asked for the proof');
      } finally {
        await fake.close();
      }
    });
  });

  test('nothing pinned (no daemon_key.pub, no key_id in config.json): daemon_not_verified, nothing sent', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'latch-pin-'));
    try {
      assert.equal(readPinnedKey(empty), undefined);
      const client = new LatchClient({ home: empty, baseUrl: `http://127.0.0.1:${stack.portA}`, env: {} });
      await assert.rejects(client.openOwnerSession(PASSPHRASE), (error) => error instanceof LatchClientError && error.code === 'daemon_not_verified');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  test('the real daemon proves the pinned key (config.json, or daemon_key.pub in a home without the token); a session then acts as the owner with presence', async () => {
    const client = new LatchClient({ home: stack.home, baseUrl: `http://127.0.0.1:${stack.portA}`, env: {} });
    await client.openOwnerSession(PASSPHRASE);
    assert.equal(client.hasOwnerSession(), true);
    const added = await client.addAgent('pinned-helper');
    assert.match(added.token, /^[A-Za-z0-9_-]{43}$/);
    await client.endOwnerSession();
    client.close();

    // An owner's own LATCH_HOME with only the pin, as in the separate-user setup: no token, no key.
    const own = mkdtempSync(path.join(tmpdir(), 'latch-owner-'));
    try {
      const key = (await (await fetch(`http://127.0.0.1:${stack.portA}/health`)).json()) as { signing_key: { public_key: string } };
      writePinnedKey(own, Buffer.from(key.signing_key.public_key, 'base64url'));
      assert.equal(readPinnedKey(own)?.source, 'daemon_key.pub');
      const owner = new LatchClient({ home: own, baseUrl: `http://127.0.0.1:${stack.portA}`, env: {} });
      await owner.openOwnerSession(PASSPHRASE);
      assert.ok((await owner.listAgents()).agents.some((agent) => agent.name === 'pinned-helper'));
      await owner.removeAgent('pinned-helper');
      owner.close();
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});
