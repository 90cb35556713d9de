/**
 * A passkey's proof of presence on the console, against the real daemon with a software
 * authenticator: the challenge from POST /console/api/presence-options is bound to the one request
 * it confirms (method, path, SHA-256 of the body; docs/decisions.md §29.7), so an assertion made for
 * one action cannot be spent on another route, another agent's name, or another body.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createHash } from 'node:crypto';
import { toBase64Url } from '../../src/crypto/base64url.js';
import { startStack, type Stack } from '../support/stack.js';
import { FakeAuthenticator } from '../webauthn/fake-authenticator.js';

interface Answer {
  status: number;
  json: any;
  text: string;
}

describe('console passkey presence is bound to one request', () => {
  let stack: Stack;
  let port: number;
  let cookie = '';
  let csrf = '';
  let signCount = 0;
  const authenticator = new FakeAuthenticator('EdDSA');

  /** call sends one console API request with the session, as the page would. */
  function call(method: string, path: string, body: string | undefined, extra: Record<string, string> = {}): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { host: `localhost:${port}`, cookie: `__Host-latch_console=${cookie}`, 'x-latch-csrf': csrf, ...extra };
      if (method !== 'GET') headers['origin'] = `http://localhost:${port}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      const request = http.request({ host: '127.0.0.1', port, method, path: `/console/api${path}`, headers, setHost: false, agent: false }, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, json, text });
        });
      });
      request.setTimeout(10_000, () => request.destroy(new Error(`${method} ${path} got no answer in 10 s`)));
      request.on('error', reject);
      if (body !== undefined) request.write(body);
      request.end();
    });
  }

  /** presenceFor asks for a challenge bound to a request and answers it with the passkey. */
  async function presenceFor(method: string, path: string, body: string | undefined): Promise<Record<string, string>> {
    const bodySha256 = createHash('sha256').update(body ?? '').digest('hex');
    const options = await call('POST', '/presence-options', JSON.stringify({ method, path: `/console/api${path}`, body_sha256: bodySha256 }));
    assert.equal(options.status, 200, options.text);
    signCount += 1;
    const answer = authenticator.assert({ challenge: Buffer.from(options.json.challenge, 'base64url'), origin: `http://localhost:${port}`, signCount });
    const passkey = {
      id: toBase64Url(authenticator.credentialId),
      client_data_json: toBase64Url(answer.clientDataJSON),
      authenticator_data: toBase64Url(answer.authenticatorData),
      signature: toBase64Url(answer.signature),
    };
    return { 'latch-owner-presence': Buffer.from(JSON.stringify({ passkey })).toString('base64url') };
  }

  before(async () => {
    stack = await startStack({ console: true });
    port = stack.portConsole as number;
    const again = await stack.a.post('/console/login-code', {});
    assert.equal(again.status, 201, again.text);
    const raw = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const request = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/console/api/login', headers: { host: `localhost:${port}`, origin: `http://localhost:${port}`, 'content-type': 'application/json' }, setHost: false, agent: false }, resolve);
      request.on('error', reject);
      request.end(JSON.stringify({ code: String(again.body.url).split('#')[1] }));
    });
    let text = '';
    for await (const chunk of raw) text += String(chunk);
    cookie = String(raw.headers['set-cookie']).split(';')[0]?.split('=')[1] as string;
    csrf = JSON.parse(text).csrf;
    // No factor yet: the session alone registers the first passkey, which then is the factor.
    const options = await call('POST', '/passkeys/registration-options', JSON.stringify({ label: 'test' }));
    assert.equal(options.status, 200, options.text);
    const made = authenticator.register({ challenge: Buffer.from(options.json.challenge, 'base64url'), origin: `http://localhost:${port}` });
    const added = await call('POST', '/passkeys', JSON.stringify({ label: 'test', client_data_json: toBase64Url(made.clientDataJSON), attestation_object: toBase64Url(made.attestationObject) }));
    assert.equal(added.status, 201, added.text);
  });
  after(async () => stack?.close());

  test('a presence challenge must name the request it confirms', async () => {
    const bare = await call('POST', '/presence-options', '{}');
    assert.equal(bare.status, 400, bare.text);
    assert.equal(bare.json.error.code, 'invalid_request');
  });

  test('an assertion for one request is refused on another route, another path or another body, and accepted on its own', async () => {
    const agentBody = JSON.stringify({ name: 'bound-one' });
    const crossed = [
      ['another route', await presenceFor('POST', '/a/resume', '{}'), 'POST', '/a/agents', agentBody],
      ['another body', await presenceFor('POST', '/a/agents', JSON.stringify({ name: 'bound-two' })), 'POST', '/a/agents', agentBody],
      ['another method', await presenceFor('POST', '/a/agents', agentBody), 'DELETE', '/a/agents/bound-one', undefined],
    ] as const;
    for (const [what, header, method, path, body] of crossed) {
      const answer = await call(method, path, body, header);
      assert.equal(answer.status, 401, `${what}: ${answer.text}`);
      assert.equal(answer.json.error.code, 'passkey_not_verified', what);
    }
    const own = await call('POST', '/a/agents', agentBody, await presenceFor('POST', '/a/agents', agentBody));
    assert.equal(own.status, 201, own.text);
    const removed = await call('DELETE', '/a/agents/bound-one', undefined, await presenceFor('DELETE', '/a/agents/bound-one', undefined));
    assert.equal(removed.status, 204, removed.text);
  });

  /** signinAssertion answers a sign-in challenge (or another purpose's, when given one) with the passkey. */
  async function signinAssertion(options?: { challenge: string }, flags?: number): Promise<Record<string, string>> {
    const chosen = options ?? (await call('POST', '/signin/passkey-options', '{}')).json;
    signCount += 1;
    const answer = authenticator.assert({ challenge: Buffer.from(chosen.challenge, 'base64url'), origin: `http://localhost:${port}`, signCount, ...(flags !== undefined && { flags }) });
    return { id: toBase64Url(authenticator.credentialId), client_data_json: toBase64Url(answer.clientDataJSON), authenticator_data: toBase64Url(answer.authenticatorData), signature: toBase64Url(answer.signature) };
  }

  test('passkey sign-in (docs/decisions.md §37): a sign-in assertion opens a session once; one without user verification, or made for another purpose, opens none', async () => {
    const passkey = await signinAssertion();
    const signedIn = await call('POST', '/signin', JSON.stringify({ passkey }));
    assert.equal(signedIn.status, 200, signedIn.text);
    const replay = await call('POST', '/signin', JSON.stringify({ passkey }));
    assert.equal(replay.json.error.code, 'passkey_not_verified', 'an assertion signs in once');
    // User presence without verification: a touch is not the owner (spec owner-console §2).
    const touchOnly = await call('POST', '/signin', JSON.stringify({ passkey: await signinAssertion(undefined, 0x01) }));
    assert.equal(touchOnly.json.error.code, 'passkey_not_verified', touchOnly.text);
    // A challenge made for an action, answered, is no sign-in.
    const action = await call('POST', '/presence-options', JSON.stringify({ method: 'POST', path: '/console/api/a/resume', body_sha256: createHash('sha256').update('{}').digest('hex') }));
    const crossed = await call('POST', '/signin', JSON.stringify({ passkey: await signinAssertion(action.json) }));
    assert.equal(crossed.json.error.code, 'passkey_not_verified', crossed.text);
  });

  test('the latch console link with a passkey present: the code alone is refused and kept, the code with a sign-in assertion signs in', async () => {
    const link = await stack.a.post('/console/login-code', {});
    const code = String(link.body.url).split('#')[1];
    const alone = await call('POST', '/login', JSON.stringify({ code }));
    assert.equal(alone.status, 403, alone.text);
    assert.equal(alone.json.error.code, 'owner_presence_required');
    const withPasskey = await call('POST', '/login', JSON.stringify({ code, passkey: await signinAssertion() }));
    assert.equal(withPasskey.status, 200, withPasskey.text);
    assert.equal((await call('POST', '/login', JSON.stringify({ code, passkey: await signinAssertion() }))).json.error.code, 'login_code_invalid', 'the code works once');
  });
});
