/**
 * Agent identity on the web, end to end (docs/agent-identity.md, docs/decisions.md §23): the real
 * daemon and sandbox sign requests for an agent with its own identity key, and every signature is
 * checked by code we did not write — Cloudflare's `web-bot-auth` for the Web Bot Auth tag, and the
 * generic RFC 9421 library `http-message-sig` (which web-bot-auth is built on) for Visa TAP's tags —
 * with the public key taken from the daemon's key directory, whose kid is recomputed with
 * web-bot-auth's own thumbprint function. web-bot-auth's verify hands the keyid to a callback
 * and never compares it with the key, so every check here does that itself.
 */
import assert from 'node:assert/strict';
import { createPublicKey, verify as nodeVerify, type JsonWebKey as NodeJwk } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as httpsig from 'http-message-sig';
import { jwkToKeyID, helpers, verify as webBotAuthVerify } from 'web-bot-auth';
import { contentDigest } from '../../src/crypto/content-digest.js';
import { addAgent, readAgentToken, removeAgent } from '../../src/datadir/agents.js';
import { loadConfig, saveConfig } from '../../src/datadir/config.js';
import { pauseSigning, resumeSigning } from '../../src/datadir/pause.js';
import { identityKeyPath } from '../../src/identity/identity-keys.js';
import { JsonClient, startStack, type HttpAnswer, type Stack } from '../support/stack.js';

const DIRECTORY_URL = 'https://agents.owner.example/.well-known/http-message-signatures-directory';
let stack: Stack;
let shopper: JsonClient;
let browser: JsonClient;

interface Jwk {
  kty: string;
  crv: string;
  kid: string;
  x: string;
}

before(async () => {
  stack = await startStack();
  addAgent(stack.home, 'shopper');
  addAgent(stack.home, 'browser');
  const agentClient = (name: string) => new JsonClient(`http://127.0.0.1:${stack.portA}`, () => (existsSync(path.join(stack.home, 'agents', `${name}.token`)) ? readAgentToken(stack.home, name) : 'x'.repeat(43)));
  shopper = agentClient('shopper');
  browser = agentClient('browser');
  saveConfig(stack.home, { ...loadConfig(stack.home), identity_directory_url: DIRECTORY_URL });
});
after(() => stack.close());

async function directory(): Promise<{ answer: Response; text: string; keys: Jwk[] }> {
  const answer = await fetch(`http://127.0.0.1:${stack.portA}/web-bot-auth/directory`);
  const text = await answer.text();
  return { answer, text, keys: (JSON.parse(text) as { keys: Jwk[] }).keys };
}

/** publishedKey finds a kid in the directory after checking, with web-bot-auth's own code, that the kid is the key's thumbprint. */
async function publishedKey(keyId: string): Promise<Jwk> {
  const { keys } = await directory();
  const jwk = keys.find((key) => key.kid === keyId);
  assert.ok(jwk !== undefined, `kid ${keyId} is in the directory`);
  assert.equal(await jwkToKeyID({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE), keyId, 'kid is the RFC 7638 thumbprint');
  return jwk;
}

function ed25519Verifier(jwk: Jwk, expectedKeyId: string, expectedTag: string) {
  const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x } as NodeJwk, format: 'jwk' });
  return (data: string, signature: Uint8Array, params: { keyid?: string; tag?: string }) => {
    // The libraries never compare keyid with the key they are handed: we do.
    if (params.keyid !== expectedKeyId) throw new Error('keyid is not the key verified with');
    if (params.tag !== expectedTag) throw new Error('wrong tag');
    if (!nodeVerify(null, Buffer.from(data), key, signature)) throw new Error('signature does not verify');
  };
}

type SignAnswer = { headers: Record<string, string>; key_id: string; created: number; expires: number };

async function sign(client: JsonClient, body: Record<string, unknown>): Promise<SignAnswer> {
  const answer = await client.post('/web-bot-auth/sign', body);
  assert.equal(answer.status, 200, answer.text);
  return answer.body as SignAnswer;
}

