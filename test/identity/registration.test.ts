/**
 * The daemon's registration of its identity keys with the cloud (docs/decisions.md §23.6), against
 * a fake cloud: a cloud without the route answers 404, which is logged and not retried until the
 * keys change; nothing throws; a daemon with no identity key registers nothing.
 */
import { testSigner } from '../support/test-signer.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { directoryRegistrar } from '../../src/daemon/identity-registration.js';
import type { ProxyUpstream } from '../../src/proxy/signing-proxy.js';
import { addAgent, removeAgent } from '../../src/datadir/agents.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { identityKeyring } from '../../src/identity/identity-keyring.js';
import { createLogger } from '../../src/log/logger.js';
import { tempHome } from '../datadir/temp-home.js';

function fakeCloud(status: number) {
  const sent: Array<{ method: string; path: string; body: { keys: Array<{ jwk: { kid: string } }> } }> = [];
  const upstream = {
    client: {
      origin: new URL('http://127.0.0.1:9'),
      send: async (request: { method: string; pathAndQuery: string; body: Uint8Array }) => {
        sent.push({ method: request.method, path: request.pathAndQuery, body: JSON.parse(new TextDecoder().decode(request.body)) });
        return { status, headers: new Headers(), rawBody: new TextEncoder().encode(status === 404 ? '{"error":{"code":"not_found"}}' : '{}') };
      },
    },
    key: { secretKey: new Uint8Array(32), publicKey: new Uint8Array(32), keyId: 'device' },
  } as unknown as ProxyUpstream;
  return { sent, upstream };
}

test('a cloud without the route answers 404: logged, not asked again until the keys change, nothing throws', async () => {
  const home = tempHome();
  addAgent(home, 'shopper');
  const { sent, upstream } = fakeCloud(404);
  const registrar = directoryRegistrar({ keys: identityKeyring(home), upstream: () => upstream, cloudNowSeconds: () => 1_800_000_000, logger: createLogger({ level: 'silent' }), signer: testSigner(new Uint8Array(32)).signer });
  registrar.check();
  await registrar.settled();
  assert.equal(sent.length, 1);
  assert.equal(sent[0]?.method, 'PUT');
  assert.equal(sent[0]?.path, '/v1/devices/identity-directory');
  assert.equal(registrar.last()?.status, 404);
  registrar.check();
  await registrar.settled();
  assert.equal(sent.length, 1, 'the same keys are not sent to a cloud that said 404');
  addAgent(home, 'travel');
  registrar.check();
  await registrar.settled();
  assert.equal(sent.length, 2, 'a new key is');
  assert.equal(sent[1]?.body.keys.length, 2);
  removeAgent(home, 'travel');
  registrar.check();
  await registrar.settled();
  assert.equal(sent[2]?.body.keys.length, 1, 'a removed agent is left out of the next registration');
});

test('nothing is registered before enrollment, nor when no identity key exists', async () => {
  const home = tempHome();
  const { sent, upstream } = fakeCloud(200);
  const logger = createLogger({ level: 'silent' });
  const unenrolled = directoryRegistrar({ keys: identityKeyring(home), upstream: () => { throw new LatchError('device_not_enrolled'); }, cloudNowSeconds: () => 1, logger, signer: testSigner(new Uint8Array(32)).signer });
  addAgent(home, 'shopper');
  unenrolled.check();
  await unenrolled.settled();
  const empty = directoryRegistrar({ keys: identityKeyring(tempHome()), upstream: () => upstream, cloudNowSeconds: () => 1, logger, signer: testSigner(new Uint8Array(32)).signer });
  empty.check();
  await empty.settled();
  assert.equal(sent.length, 0);
  assert.equal(empty.last(), undefined);
});
