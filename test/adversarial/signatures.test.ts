/**
 * Signatures attacked from the network: a man in the middle between the daemon and the cloud
 * captures what the daemon signs, then replays, alters or delays it; policy-window JWS are
 * changed byte by byte; windows are signed by other devices' keys. Everything runs against the
 * real sandbox, which enforces exactly what the cloud must (decisions §5, §6).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { contentDigest } from '../../src/crypto/content-digest.js';
import { loadConfig } from '../../src/datadir/config.js';
import { loadDeviceKey } from '../../src/signer/device-key.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/create-sandbox.js';
import { startExtraDaemon, type ExtraDaemon } from '../support/extra-daemon.js';
import { AdminClient, enrollDevice, send, signedHeaders, SignedClient, type TestKey } from '../support/sandbox-client.js';
import { startStack, type Stack } from '../support/stack.js';
import { replay, startRecordingProxy, type CapturedRequest, type RecordingProxy } from './recording-proxy.js';
import { secretOf } from '../support/raw-signing.js';

let stack: Stack;
let proxy: RecordingProxy;
let daemon: ExtraDaemon;
let admin: AdminClient;
/** A sandbox restarted by a test; the stack only knows how to close the one it started. */
let restarted: Sandbox | undefined;

before(async () => {
  stack = await startStack();
  proxy = await startRecordingProxy(stack.sandbox.url);
  // The proxy stands in front of the cloud like a load balancer: the cloud answers to its name too.
  stack.sandbox.addAuthority(new URL(proxy.url).host);
  daemon = await startExtraDaemon(stack.home, { LATCH_CLOUD_URL: proxy.url });
  admin = new AdminClient(stack.sandbox.url, stack.sandbox.adminKey);
});
after(async () => {
  await daemon.close();
  await proxy.close();
  await restarted?.close();
  await stack.close();
});

/** The stack's own device key, as a TestKey for signing requests by hand. */
function deviceKey(): { key: TestKey; deviceId: string } {
  const key = loadDeviceKey(stack.home);
  assert.ok(key !== undefined);
  const deviceId = loadConfig(stack.home).device_id;
  assert.ok(deviceId !== undefined);
  return { key: { secretKey: secretOf(key), publicKey: key.publicKey, keyId: key.keyId, jwk: key.publicJwk }, deviceId };
}

/** capture makes the daemon send one request through the proxy and returns it as sent. */
async function capture(mode: 'forward' | 'keep', call: () => Promise<{ status: number }>): Promise<CapturedRequest> {
  proxy.mode = mode;
  const before = proxy.captured.length;
  await call();
  proxy.mode = 'forward';
  assert.equal(proxy.captured.length, before + 1, 'the daemon sent exactly one request');
  return proxy.captured[before] as CapturedRequest;
}

async function cardBalance(cardIndex: 0 | 1 = 0): Promise<{ balance: string; held: string }> {
  const state = await admin.state();
  const cardId = stack.cards[cardIndex].card_id;
  const card = (state['cards'] as Array<Record<string, string>>).find((c) => c['card_id'] === cardId);
  assert.ok(card !== undefined);
  return { balance: card['balance'] as string, held: card['held'] as string };
}

const allocation = () => ({ card_id: stack.cards[0].card_id, amount: '1.00' });