function refusedWith(answer: HttpAnswer, status: number, code: string, param?: string): void {
  assert.equal(answer.status, status, answer.text);
  const error = (answer.body as { error: { code: string; param?: string } }).error;
  assert.equal(error.code, code, answer.text);
  if (param !== undefined) assert.equal(error.param, param, answer.text);
}

describe('POST /web-bot-auth/sign: web-bot-auth signatures', () => {
  test("Cloudflare's web-bot-auth verifies the signature with the key the directory publishes", async () => {
    const url = 'https://shop.example.com/products?id=1';
    const signed = await sign(shopper, { method: 'GET', url });
    assert.deepEqual(Object.keys(signed.headers).sort(), ['signature', 'signature-agent', 'signature-input']);
    assert.equal(signed.headers['signature-agent'], `sig1="${DIRECTORY_URL}"`);
    assert.match(signed.headers['signature-input'] as string, /^sig1=\("@authority" "signature-agent"\);created=\d+;expires=\d+;keyid="[A-Za-z0-9_-]{43}";nonce="[A-Za-z0-9+/]+={0,2}";tag="web-bot-auth"$/);
    assert.equal(signed.expires - signed.created, 60);
    const nonce = /nonce="([^"]+)"/.exec(signed.headers['signature-input'] as string)?.[1] as string;
    assert.equal(Buffer.from(nonce, 'base64').length, 64);
    const jwk = await publishedKey(signed.key_id);
    await webBotAuthVerify(new Request(url, { headers: signed.headers }), ed25519Verifier(jwk, signed.key_id, 'web-bot-auth'));
  });

  test('a signature moved to another host, or to another key id, fails', async () => {
    const signed = await sign(shopper, { method: 'GET', url: 'https://shop.example.com/' });
    const jwk = await publishedKey(signed.key_id);
    await assert.rejects(webBotAuthVerify(new Request('https://other-shop.example.com/', { headers: signed.headers }), ed25519Verifier(jwk, signed.key_id, 'web-bot-auth')), /does not verify/);
    await assert.rejects(webBotAuthVerify(new Request('https://shop.example.com:8443/', { headers: signed.headers }), ed25519Verifier(jwk, signed.key_id, 'web-bot-auth')), /does not verify/);
    const other = await sign(browser, { method: 'GET', url: 'https://shop.example.com/' });
    assert.notEqual(other.key_id, signed.key_id, 'each agent has its own key');
    await assert.rejects(webBotAuthVerify(new Request('https://shop.example.com/', { headers: signed.headers }), ed25519Verifier(await publishedKey(other.key_id), other.key_id, 'web-bot-auth')), /keyid is not the key/);
  });

  test('a content-digest is covered: another body fails', async () => {
    const body = '{"q":"shoes"}';
    const digest = contentDigest(new TextEncoder().encode(body));
    const signed = await sign(shopper, { method: 'POST', url: 'https://shop.example.com/search', headers: { 'Content-Digest': digest }, expires_in_seconds: 480 });
    assert.match(signed.headers['signature-input'] as string, /^sig1=\("@authority" "signature-agent" "content-digest"\)/);
    assert.equal(signed.expires - signed.created, 480);
    const jwk = await publishedKey(signed.key_id);
    const request = (d: string) => new Request('https://shop.example.com/search', { method: 'POST', body, headers: { ...signed.headers, 'content-digest': d } });
    await webBotAuthVerify(request(digest), ed25519Verifier(jwk, signed.key_id, 'web-bot-auth'));
    await assert.rejects(webBotAuthVerify(request(contentDigest(new TextEncoder().encode('{"q":"boots"}'))), ed25519Verifier(jwk, signed.key_id, 'web-bot-auth')), /does not verify/);
  });

  test('without identity_directory_url the Signature-Agent header is left out and only @authority is covered', async () => {
    const config = loadConfig(stack.home);
    saveConfig(stack.home, { ...config, identity_directory_url: undefined });
    try {
      const signed = await sign(shopper, { method: 'GET', url: 'https://shop.example.com/' });
      assert.equal(signed.headers['signature-agent'], undefined);
      assert.match(signed.headers['signature-input'] as string, /^sig1=\("@authority"\);/);
      await webBotAuthVerify(new Request('https://shop.example.com/', { headers: signed.headers }), ed25519Verifier(await publishedKey(signed.key_id), signed.key_id, 'web-bot-auth'));
    } finally {
      saveConfig(stack.home, { ...config, identity_directory_url: DIRECTORY_URL });
    }
  });

  test('the owner signs with its own identity key, never the device key', async () => {
    const signed = await sign(stack.a, { method: 'GET', url: 'https://shop.example.com/' });
    const health = (await stack.a.get('/health')).body as { signing_key: { key_id: string } };
    assert.notEqual(signed.key_id, health.signing_key.key_id);
    await webBotAuthVerify(new Request('https://shop.example.com/', { headers: signed.headers }), ed25519Verifier(await publishedKey(signed.key_id), signed.key_id, 'web-bot-auth'));
  });
});

