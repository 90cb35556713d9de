/**
 * Every byte of a real policy-window JWS changed, one at a time, and submitted to the cloud: the
 * daemon's /v1 proxy refuses each variant before the cloud (it forwards only the exact window it
 * holds, owner-presence §3), and the cloud itself, sent each variant with the device's own request
 * signature, refuses each too; the untouched JWS is then accepted once through the proxy — so no
 * variant was taken for it (its policy_id would have been spent).
 *
 * Variants: each character of the compact form replaced by another (a different base64url
 * character, or a dot replaced); every possible last character of each segment (where
 * non-canonical base64url could hide unused bits); and each decoded signature byte XOR 0x01.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startStack, type Stack } from '../support/stack.js';
import { SignedClient } from '../support/sandbox-client.js';
import { loadConfig } from '../../src/datadir/config.js';
import { loadDeviceKey } from '../../src/signer/device-key.js';
import { publicJwk } from '../../src/crypto/jwk.js';
import { secretOf } from '../support/raw-signing.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** Refusals a changed JWS may get: malformed, bad signature, or a kid that is not ours. */
const REFUSALS = new Set(['invalid_request', 'invalid_signature', 'device_key_not_recognized', 'local_key_not_recognized']);

/** variants lists every changed form of jws with a name for the failure message. */
function variants(jws: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const seen = new Set<string>([jws]);
  const add = (name: string, text: string): void => {
    if (seen.has(text)) return;
    seen.add(text);
    out.push([name, text]);
  };
  for (let i = 0; i < jws.length; i++) {
    const c = jws[i] as string;
    const replacement = c === '.' ? 'A' : (ALPHABET[(ALPHABET.indexOf(c) + 1 + (i % 62)) % 64] as string);
    add(`character ${i} ${JSON.stringify(c)} → ${JSON.stringify(replacement)}`, jws.slice(0, i) + replacement + jws.slice(i + 1));
  }
  let start = 0;
  for (const segment of jws.split('.')) {
    const last = start + segment.length - 1;
    for (const replacement of ALPHABET) add(`last character of the segment at ${start} → ${replacement}`, jws.slice(0, last) + replacement + jws.slice(last + 1));
    start += segment.length + 1;
  }
  const dot = jws.lastIndexOf('.');
  const signature = Buffer.from(jws.slice(dot + 1), 'base64url');
  for (let i = 0; i < signature.length; i++) {
    const flipped = Buffer.from(signature);
    flipped[i] = (flipped[i] as number) ^ 0x01;
    add(`signature byte ${i} ^ 0x01`, `${jws.slice(0, dot + 1)}${flipped.toString('base64url')}`);
  }
  return out;
}

/** inBatches runs task over items, `width` at a time. */
async function inBatches<T, R>(items: T[], width: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += width) results.push(...(await Promise.all(items.slice(i, i + width).map(task))));
  return results;
}

test('every changed byte of a policy-window JWS is refused by the cloud; the original is accepted once', async () => {
  const signed = await stack.a.post('/sign-card-policy-window', { card_id: stack.cards[0].card_id, amount: 1, merchant_name: 'flip.example' });
  assert.equal(signed.status, 200, signed.text);
  const jws = signed.body.jws as string;
  const all = variants(jws);
  assert.ok(all.length > jws.length, `${all.length} variants`);

  const proxied = await inBatches(all, 8, async ([name, text]) => ({ name, answer: await stack.a.post('/v1/authorizations', { jws: text }) }));
  const forwarded = proxied.filter(({ answer }) => answer.status !== 403 || answer.body?.error?.code !== 'proxy_route_not_allowed');
  assert.deepEqual(forwarded.map(({ name, answer }) => `${name}: ${answer.status}`), [], 'the proxy forwards no changed JWS');

  // The cloud on its own, asked by the device itself (a stolen key would do the same).
  const key = loadDeviceKey(stack.home);
  assert.ok(key !== undefined);
  const config = loadConfig(stack.home);
  const device = new SignedClient(stack.sandbox.url, { secretKey: secretOf(key), publicKey: key.publicKey, keyId: key.keyId, jwk: publicJwk(key.publicKey) }, config.device_id as string, stack.accountId);
  const answers = await inBatches(all, 8, async ([name, text]) => ({ name, answer: await device.request('POST', '/v1/authorizations', { jws: text }) }));
  const accepted = answers.filter(({ answer }) => answer.status < 400);
  assert.deepEqual(accepted.map(({ name }) => name), [], 'no changed JWS is accepted');
  const odd = answers.filter(({ answer }) => answer.status >= 500 || !REFUSALS.has(answer.body?.error?.code));
  assert.deepEqual(odd.map(({ name, answer }) => `${name}: ${answer.status} ${answer.text.slice(0, 120)}`), [], 'each refusal is a 4xx naming the JWS');

  const original = await stack.a.post('/v1/authorizations', { jws });
  assert.equal(original.status, 201, `the untouched window is valid, and no variant spent its policy_id: ${original.text}`);
  const again = await device.request('POST', '/v1/authorizations', { jws });
  assert.equal(again.status, 400, 'a window is registered once (the cloud)');
  assert.equal(again.body.error.param, 'policy_id');
  const againProxied = await stack.a.post('/v1/authorizations', { jws });
  assert.equal(againProxied.body.error.code, 'proxy_route_not_allowed', 'and the proxy sends it once');
});