describe('captured upstream requests', () => {
  test('each request the daemon signed is refused when replayed: replayed_request, no second effect', async () => {
    const calls: Array<[string, () => Promise<{ status: number }>]> = [
      ['GET /v1/cards (a read)', () => daemon.a.get('/cards')],
      ['POST /v1/wallet/allocate (moves money)', () => daemon.a.post('/wallet/allocate', allocation())],
      ['POST /v1/authorizations (a window)', () => daemon.a.post('/authorize', { card_id: stack.cards[0].card_id, amount: 2, merchant_name: 'replay.example' })],
      ['a request through the /v1 proxy', () => daemon.a.get('/v1/wallet')],
    ];
    for (const [name, call] of calls) {
      const captured = await capture('forward', async () => {
        const answer = await call();
        assert.ok(answer.status < 300, `${name}: the original succeeds`);
        return answer;
      });
      const before = await cardBalance();
      const replayed = await replay(stack.sandbox.url, captured);
      assert.equal(replayed.status, 401, `${name}: ${replayed.text}`);
      assert.equal(replayed.body.error.code, 'replayed_request', name);
      assert.deepEqual(await cardBalance(), before, `${name}: nothing changed`);
    }
  });

  test('a replay after the sandbox restarts is still refused (nonces are journaled)', async () => {
    const captured = await capture('forward', () => daemon.a.post('/wallet/allocate', allocation()));
    const { port, journalPath } = stack.sandbox;
    await stack.sandbox.close();
    // Same port, so the stack's clients and the proxy still reach it.
    restarted = await createSandbox({ dataDir: path.dirname(journalPath), port, host: '127.0.0.1' });
    restarted.addAuthority(new URL(proxy.url).host);
    const replayed = await replay(restarted.url, captured);
    assert.equal(replayed.body?.error?.code, 'replayed_request', replayed.text);
  });

  test('20 concurrent copies of a signed request the cloud never saw: exactly one is served', async () => {
    const kept = await capture('keep', () => daemon.a.post('/wallet/allocate', allocation()));
    const before = await cardBalance();
    const answers = await Promise.all(Array.from({ length: 20 }, () => replay(stack.sandbox.url, kept)));
    assert.equal(answers.filter((a) => a.status === 200).length, 1, answers.map((a) => a.status).join(','));
    assert.ok(answers.filter((a) => a.status !== 200).every((a) => a.body?.error?.code === 'replayed_request'));
    assert.equal(Number((await cardBalance()).balance), Number(before.balance) + 1, 'moved exactly once');
  });

  test('a request altered after signing is refused, whatever was changed; the untouched original still passes', async () => {
    const kept = await capture('keep', () => daemon.a.post('/wallet/allocate', allocation()));
    const before = await cardBalance();
    const richer = Buffer.from(kept.body.toString('utf8').replace('"1.00"', '"9.00"'));
    assert.notDeepEqual(richer, kept.body);
    const otherCard = Buffer.from(kept.body.toString('utf8').replace(stack.cards[0].card_id, stack.cards[1].card_id));
    const alterations: Array<[string, Partial<CapturedRequest>]> = [
      ['the amount, Content-Digest left as signed', { body: richer }],
      ['the amount, with a recomputed Content-Digest', { body: richer, headers: { ...kept.headers, 'content-digest': contentDigest(richer) } }],
      ['the card, with a recomputed Content-Digest', { body: otherCard, headers: { ...kept.headers, 'content-digest': contentDigest(otherCard) } }],
      ['a query added to the path', { target: `${kept.target}?card_id=${stack.cards[1].card_id}` }],
      ['the Host (another authority)', { headers: { ...kept.headers, host: 'api.example.com' } }],
      ['the content type', { headers: { ...kept.headers, 'content-type': 'application/json; charset=utf-8' } }],
      ['the signature’s parameters (created moved)', { headers: { ...kept.headers, 'signature-input': (kept.headers['signature-input'] as string).replace(/created=(\d+)/, (_m, n: string) => `created=${Number(n) + 1}`) } }],
      ['the nonce (a fresh one)', { headers: { ...kept.headers, 'signature-input': (kept.headers['signature-input'] as string).replace(/nonce="[^"]+"/, 'nonce="AAAAAAAAAAAAAAAAAAAAAA"') } }],
      ['the algorithm named in the signature', { headers: { ...kept.headers, 'signature-input': (kept.headers['signature-input'] as string).replace(/alg="ed25519"/, 'alg="hmac-sha256"') } }],
      ['the covered components (content-digest dropped)', { headers: { ...kept.headers, 'signature-input': (kept.headers['signature-input'] as string).replace(' "content-digest"', '') } }],
      ['the signature removed', { headers: Object.fromEntries(Object.entries(kept.headers).filter(([name]) => name !== 'signature')) }],
    ];
    for (const [name, changes] of alterations) {
      const answer = await replay(stack.sandbox.url, kept, changes);
      assert.equal(answer.status, 401, `${name}: ${answer.text}`);
      assert.equal(answer.body.error.code, 'invalid_signature', name);
    }
    assert.deepEqual(await cardBalance(), before, 'no alteration moved money');
    const original = await replay(stack.sandbox.url, kept);
    assert.equal(original.status, 200, `the untouched request was valid all along: ${original.text}`);
  });
});

describe('the Idempotency-Key', () => {
  test('stripped or changed by a man in the middle → invalid_signature, nothing moved; the untouched original still passes', async () => {
    const kept = await capture('keep', () => daemon.a.post('/wallet/allocate', allocation()));
    assert.ok(kept.headers['idempotency-key'] !== undefined, 'the daemon sends an Idempotency-Key with an allocation');
    const before = await cardBalance();
    const withoutKey = Object.fromEntries(Object.entries(kept.headers).filter(([name]) => name !== 'idempotency-key'));
    const alterations: Array<[string, Record<string, string>]> = [
      ['the Idempotency-Key removed', withoutKey],
      ['the Idempotency-Key changed', { ...kept.headers, 'idempotency-key': 'idem_chosen_by_the_attacker' }],
    ];
    for (const [name, headers] of alterations) {
      const answer = await replay(stack.sandbox.url, kept, { headers });
      assert.equal(answer.status, 401, `${name}: ${answer.text}`);
      assert.equal(answer.body.error.code, 'invalid_signature', name);
    }
    assert.deepEqual(await cardBalance(), before, 'no alteration moved money');
    const original = await replay(stack.sandbox.url, kept);
    assert.equal(original.status, 200, `the untouched request was valid all along: ${original.text}`);
  });

  test('a man in the middle that strips the key and answers 503: the daemon’s retries move the money at most once', async () => {
    const before = await cardBalance();
    const sentBefore = proxy.captured.length;
    proxy.mode = 'strip-idempotency-key';
    proxy.stripped.length = 0;
    try {
      await daemon.a.post('/wallet/allocate', allocation());
    } finally {
      proxy.mode = 'forward';
    }
    assert.ok(proxy.captured.length - sentBefore >= 2, 'the daemon retried (the attack needs retries)');
    const moved = Number((await cardBalance()).balance) - Number(before.balance);
    assert.ok(moved <= 1, `the allocation of 1.00 moved ${moved} in ${proxy.stripped.length} attempts`);
    for (const answer of proxy.stripped) assert.equal(answer.body?.error?.code, 'invalid_signature', answer.text);
  });
});

describe('signature freshness', () => {
  test('created too old or in the future, or expires passed → signature_expired, nothing moved', async () => {
    const { key } = deviceKey();
    const body = new TextEncoder().encode(JSON.stringify(allocation()));
    const before = await cardBalance();
    // Each case's times are taken just before it is signed: on a loaded machine the earlier cases
    // can take seconds, and a "301 s in the future" fixed at the start was then inside the window
    // by the time it was sent (issue 37 item 10). The future case keeps a few seconds' margin too.
    for (const [name, times] of [
      ['created 301 s ago', (now: number) => [now - 301, now - 1]],
      ['created 10 minutes ago, expires in the future', (now: number) => [now - 600, now + 600]],
      ['created 305 s in the future', (now: number) => [now + 305, now + 605]],
      ['expired a second ago', (now: number) => [now - 10, now - 1]],
      ['expires before created', (now: number) => [now, now - 1]],
    ] as Array<[string, (now: number) => [number, number]]>) {
      const [created, expires] = times(Math.floor(Date.now() / 1000));
      const headers = signedHeaders(stack.sandbox.url, key, 'POST', '/v1/wallet/allocate', body, { created, expires });
      const answer = await send(stack.sandbox.url, { method: 'POST', target: '/v1/wallet/allocate', headers, body });
      assert.equal(answer.status, 401, `${name}: ${answer.text}`);
      assert.equal(answer.body.error.code, 'signature_expired', name);
    }
    assert.deepEqual(await cardBalance(), before);
    // The same key and body, signed now, pass: only the times were wrong.
    const fresh = signedHeaders(stack.sandbox.url, key, 'POST', '/v1/wallet/allocate', body);
    assert.equal((await send(stack.sandbox.url, { method: 'POST', target: '/v1/wallet/allocate', headers: fresh, body })).status, 200);
  });
});

describe('other devices’ keys', () => {
  let stranger: SignedClient;
  let sibling: SignedClient;
  before(async () => {
    stranger = await enrollDevice(admin);
    sibling = await enrollDevice(admin, stack.accountId);
  });

  const windowFor = (signer: SignedClient, overrides: Record<string, unknown> = {}) => signer.signJws(signer.windowPayload({ card_id: stack.cards[1].card_id, amount: '3.00', merchant: 'keys.example', ...overrides }));
  /** This daemon's device asking the cloud itself: the cloud's own verdict on a JWS, without the proxy's rule. */
  const ours = () => {
    const { key, deviceId } = deviceKey();
    return new SignedClient(stack.sandbox.url, key, deviceId, stack.accountId);
  };

  test('a window for this account’s card signed by another account’s device is refused, however it is submitted', async () => {
    const before = await cardBalance(1);
    const jws = windowFor(stranger);
    const byStranger = await stranger.request('POST', '/v1/authorizations', { jws });
    assert.equal(byStranger.status, 404, byStranger.text);
    assert.equal(byStranger.body.error.code, 'card_not_found', 'another account’s card does not exist for the stranger');
    // The daemon's proxy never forwards a window it did not sign and hold (owner-presence §3) ...
    assertProxyRefused(await daemon.a.post('/v1/authorizations', { jws }));
    // ... and the cloud refuses it when this device sends it itself.
    assertKeyRefused(await ours().request('POST', '/v1/authorizations', { jws }));
    const posing = windowFor(stranger, { device_id: deviceKey().deviceId });
    assertProxyRefused(await daemon.a.post('/v1/authorizations', { jws: posing }));
    assertKeyRefused(await ours().request('POST', '/v1/authorizations', { jws: posing }), 'claiming our device id does not help');
    assert.deepEqual(await cardBalance(1), before, 'no hold was placed');
  });

  test('this device’s own window, submitted by another account’s device, is refused', async () => {
    const signed = await stack.a.post('/sign-card-policy-window', { card_id: stack.cards[1].card_id, amount: 3, merchant_name: 'keys.example' });
    assert.equal(signed.status, 200);
    const answer = await stranger.request('POST', '/v1/authorizations', { jws: signed.body.jws });
    assert.equal(answer.status, 401, answer.text);
    assert.equal(answer.body.error.code, 'device_key_not_recognized');
  });

  test('a revocation signed by another account’s device cannot end this account’s window', async () => {
    const created = await stack.a.post('/authorize', { card_id: stack.cards[1].card_id, amount: 1, merchant_name: 'revoke.example' });
    assert.equal(created.status, 200, created.text);
    const answer = await stranger.revoke(created.body.policy_id);
    assert.ok(answer.status >= 400 && answer.status < 500, answer.text);
    const state = await admin.state();
    const window = (state['authorizations'] as Array<Record<string, string>>).find((a) => a['policy_id'] === created.body.policy_id);
    assert.equal(window?.['status'], 'active');
  });

  test('decision: a second device enrolled to the same account may sign for the account’s cards', async () => {
    const own = await sibling.request('POST', '/v1/authorizations', { jws: windowFor(sibling) });
    assert.equal(own.status, 201, own.text);
    // The kid must belong to the card's account, whichever of its devices sends the request.
    const relayed = await ours().request('POST', '/v1/authorizations', { jws: windowFor(sibling) });
    assert.equal(relayed.status, 201, relayed.text);
    // This daemon's proxy does not relay it: it forwards only windows it signed and holds.
    assertProxyRefused(await daemon.a.post('/v1/authorizations', { jws: windowFor(sibling) }));
    // It may not claim to be another device of the account.
    const posing = await sibling.request('POST', '/v1/authorizations', { jws: windowFor(sibling, { device_id: deviceKey().deviceId }) });
    assert.equal(posing.status, 400, posing.text);
    assert.equal(posing.body.error.param, 'device_id');
  });

  test('once the cloud forgets the sibling device, its windows are refused', async () => {
    const removed = await admin.request('DELETE', `/v1/sandbox/devices/${sibling.deviceId}`);
    assert.equal(removed.status, 200, removed.text);
    assertKeyRefused(await ours().request('POST', '/v1/authorizations', { jws: windowFor(sibling) }));
  });

  test('the proxy passes the cloud’s verdict on a foreign JWS back unchanged, not as “reconnect your device”', async () => {
    // A foreign JWS no longer reaches the cloud through the proxy (owner-presence §3); a revocation
    // still does, and the cloud's verdict on its foreign JWS comes back unchanged.
    assertProxyRefused(await daemon.a.post('/v1/authorizations', { jws: windowFor(stranger) }));
    const created = await stack.a.post('/authorize', { card_id: stack.cards[1].card_id, amount: 1, merchant_name: 'verdict.example' });
    assert.equal(created.status, 200, created.text);
    const foreign = stranger.signJws({ v: 1, typ: 'revocation', policy_id: created.body.policy_id, device_id: stranger.deviceId, nonce: 'AAAAAAAAAAAAAAAAAAAAAA', iat: Math.floor(Date.now() / 1000) });
    const answer = await daemon.a.post(`/v1/authorizations/${created.body.policy_id}/revoke`, { jws: foreign });
    assert.ok(answer.status >= 400 && answer.status < 500, answer.text);
    assert.notEqual(answer.body.error.code, 'local_key_not_recognized', 'the cloud’s verdict, not “reconnect your device”');
    assert.equal(answer.body.error.param, 'jws');
  });
});

/** assertProxyRefused checks the daemon's proxy refusing a window it did not sign and hold. */
function assertProxyRefused(answer: { status: number; text: string; body: any }): void {
  assert.equal(answer.status, 403, answer.text);
  assert.equal(answer.body.error.code, 'proxy_route_not_allowed', answer.text);
}

/**
 * assertKeyRefused checks a refusal because the JWS's kid is not a key of the account. Through
 * the daemon's proxy that arrives unchanged (see the test above).
 */
function assertKeyRefused(answer: { status: number; text: string; body: any }, what = ''): void {
  assert.equal(answer.status, 401, `${what} ${answer.text}`);
  assert.equal(answer.body.error.code, 'device_key_not_recognized', `${what} ${answer.text}`);
}