describe("POST /web-bot-auth/sign: Visa TAP's tags, verified by a generic RFC 9421 library", () => {
  for (const tag of ['agent-browser-auth', 'agent-payer-auth']) {
    test(`${tag}: http-message-sig verifies it; another path, query or host fails`, async () => {
      const url = 'https://shop.example.com/checkout/step-2?cart=abc';
      const signed = await sign(shopper, { method: 'POST', url, tag });
      assert.match(signed.headers['signature-input'] as string, new RegExp(`^sig1=\\("@authority" "@path" "@query" "signature-agent"\\);.*;tag="${tag}"$`));
      const jwk = await publishedKey(signed.key_id);
      const check = (target: string) => httpsig.verify({ method: 'POST', url: target, headers: signed.headers }, ed25519Verifier(jwk, signed.key_id, tag));
      await check(url);
      await assert.rejects(check('https://shop.example.com/checkout/step-3?cart=abc'), /does not verify/);
      await assert.rejects(check('https://shop.example.com/checkout/step-2?cart=xyz'), /does not verify/);
      await assert.rejects(check('https://evil.example.com/checkout/step-2?cart=abc'), /does not verify/);
      // web-bot-auth itself accepts only its own tag, which is why the generic library checks these.
      await assert.rejects(webBotAuthVerify(new Request(url, { method: 'POST', headers: signed.headers }), ed25519Verifier(jwk, signed.key_id, tag)), /tag must be/);
    });
  }
});

