/**
 * The console's front door over plain HTTP, against the real daemon: the security headers on every
 * answer, Host and Origin, the session cookie and CSRF header, the login code's single use, the
 * card-data guard, and what a session may and may not do without fresh presence.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { CONSOLE_SECURITY_HEADERS } from '../../src/console/console-headers.js';
import { startStack, type Stack } from '../support/stack.js';

/** presenceHeader is the console's Latch-Owner-Presence header for a proof. */
const presenceHeader = (proof: unknown): Record<string, string> => ({ 'latch-owner-presence': Buffer.from(JSON.stringify(proof)).toString('base64url') });

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
}

/** raw sends one request with exactly these headers (fetch would add or forbid some). */
function raw(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path, headers, setHost: false, agent: false }, (response) => {
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
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text, json });
      });
    });
    request.setTimeout(10_000, () => request.destroy(new Error(`${method} ${path} got no answer in 10 s`)));
    request.on('error', reject);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

describe('owner console front door', () => {
  let stack: Stack;
  let port: number;
  let host: string;
  let origin: string;
  let cookie: string;
  let csrf: string;

  const api = (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
    raw(port, method, `/console/api${path}`, {
      host,
      cookie: `__Host-latch_console=${cookie}`,
      'x-latch-csrf': csrf,
      ...(method === 'GET' ? {} : { origin }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...extra,
    }, body === undefined ? undefined : JSON.stringify(body));

  // Once a passphrase is set, the link alone no longer signs in (docs/decisions.md §37): the page sends it too.
  let passphraseSet: string | undefined;
  async function login(): Promise<{ cookie: string; csrf: string }> {
    const link = await stack.a.post('/console/login-code', {});
    assert.equal(link.status, 201, link.text);
    const code = String(link.body.url).split('#')[1] as string;
    const answer = await raw(port, 'POST', '/console/api/login', { host, origin, 'content-type': 'application/json' }, JSON.stringify({ code, ...(passphraseSet !== undefined && { passphrase: passphraseSet }) }));
    assert.equal(answer.status, 200, answer.body);
    const setCookie = String(answer.headers['set-cookie']);
    assert.match(setCookie, /^__Host-latch_console=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Secure$/);
    return { cookie: setCookie.split(';')[0]?.split('=')[1] as string, csrf: answer.json.csrf };
  }

  before(async () => {
    stack = await startStack({ console: true });
    port = stack.portConsole as number;
    host = `localhost:${port}`;
    origin = `http://localhost:${port}`;
    ({ cookie, csrf } = await login());
  });
  after(async () => stack?.close());

  test('every answer carries the security headers, pages and errors alike, and never CORS', async () => {
    for (const [method, path, headers] of [
      ['GET', '/approvals', { host }],
      ['GET', '/assets/console.js', { host }],
      ['GET', '/console/api/spending', { host }],
      ['GET', '/nowhere', { host }],
      ['GET', '/approvals', { host: 'evil.example:80' }],
    ] as const) {
      const answer = await raw(port, method, path, headers);
      for (const [name, value] of Object.entries(CONSOLE_SECURITY_HEADERS)) assert.equal(answer.headers[name], value, `${method} ${path}: ${name}`);
      assert.ok(!Object.keys(answer.headers).some((name) => name.startsWith('access-control-')), `${method} ${path} carried CORS`);
    }
  });

  test('the page has no inline script or style', async () => {
    const page = await raw(port, 'GET', '/approvals', { host, cookie: `__Host-latch_console=${cookie}` });
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.body, /<script(?![^>]*\bsrc=)/i, 'an inline script');
    assert.doesNotMatch(page.body, /<style|\sstyle=|\son[a-z]+=/i, 'inline style or an event handler attribute');
    assert.match(page.body, /<meta name="latch-csrf" content="[A-Za-z0-9_-]{43}">/);
  });

  test('Host: another name is refused; an address gets the page on localhost', async () => {
    for (const bad of ['evil.example', `evil.example:${port}`, `localhost:${port + 1}`, `localhost.evil:${port}`]) {
      const answer = await raw(port, 'GET', '/console/api/spending', { host: bad, cookie: `__Host-latch_console=${cookie}`, 'x-latch-csrf': csrf });
      assert.equal(answer.status, 403, bad);
      assert.equal(answer.json.error.code, 'forbidden_host', bad);
    }
    const redirected = await raw(port, 'GET', '/spending', { host: `127.0.0.1:${port}` });
    assert.equal(redirected.status, 302);
    assert.equal(redirected.headers.location, `${origin}/spending`);
  });

  test('without a session: the API answers 401, a page shows the login page', async () => {
    const noCookie = await raw(port, 'GET', '/console/api/spending', { host, 'x-latch-csrf': csrf });
    assert.equal(noCookie.status, 401);
    assert.equal(noCookie.json.error.code, 'console_login_required');
    const forged = await raw(port, 'GET', '/console/api/spending', { host, cookie: `__Host-latch_console=${'A'.repeat(43)}`, 'x-latch-csrf': csrf });
    assert.equal(forged.json.error.code, 'console_login_required');
    const twoSessions = await login();
    const ambiguous = await raw(port, 'GET', '/console/api/spending', { host, cookie: `__Host-latch_console=${cookie}; __Host-latch_console=${twoSessions.cookie}`, 'x-latch-csrf': csrf });
    assert.equal(ambiguous.json.error.code, 'console_login_required', 'two live sessions in one request are no session');
    const page = await raw(port, 'GET', '/agents', { host });
    assert.equal(page.status, 200);
    assert.match(page.body, /data-page="login"/);
    assert.doesNotMatch(page.body, /latch-csrf/);
  });

  test('without a session an unknown API path is 401 like every other (owner-console §4), not 404; with one it is 404', async () => {
    for (const [method, path] of [['GET', '/console/api/nope'], ['GET', '/console/api/a/nope'], ['POST', '/console/api/nope'], ['GET', '/console/api'], ['DELETE', '/console/api/a/agents/x/y']] as const) {
      const headers: Record<string, string> = { host, ...(method === 'GET' ? {} : { origin }) };
      const answer = await raw(port, method, path, headers);
      assert.equal(answer.status, 401, `${method} ${path}: ${answer.body}`);
      assert.equal(answer.json.error.code, 'console_login_required');
    }
    const known = await api('GET', '/nope');
    assert.equal(known.status, 404, known.body);
    assert.equal(known.json.error.code, 'not_found');
  });

  test('a session cookie planted by a page on another localhost port is harmless: ignored beside the real one, and the old name is no credential', async () => {
    const planted = 'P'.repeat(43);
    for (const jar of [`__Host-latch_console=${planted}; __Host-latch_console=${cookie}`, `__Host-latch_console=${cookie}; __Host-latch_console=${planted}`, `latch_console=${planted}; __Host-latch_console=${cookie}`]) {
      const answer = await raw(port, 'GET', '/console/api/spending', { host, cookie: jar, 'x-latch-csrf': csrf });
      assert.equal(answer.status, 200, `${jar}: ${answer.body}`);
    }
    const oldName = await raw(port, 'GET', '/console/api/spending', { host, cookie: `latch_console=${cookie}`, 'x-latch-csrf': csrf });
    assert.equal(oldName.json.error.code, 'console_login_required');
    const flood = Array.from({ length: 5 }, (_, i) => `__Host-latch_console=${String(i).repeat(43)}`).join('; ');
    const flooded = await raw(port, 'GET', '/console/api/spending', { host, cookie: `${flood}; __Host-latch_console=${cookie}`, 'x-latch-csrf': csrf });
    assert.equal(flooded.json.error.code, 'console_login_required', 'more than four copies are looked at no further');
  });

  test('the console passes the same front door as A: header count, card data in stored headers; the /v1 proxy is not mounted', async () => {
    const filler: Record<string, string> = {};
    for (let i = 0; i < 120; i += 1) filler[`x-filler-${i}`] = 'x';
    const tooMany = await api('GET', '/spending', undefined, filler);
    assert.equal(tooMany.status, 400, tooMany.body);
    assert.equal(tooMany.json.error.code, 'invalid_request');
    assert.equal(tooMany.json.error.param, 'headers');
    for (const name of ['idempotency-key', 'user-agent', 'accept-language']) {
      const carded = await api('POST', '/a/pause', {}, { [name]: '4111 1111 1111 1111' });
      assert.equal(carded.status, 400, `${name}: ${carded.body}`);
      assert.equal(carded.json.error.code, 'card_data_not_accepted', name);
    }
    // The console mounts only the routes of A its page calls (docs/decisions.md §29.7): no forwarding route.
    const forwarded = await api('POST', '/a/v1/wallet/allocate', { card_id: 'card_abc', amount: '1.00', passphrase: 'correct horse battery staple' });
    assert.equal(forwarded.status, 404, forwarded.body);
    assert.equal(forwarded.json.error.code, 'not_found');
    assert.equal((await stack.a.get('/health')).body.paused, null, 'the refused pause did not happen');
  });

  test('the CSRF header must be the one of the session', async () => {
    for (const headers of [{}, { 'x-latch-csrf': '' }, { 'x-latch-csrf': `${csrf.slice(0, -1)}x` }] as Array<Record<string, string>>) {
      const answer = await raw(port, 'GET', '/console/api/spending', { host, cookie: `__Host-latch_console=${cookie}`, ...headers });
      assert.equal(answer.status, 403, JSON.stringify(headers));
      assert.equal(answer.json.error.code, 'console_csrf_invalid');
    }
  });

  test('anything but GET needs Origin to be exactly the console', async () => {
    for (const bad of [undefined, 'null', 'http://evil.example', `http://127.0.0.1:${port}`, `http://localhost:${port}/`, `https://localhost:${port}`]) {
      const headers: Record<string, string> = { host, cookie: `__Host-latch_console=${cookie}`, 'x-latch-csrf': csrf, 'content-type': 'application/json' };
      if (bad !== undefined) headers['origin'] = bad;
      const answer = await raw(port, 'POST', '/console/api/a/pause', headers, '{}');
      assert.equal(answer.status, 403, String(bad));
      assert.equal(answer.json.error.code, 'forbidden_origin', String(bad));
    }
    const preflight = await raw(port, 'OPTIONS', '/console/api/a/pause', { host, origin, 'access-control-request-method': 'POST' });
    assert.equal(preflight.status, 403);
  });

  test('a login code works once; a guessed one never', async () => {
    const link = await stack.a.post('/console/login-code', {});
    const code = String(link.body.url).split('#')[1] as string;
    const post = (value: string) => raw(port, 'POST', '/console/api/login', { host, origin, 'content-type': 'application/json' }, JSON.stringify({ code: value }));
    assert.equal((await post(code)).status, 200);
    const again = await post(code);
    assert.equal(again.status, 401);
    assert.equal(again.json.error.code, 'login_code_invalid');
    assert.equal((await post('x'.repeat(43))).json.error.code, 'login_code_invalid');
    // An agent cannot make a login code.
    const { addAgent, readAgentToken } = await import('../../src/datadir/agents.js');
    addAgent(stack.home, 'nosy');
    const asAgent = await fetch(`http://127.0.0.1:${stack.portA}/console/login-code`, { method: 'POST', headers: { authorization: `Bearer ${readAgentToken(stack.home, 'nosy')}`, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(asAgent.status, 403);
  });

  test('card data in a console request is refused like on the API', async () => {
    const answer = await api('POST', '/policy/validate', { text: '{"v":1,"rules":[{"id":"x","merchants":["4111111111111111.example"],"decision":"deny"}]}' });
    assert.equal(answer.status, 400);
    assert.equal(answer.json.error.code, 'card_data_not_accepted');
  });

  test('the session may stop money without presence, but moving it needs fresh presence once a factor exists', async () => {
    const paused = await api('POST', '/a/pause', { reason: 'lunch' });
    assert.equal(paused.status, 200, paused.body);
    // No factor yet: the session is the owner, as the daemon token is.
    const resumed = await api('POST', '/a/resume', {});
    assert.equal(resumed.status, 200, resumed.body);
    setApprovalPassphrase(stack.home, 'correct horse battery staple');
    passphraseSet = 'correct horse battery staple';
    assert.equal((await api('POST', '/a/pause', {})).status, 200);
    const direct = await api('POST', '/a/resume', {});
    assert.equal(direct.status, 403);
    assert.equal(direct.json.error.code, 'owner_presence_required');
    const wrong = await api('POST', '/a/resume', {}, presenceHeader({ passphrase: 'not the passphrase' }));
    assert.equal(wrong.json.error.code, 'invalid_passphrase');
    const right = await api('POST', '/a/resume', {}, presenceHeader({ passphrase: 'correct horse battery staple' }));
    assert.equal(right.status, 200, right.body);
    assert.equal((await stack.a.get('/health')).body.paused, null);
  });

  test('a passkey proof must answer a challenge the daemon made for this purpose', async () => {
    const forged = await api('POST', '/a/resume', {}, presenceHeader({ passkey: { id: 'AAAA', client_data_json: 'e30', authenticator_data: 'AA', signature: 'AA' } }));
    assert.equal(forged.status, 401);
    assert.equal(forged.json.error.code, 'passkey_not_verified');
  });

  test('the policy editor: validation names the field, the dry run decides without signing', async () => {
    const invalid = await api('POST', '/policy/validate', { text: '{"v":1,"default":"maybe"}' });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.json.error.code, 'policy_invalid');
    assert.equal(invalid.json.error.param, 'default');
    const notJson = await api('POST', '/policy/validate', { text: '{"v":1,' });
    assert.equal(notJson.json.error.code, 'policy_invalid');
    const valid = await api('POST', '/policy/validate', { text: '{"v":1,"default":"allow","budgets":[{"id":"weekly","per":"week","limit":"20.00","over":"deny"}]}' });
    assert.equal(valid.status, 200, valid.body);
    assert.equal(valid.json.summary, '0 rules, 1 budget, 0 velocity limits');
    assert.deepEqual(valid.json.warnings, []);
    const noCap = await api('POST', '/policy/validate', { text: '{"v":1,"rules":[{"id":"books-cap","max_amount":"20.00","decision":"allow"}]}' });
    assert.deepEqual(noCap.json.warnings.map((w: { field: string }) => w.field), ['rules[0]'], 'the editor warns about a max_amount that is no cap');
    const dry = await api('POST', '/policy/dry-run', { text: '{"v":1,"default":"allow","rules":[{"id":"no-shoes","merchants":["shoes.example"],"decision":"deny"}]}', request: { card_id: stack.cards[0].card_id, merchant_name: 'shoes.example', amount: '5.00' } });
    assert.equal(dry.status, 200, dry.body);
    assert.equal(dry.json.decision, 'deny');
    assert.equal(dry.json.rule, 'no-shoes');
    assert.equal((await stack.a.get('/authorizations')).body.authorizations.length, 0, 'a dry run signed something');
  });

  test('logout ends the session at once', async () => {
    const session = await login();
    const out = await raw(port, 'POST', '/console/api/logout', { host, origin, cookie: `__Host-latch_console=${session.cookie}`, 'x-latch-csrf': session.csrf, 'content-type': 'application/json' }, '{}');
    assert.equal(out.status, 200);
    assert.match(String(out.headers['set-cookie']), /Max-Age=0/);
    const after = await raw(port, 'GET', '/console/api/spending', { host, cookie: `__Host-latch_console=${session.cookie}`, 'x-latch-csrf': session.csrf });
    assert.equal(after.json.error.code, 'console_login_required');
  });

  test('the A listener still refuses browsers', async () => {
    const answer = await raw(stack.portA, 'GET', '/cards', { host: `127.0.0.1:${stack.portA}`, origin, authorization: `Bearer ${stack.token()}` });
    assert.equal(answer.status, 403);
    assert.equal(answer.json.error.code, 'forbidden_origin');
  });
});
