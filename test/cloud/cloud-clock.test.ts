import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CloudClock } from '../../src/cloud/cloud-clock.js';
import { CloudClient } from '../../src/cloud/cloud-client.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { upstreamKeyOf } from '../support/test-signer.js';
import { generateSecretKey } from '../support/raw-signing.js';

const LOCAL_MS = Date.parse('2026-11-23T12:00:00.300Z');

test('the cloud clock is learned from Date headers, to the second, and ignores nonsense', () => {
  const clock = new CloudClock(() => LOCAL_MS);
  assert.equal(clock.skewSeconds(), undefined);
  assert.equal(clock.nowSeconds(), Math.floor(LOCAL_MS / 1000), 'the device clock until the cloud has spoken');
  clock.observe('Mon, 23 Nov 2026 12:31:40 GMT');
  assert.equal(clock.skewSeconds(), 1900);
  assert.equal(clock.nowSeconds(), Math.floor(LOCAL_MS / 1000) + 1900);
  clock.observe('Mon, 23 Nov 2026 12:00:00 GMT');
  assert.equal(clock.skewSeconds(), 0, 'the same second as the device (the header truncates)');
  clock.observe('Mon, 23 Nov 2026 11:55:00 GMT');
  assert.equal(clock.skewSeconds(), -300);
  for (const bad of [null, '', 'yesterday', 'x'.repeat(100), 'Sat, 01 Jan 2100 00:00:00 GMT']) {
    clock.observe(bad);
    assert.equal(clock.skewSeconds(), -300, String(bad));
  }
  assert.match(clock.describeSkew(), /this device's clock reads 2026-11-23T12:00:00\.300Z, the cloud's 2026-11-23T11:55:00\.300Z \(-300 s apart\)/);
});

test("a signature_expired from a cloud whose clock is more than 300 s away becomes clock_skew naming both clocks", async () => {
  const secretKey = generateSecretKey();
  const key = upstreamKeyOf(secretKey);
  const answer = (date: string, code: string) => async () =>
    new Response(JSON.stringify({ error: { code, message: 'x' } }), { status: 401, headers: { 'content-type': 'application/json', date } });
  const send = (fetchImpl: typeof fetch) => {
    const clock = new CloudClock(() => LOCAL_MS);
    const client = new CloudClient({ cloudUrl: 'http://127.0.0.1:9', userAgent: 't', fetch: fetchImpl as typeof fetch, clock, onRequestSigned: () => undefined, assertFetchCanRun: () => undefined });
    return client.send({ method: 'GET', pathAndQuery: '/v1/cards', key });
  };
  await assert.rejects(send(answer('Mon, 23 Nov 2026 12:10:00 GMT', 'signature_expired') as typeof fetch), (error: unknown) => {
    return error instanceof LatchError && error.code === 'clock_skew' && /this device's clock reads 2026-11-23T12:00:00\.300Z, the cloud's 2026-11-23T12:10:00\.300Z/.test(error.message);
  });
  // Within the tolerance, or another refusal: the cloud's own answer passes through.
  assert.equal((await send(answer('Mon, 23 Nov 2026 12:04:00 GMT', 'signature_expired') as typeof fetch)).status, 401);
  assert.equal((await send(answer('Mon, 23 Nov 2026 12:10:00 GMT', 'invalid_signature') as typeof fetch)).status, 401);
});