describe('POST /web-bot-auth/sign: refusals', () => {
  const cases: Array<[string, Record<string, unknown>, number, string, string?]> = [
    ['plain http to a public host', { method: 'GET', url: 'http://shop.example.com/' }, 400, 'invalid_request', 'url'],
    ['a relative URL', { method: 'GET', url: '/products' }, 400, 'invalid_request', 'url'],
    ['another scheme', { method: 'GET', url: 'ftp://shop.example.com/' }, 400, 'invalid_request', 'url'],
    ['user info', { method: 'GET', url: 'https://user:pw@shop.example.com/' }, 400, 'invalid_request', 'url'],
    ['a fragment', { method: 'GET', url: 'https://shop.example.com/#top' }, 400, 'invalid_request', 'url'],
    ['an empty fragment', { method: 'GET', url: 'https://shop.example.com/#' }, 400, 'invalid_request', 'url'],
    ['a URL over 2,048 characters', { method: 'GET', url: `https://shop.example.com/${'a'.repeat(2048)}` }, 400, 'invalid_request', 'url'],
    ['a method that is no token', { method: 'GE T', url: 'https://shop.example.com/' }, 400, 'invalid_request', 'method'],
    ['no method', { url: 'https://shop.example.com/' }, 400, 'invalid_request', 'method'],
    ['an unknown tag', { method: 'GET', url: 'https://shop.example.com/', tag: 'agent-auth' }, 400, 'invalid_request', 'tag'],
    ['expires_in_seconds 0', { method: 'GET', url: 'https://shop.example.com/', expires_in_seconds: 0 }, 400, 'invalid_request', 'expires_in_seconds'],
    ['expires_in_seconds 481', { method: 'GET', url: 'https://shop.example.com/', expires_in_seconds: 481 }, 400, 'invalid_request', 'expires_in_seconds'],
    ['a header other than content-digest', { method: 'GET', url: 'https://shop.example.com/', headers: { 'x-price': '1' } }, 400, 'invalid_request', 'headers'],
    ['a malformed content-digest', { method: 'GET', url: 'https://shop.example.com/', headers: { 'content-digest': 'sha-256=:abc:' } }, 400, 'invalid_request', 'headers.content-digest'],
    ['headers that are not an object', { method: 'GET', url: 'https://shop.example.com/', headers: ['content-digest'] }, 400, 'invalid_request', 'headers'],
    ['an unknown field', { method: 'GET', url: 'https://shop.example.com/', body: 'x' }, 400, 'invalid_request'],
    ['a card number in the query', { method: 'GET', url: 'https://shop.example.com/pay?n=4111111111111111' }, 400, 'card_data_not_accepted'],
    ['a percent-encoded card number in the path', { method: 'GET', url: 'https://shop.example.com/pay/4111%2D1111%2D1111%2D1111' }, 400, 'card_data_not_accepted'],
    ['a host with two trailing dots (an empty label)', { method: 'GET', url: 'https://shop.example.com../' }, 400, 'invalid_request', 'url'],
    ['a host with an empty label inside', { method: 'GET', url: 'https://shop..example.com/' }, 400, 'invalid_request', 'url'],
    ['a public IPv4 address', { method: 'GET', url: 'https://93.184.216.34/' }, 400, 'invalid_request', 'url'],
    ['an IPv4 address spelled as a hex integer', { method: 'GET', url: 'https://0x5db8d822/' }, 400, 'invalid_request', 'url'],
    ['an IPv6 address', { method: 'GET', url: 'https://[2606:2800:220:1:248:1893:25c8:1946]/' }, 400, 'invalid_request', 'url'],
    ['a CVV field in the query', { method: 'GET', url: 'https://shop.example.com/pay?cvv=123' }, 400, 'card_data_not_accepted'],
  ];
  for (const [name, body, status, code, param] of cases) {
    test(`${name}: ${status} ${code}${param === undefined ? '' : ` (${param})`}`, async () => {
      refusedWith(await shopper.post('/web-bot-auth/sign', body), status, code, param);
    });
  }

  test('plain http to a loopback host is allowed', async () => {
    const signed = await sign(shopper, { method: 'GET', url: 'http://127.0.0.1:9/x' });
    assert.match(signed.headers['signature-input'] as string, /^sig1=\("@authority"/);
  });

  test("the policy's merchant deny rules apply to the host (403 policy_denied with rule); a rule with other conditions does not", async () => {
    const file = path.join(stack.home, 'policy.json');
    const policy = {
      v: 1,
      default: 'allow',
      rules: [
        { id: 'big-at-shop', merchants: ['shop.example.com'], min_amount: '500.00', decision: 'deny' },
        { id: 'no-casino', agents: ['*'], merchants: ['casino.example.com', '*.casino.example.com'], decision: 'deny' },
      ],
    };
    writeFileSync(`${file}.tmp`, JSON.stringify(policy), { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
    try {
      refusedWith(await shopper.post('/web-bot-auth/sign', { method: 'GET', url: 'https://casino.example.com/' }), 403, 'policy_denied');
      const refused = await shopper.post('/web-bot-auth/sign', { method: 'GET', url: 'https://www.CASINO.example.com./' });
      assert.equal((refused.body as { error: { rule: string } }).error.rule, 'no-casino', refused.text);
      // Trailing dots past the root's one do not make another host: nothing is signed for it.
      for (const url of ['https://casino.example.com../', 'https://www.casino.example.com.../']) refusedWith(await shopper.post('/web-bot-auth/sign', { method: 'GET', url }), 400, 'invalid_request', 'url');
      await sign(shopper, { method: 'GET', url: 'https://shop.example.com/' });
      // The rule names agents only: the owner may still present itself there.
      await sign(stack.a, { method: 'GET', url: 'https://casino.example.com/' });
    } finally {
      writeFileSync(`${file}.tmp`, JSON.stringify({ v: 1, default: 'allow' }), { mode: 0o600 });
      renameSync(`${file}.tmp`, file);
    }
  });

  test('the pause does not stop identity: it moves no money', async () => {
    pauseSigning(stack.home, 'test');
    try {
      assert.notEqual((await stack.a.get('/health')).body.paused, null, 'the daemon is paused');
      refusedWith(await shopper.post('/authorize', { card_id: stack.cards[0].card_id, amount: '1.00', merchant_name: 'shop.example.com' }), 409, 'daemon_paused');
      await sign(shopper, { method: 'GET', url: 'https://shop.example.com/' });
    } finally {
      resumeSigning(stack.home);
    }
  });
});

describe('audit', () => {
  test('every signature is one web_bot_auth_signed line naming agent, method, host, tag, key id and created — never the query', async () => {
    const secretQuery = 'order=zq81-private-query-text';
    const signed = await sign(shopper, { method: 'PUT', url: `https://audit.example.com/cart?${secretQuery}`, tag: 'agent-payer-auth' });
    const audit = readFileSync(path.join(stack.home, 'audit.log'), 'utf8');
    assert.ok(!audit.includes('zq81-private-query-text'), 'the query is not in audit.log');
    const lines = audit.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const line = lines.find((entry) => entry['operation'] === 'web_bot_auth_signed' && entry['host'] === 'audit.example.com');
    assert.ok(line !== undefined, 'the line is there');
    assert.equal(line['agent'], 'shopper');
    assert.equal(line['method'], 'PUT');
    assert.equal(line['tag'], 'agent-payer-auth');
    assert.equal(line['key_id'], signed.key_id);
    assert.equal(line['created'], signed.created);
  });
});

describe('GET /web-bot-auth/directory', () => {
  test('public, with the directory media type; every kid is its thumbprint; each key signs the response (verified by http-message-sig)', async () => {
    const { answer, text, keys } = await directory();
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'application/http-message-signatures-directory+json');
    assert.equal(answer.headers.get('content-digest'), contentDigest(new TextEncoder().encode(text)));
    assert.ok(keys.length >= 3, 'owner, shopper and browser');
    const inputs = (answer.headers.get('signature-input') as string).split(', ');
    const signatures = (answer.headers.get('signature') as string).split(', ');
    assert.equal(inputs.length, keys.length);
    for (const [index, jwk] of keys.entries()) {
      assert.deepEqual(Object.keys(jwk).sort(), ['crv', 'kid', 'kty', 'use', 'x'], 'public members only');
      assert.equal(await jwkToKeyID({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE), jwk.kid);
      const response = { status: 200, headers: { 'content-digest': answer.headers.get('content-digest') as string, 'signature-input': inputs[index] as string, signature: signatures[index] as string } };
      const request = { method: 'GET', url: `http://127.0.0.1:${stack.portA}/web-bot-auth/directory`, headers: {} };
      assert.match(inputs[index] as string, /^binding\d+=\("@authority";req "content-digest"\);created=\d+;expires=\d+;keyid="[^"]+";tag="http-message-signatures-directory"$/);
      await httpsig.verify({ request, response }, ed25519Verifier(jwk, jwk.kid, 'http-message-signatures-directory'));
      // Served under another authority, the same signature fails.
      await assert.rejects(httpsig.verify({ request: { ...request, url: 'https://evil.example/.well-known/http-message-signatures-directory' }, response }, ed25519Verifier(jwk, jwk.kid, 'http-message-signatures-directory')), /does not verify/);
    }
  });

  test('latch agent rotate --identity replaces the key: the old kid leaves the directory', async () => {
    const before = await sign(browser, { method: 'GET', url: 'https://shop.example.com/' });
    const { rotateIdentityKey } = await import('../../src/identity/identity-keys.js');
    rotateIdentityKey(stack.home, 'browser');
    const afterRotation = await sign(browser, { method: 'GET', url: 'https://shop.example.com/' });
    assert.notEqual(afterRotation.key_id, before.key_id);
    const kids = (await directory()).keys.map((key) => key.kid);
    assert.ok(!kids.includes(before.key_id) && kids.includes(afterRotation.key_id));
  });

  test('a removed agent signs nothing, its key file is destroyed, and it leaves the directory at once', async () => {
    const signed = await sign(browser, { method: 'GET', url: 'https://shop.example.com/' });
    assert.ok((await directory()).keys.some((key) => key.kid === signed.key_id));
    removeAgent(stack.home, 'browser');
    assert.ok(!existsSync(identityKeyPath(stack.home, 'browser')), 'the key file is gone');
    assert.ok(!(await directory()).keys.some((key) => key.kid === signed.key_id), 'the kid left the directory');
    refusedWith(await browser.post('/web-bot-auth/sign', { method: 'GET', url: 'https://shop.example.com/' }), 401, 'invalid_bearer_token');
    // A new agent of that name gets a new key, never the removed one's.
    addAgent(stack.home, 'browser');
    const again = await sign(browser, { method: 'GET', url: 'https://shop.example.com/' });
    assert.notEqual(again.key_id, signed.key_id);
  });
});

describe('cloud time', () => {
  test('created and expires are in the cloud-corrected clock, as windows are', async () => {
    const ahead = 3600;
    const moved = await stack.admin.post('/v1/sandbox/clock', { offset_seconds: ahead });
    assert.equal(moved.status, 200, moved.text);
    try {
      // Any cloud answer teaches the daemon the cloud's clock.
      assert.equal((await stack.a.get('/cards')).status, 200);
      const signed = await sign(shopper, { method: 'GET', url: 'https://shop.example.com/' });
      const expected = Math.floor(Date.now() / 1000) + ahead;
      assert.ok(Math.abs(signed.created - expected) <= 5, `created ${signed.created} is the cloud's time ${expected}`);
    } finally {
      await stack.admin.post('/v1/sandbox/clock', { offset_seconds: 0 });
      await stack.a.get('/cards');
    }
  });
});

/** waitFor polls until check holds, or fails with message after deadlineMs. */
async function waitFor(check: () => Promise<boolean>, message: string, deadlineMs = 30_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(message);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function sandboxDirectory(): Promise<{ answer: Response; text: string; keys: Jwk[] }> {
  // A request for the daemon's own directory makes it register a changed key set at once
  // (signatures do at most once a second, and the daemon looks by itself once a minute).
  await directory();
  const answer = await fetch(`${stack.sandbox.url}/.well-known/http-message-signatures-directory`);
  const text = await answer.text();
  return { answer, text, keys: answer.status === 200 ? (JSON.parse(text) as { keys: Jwk[] }).keys : [] };
}

describe('the sandbox cloud serves the directory of the devices it knows', () => {
  test('the daemon registers its keys with a signed request; each served key carries its own proof, verified by http-message-sig', async () => {
    const signed = await sign(shopper, { method: 'GET', url: 'https://shop.example.com/' });
    await waitFor(async () => (await sandboxDirectory()).keys.some((key) => key.kid === signed.key_id), 'the sandbox serves the agent\'s key');
    const { answer, keys } = await sandboxDirectory();
    assert.equal(answer.headers.get('content-type'), 'application/http-message-signatures-directory+json');
    const inputs = (answer.headers.get('signature-input') as string).split(', ');
    const signatures = (answer.headers.get('signature') as string).split(', ');
    assert.equal(inputs.length, keys.length, 'one proof per key');
    for (const [index, input] of inputs.entries()) {
      const keyId = /keyid="([^"]+)"/.exec(input)?.[1] as string;
      const jwk = keys.find((key) => key.kid === keyId);
      assert.ok(jwk !== undefined, 'each proof names a served key');
      assert.equal(await jwkToKeyID({ kty: jwk.kty, crv: jwk.crv, x: jwk.x }, helpers.WEBCRYPTO_SHA256, helpers.BASE64URL_DECODE), keyId);
      const response = { status: 200, headers: { 'signature-input': input, signature: signatures[index] as string } };
      const request = { method: 'GET', url: `${stack.sandbox.url}/.well-known/http-message-signatures-directory`, headers: {} };
      await httpsig.verify({ request, response }, ed25519Verifier(jwk, keyId, 'http-message-signatures-directory'));
      await assert.rejects(httpsig.verify({ request: { ...request, url: 'https://evil.example/' }, response }, ed25519Verifier(jwk, keyId, 'http-message-signatures-directory')), /does not verify/);
    }
  });

  test('a removed agent leaves the sandbox directory once the daemon sees the change', async () => {
    addAgent(stack.home, 'leaver');
    const leaver = new JsonClient(`http://127.0.0.1:${stack.portA}`, () => (existsSync(path.join(stack.home, 'agents', 'leaver.token')) ? readAgentToken(stack.home, 'leaver') : 'x'.repeat(43)));
    const signed = await sign(leaver, { method: 'GET', url: 'https://shop.example.com/' });
    await waitFor(async () => (await sandboxDirectory()).keys.some((key) => key.kid === signed.key_id), 'the sandbox serves the key');
    removeAgent(stack.home, 'leaver');
    // Any directory request (or the minute's check) makes the daemon register the new set.
    assert.ok(!(await directory()).keys.some((key) => key.kid === signed.key_id));
    await waitFor(async () => !(await sandboxDirectory()).keys.some((key) => key.kid === signed.key_id), 'the removed key left the sandbox directory');
  });


  test('registration refuses a key whose kid is not its thumbprint, whose proof does not verify, or names another authority', async () => {
    const { signMessage, secretOf } = await import('../support/raw-signing.js');
    const { proofComponents, proofParams } = await import('../../src/identity/directory-proof.js');
    const { signingKeyOf } = await import('../../src/signer/identity-key-file.js');
    const { directoryKey } = await import('../../src/identity/key-directory.js');
    const key = signingKeyOf(new Uint8Array(32).fill(7));
    const authority = new URL(stack.sandbox.url).host;
    const now = Math.floor(Date.now() / 1000);
    const entry = (overrides: Record<string, unknown> = {}, signWith = secretOf(key), signedAuthority = authority) => ({
      jwk: directoryKey(key),
      authority,
      created: now,
      expires: now + 3600,
      signature: signMessage('b', proofComponents(signedAuthority), proofParams(key.keyId, now, now + 3600), signWith).signature.slice(3, -1),
      ...overrides,
    });
    // Signed with the device's key as the daemon signs its own registration (the /v1 proxy does not forward this route).
    const { CloudClient } = await import('../../src/cloud/cloud-client.js');
    const { loadDeviceKey } = await import('../../src/signer/device-key.js');
    const { upstreamKeyOf } = await import('../support/test-signer.js');
    const loaded = loadDeviceKey(stack.home);
    assert.ok(loaded !== undefined);
    const deviceKey = upstreamKeyOf(secretOf(loaded));
    const client = new CloudClient({ cloudUrl: stack.sandbox.url, userAgent: 'latch-test', onRequestSigned: () => {}, assertFetchCanRun: () => undefined });
    const put = async (body: unknown): Promise<HttpAnswer> => {
      const answer = await client.send({ method: 'PUT', pathAndQuery: '/v1/devices/identity-directory', body: new TextEncoder().encode(JSON.stringify(body)), contentType: 'application/json', key: deviceKey });
      const text = new TextDecoder().decode(answer.rawBody);
      return { status: answer.status, headers: answer.headers, body: JSON.parse(text) as unknown, text };
    };
    refusedWith(await put({ keys: [entry({ jwk: { ...directoryKey(key), kid: 'NFcWBst6DXG-N35nHdzMrioWntdzNZghQSkjHNMMSjw' } })] }), 400, 'invalid_request', 'keys[0].jwk');
    refusedWith(await put({ keys: [entry({}, new Uint8Array(32).fill(8))] }), 400, 'invalid_request', 'keys[0].signature');
    refusedWith(await put({ keys: [entry({ authority: 'evil.example' }, secretOf(key), 'evil.example')] }), 400, 'invalid_request', 'keys[0].authority');
    refusedWith(await put({ keys: [entry({ expires: now + 40 * 3600 })] }), 400, 'invalid_request', 'keys[0].expires');
    refusedWith(await put({ keys: [entry({ jwk: { ...directoryKey(key), d: 'secret' } })] }), 400, 'invalid_request', 'keys[0].jwk');
    refusedWith(await put({ keys: 'all' }), 400, 'invalid_request', 'keys');
    // Without the device's signature the cloud refuses it before reading anything.
    const unsigned = await fetch(`${stack.sandbox.url}/v1/devices/identity-directory`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ keys: [entry()] }) });
    assert.equal(unsigned.status, 401);
  });
});
