/**
 * What the daemon token alone, and a console session, can do once an owner passphrase is set
 * (SECURITY.md, "An agent running as you"; docs/decisions.md §27.3; issue 34 item 8). Neither is
 * presence: both are refused everywhere the owner widens what may happen (approving, resuming, the
 * policy, agents, the signing primitives, wallet funds, proxy writes). Both may still ask for a
 * payment on the agents' routes, as the caller `owner`, and the policy decides it as it decides an
 * agent's: signed at once where it allows, held for an approval neither can give where it asks.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CSRF_HEADER } from '../../src/http/door-credential.js';
import { setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { assertError } from '../support/e2e-assert.js';
import { startStack, type Stack } from '../support/stack.js';

const PASSPHRASE = 'token alone is not presence';

interface Answer {
  status: number;
  json: any;
  text: string;
}

let stack: Stack;
let consoleSession: { cookie: string; csrf: string };

/** consoleCall sends one request through the console with the session's cookie and CSRF header. */
function consoleCall(method: string, target: string, body?: unknown): Promise<Answer> {
  const port = stack.portConsole as number;
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: `/console/api${target}`,
        agent: false,
        setHost: false,
        headers: {
          host: `localhost:${port}`,
          origin: `http://localhost:${port}`,
          cookie: consoleSession.cookie,
          [CSRF_HEADER]: consoleSession.csrf,
          ...(text === undefined ? {} : { 'content-type': 'application/json' }),
        },
      },
      (response) => {
        let answer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (answer += chunk));
        response.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(answer);
          } catch {
            json = undefined;
          }
          resolve({ status: response.statusCode ?? 0, json, text: answer });
        });
      },
    );
    request.setTimeout(10_000, () => request.destroy(new Error(`${method} ${target} got no answer in 10 s`)));
    request.on('error', reject);
    if (text !== undefined) request.write(text);
    request.end();
  });
}

async function consoleLogin(): Promise<{ cookie: string; csrf: string }> {
  const link = await stack.a.post('/console/login-code', {});
  assert.equal(link.status, 201, link.text);
  const code = String(link.body.url).split('#')[1] as string;
  const port = stack.portConsole as number;
  const answer = await fetch(`http://127.0.0.1:${port}/console/api/login`, {
    method: 'POST',
    headers: { host: `localhost:${port}`, origin: `http://localhost:${port}`, 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  assert.equal(answer.status, 200, await answer.clone().text());
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] as string;
  return { cookie, csrf: ((await answer.json()) as { csrf: string }).csrf };
}

function writePolicy(policy: unknown): void {
  const file = path.join(stack.home, 'policy.json');
  writeFileSync(file, JSON.stringify(policy), { mode: 0o600 });
}

before(async () => {
  stack = await startStack({ console: true });
  consoleSession = await consoleLogin();
  setApprovalPassphrase(stack.home, PASSPHRASE);
});
after(() => stack?.close());

const payment = (i: number) => ({ card_id: stack.cards[0].card_id, amount: '2.00', merchant_name: `alone-${i}.example.com` });

describe('with an owner passphrase set', () => {
  test('the daemon token alone signs on /authorize and /recurring within the policy, and where the policy asks it waits for an approval it cannot give', async () => {
    writePolicy({ v: 1, default: 'allow' });
    assert.equal((await stack.a.post('/authorize', payment(1))).status, 200);
    assert.equal((await stack.a.post('/recurring', { ...payment(2), interval: 'month' })).status, 200);
    // The owner's own rule: what the token asks for waits for the owner's presence.
    writePolicy({ v: 1, default: 'allow', rules: [{ id: 'owner-asks', agents: ['owner'], decision: 'ask' }] });
    const asked = await stack.a.post('/authorize', payment(3));
    assert.equal(asked.status, 202, asked.text);
    assertError(await stack.a.post(`/approvals/${asked.body.approval_id}/approve`, {}), 403, 'owner_presence_required');
    assertError(await stack.a.post('/sign-card-policy-window', payment(4)), 403, 'owner_presence_required');
  });

  test('a console session alone is the daemon token: it signs through /console/api/a/authorize within the policy, and cannot approve', async () => {
    writePolicy({ v: 1, default: 'allow' });
    const signed = await consoleCall('POST', '/a/authorize', payment(5));
    assert.equal(signed.status, 200, signed.text);
    writePolicy({ v: 1, default: 'allow', rules: [{ id: 'owner-asks', agents: ['owner'], decision: 'ask' }] });
    const asked = await consoleCall('POST', '/a/authorize', payment(6));
    assert.equal(asked.status, 202, asked.text);
    const approve = await consoleCall('POST', `/a/approvals/${asked.json.approval_id}/approve`, {});
    assert.equal(approve.status, 403, approve.text);
    assert.equal(approve.json.error.code, 'owner_presence_required');
    const primitive = await consoleCall('POST', '/a/sign-card-policy-window', payment(7));
    assert.equal(primitive.json.error.code, 'owner_presence_required');
  });
});
