/**
 * The owner console in a real headless Chromium, against the real daemon and sandbox on ephemeral
 * ports: log in with a one-time link, see a pending approval's exact terms, register a passkey with
 * a virtual (user-verifying) authenticator, approve with it and see the charge pass; approve with
 * the passphrase; an assertion made for one approval is refused for another and cannot be
 * replayed; the policy editor names the bad field; the keyboard alone approves; no CSP violation.
 * Screenshots of every page, wide and narrow, go to test-output/console/.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeLoginPage } from '../../src/cli/login-page.js';
import type { Page } from 'puppeteer-core';
import { setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { addAgent } from '../../src/datadir/agents.js';
import { REPO_ROOT } from '../support/paths.js';
import { JsonClient, startStack, type Stack } from '../support/stack.js';
import { addVirtualAuthenticator, browserPath, launchChromium, type HeadlessBrowser } from './chromium.js';

const PASSPHRASE = 'correct horse battery staple';
const SCREENSHOTS = path.join(REPO_ROOT, 'test-output', 'console');
const WAIT_MS = 20_000;
const chromium = browserPath();

describe('owner console in a real browser', { skip: 'missing' in chromium ? `Chromium not found: ${chromium.missing}` : false }, () => {
  let stack: Stack;
  let headless: HeadlessBrowser;
  let page: Page;
  let agent: JsonClient;
  const consoleProblems: string[] = [];
  let origin = '';

  before(async () => {
    stack = await startStack({ console: true });
    origin = `http://localhost:${stack.portConsole}`;
    // Every agent request asks the owner: the console is where they decide.
    writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify({ v: 1, default: 'ask' }), { mode: 0o600 });
    addAgent(stack.home, 'shopper');
    agent = stack.agent('shopper');
    setApprovalPassphrase(stack.home, PASSPHRASE);
    headless = await launchChromium((chromium as { path: string }).path);
    page = await headless.browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    // A CSP violation is reported on the console; a refused fetch (401, 400: the tests' own bad
    // attempts) is too, as "Failed to load resource", and is not a problem of the page.
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) consoleProblems.push(message.text());
    });
    page.on('pageerror', (error) => consoleProblems.push(String(error)));
    await addVirtualAuthenticator(page);
    mkdirSync(SCREENSHOTS, { recursive: true });
  });

  after(async () => {
    await headless?.close();
    await stack?.close();
  });

  async function ask(amount: string, merchant = 'shop.example.com'): Promise<string> {
    const answer = await agent.post('/authorize', { card_id: stack.cards[0].card_id, amount, merchant_name: merchant, authorization_type: 'exact' });
    assert.equal(answer.status, 202, answer.text);
    return answer.body.approval_id as string;
  }

  async function waitForText(text: string, what: string): Promise<void> {
    try {
      await page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(text)})`, { timeout: WAIT_MS });
    } catch {
      throw new Error(`waited ${WAIT_MS} ms for ${what} (${JSON.stringify(text)}); the page says: ${(await page.evaluate('document.body.innerText')) as string}`);
    }
  }

  async function login(): Promise<void> {
    const link = await stack.a.post('/console/login-code', {});
    assert.equal(link.status, 201, link.text);
    assert.match(link.body.url, new RegExp(`^${origin}/login#[A-Za-z0-9_-]{43}$`));
    await page.goto(link.body.url);
    // A passphrase is set: the link alone does not sign in; the page asks for it (docs/decisions.md §37).
    await signInWithPassphrase(page);
    await page.waitForFunction(`location.pathname === '/approvals'`, { timeout: WAIT_MS });
    // The code left the address bar, and it works once.
    const again = await fetch(`${origin}/console/api/login`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ code: link.body.url.split('#')[1] }) });
    assert.equal(again.status, 401);
    assert.equal(((await again.json()) as { error: { code: string } }).error.code, 'login_code_invalid');
  }

  async function approvalSection(approvalId: string): Promise<string> {
    const selector = `section[data-approval-id="${approvalId}"]`;
    await page.waitForSelector(selector, { timeout: WAIT_MS }).catch(() => {
      throw new Error(`approval ${approvalId} never appeared on the approvals page`);
    });
    return selector;
  }

  test('log in (the browser keeps the Secure __Host- session cookie on http://localhost), see the exact terms of a pending approval', async () => {
    const approvalId = await ask('12.34');
    await login();
    const section = await approvalSection(approvalId);
    // Chromium keeps a Secure __Host- cookie from http://localhost (docs/decisions.md §29.4).
    const cookies = await page.cookies(origin);
    assert.deepEqual(cookies.map((cookie) => [cookie.name, cookie.secure, cookie.httpOnly, cookie.sameSite, cookie.path]), [['__Host-latch_console', true, true, 'Strict', '/']]);
    const text = (await page.$eval(section, (node) => (node as unknown as { innerText: string }).innerText)) as string;
    for (const term of ['12.34 USD at shop.example.com', 'shopper', stack.cards[0].card_id, stack.cards[0].label, '•••• ', 'exact', 'default', 'no rule matched']) assert.ok(text.includes(term), `the terms lack ${term}: ${text}`);
    // Words, not wire names (issue 37 item 8): the kind, the window, the expiry in local time, the card's balance.
    for (const term of ['one-time', 'valid 30 minutes after approval', 'local time', '100.00 USD available']) assert.ok(text.includes(term), `the terms lack ${term}: ${text}`);
    for (const wire of ['one_time', '1800 s']) assert.ok(!text.includes(wire), `the terms show ${wire}: ${text}`);
    assert.ok(!text.includes('less than this request'), text);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'approvals.png') });
  });

  test('an approval for more than the card holds says so beside the balance', async () => {
    const approvalId = await ask('500.00', 'big.example.com');
    await page.goto(`${origin}/approvals`);
    const section = await approvalSection(approvalId);
    const text = (await page.$eval(section, (node) => (node as unknown as { innerText: string }).innerText)) as string;
    assert.match(text, /100\.00 USD available — less than this request/);
    await page.type(`${section} input[aria-label="Reason for denying ${approvalId}"]`, 'too much');
    await (await findButton(page, 'Deny', section)).click();
    await waitForText('Denied: 500.00 USD', 'the denial');
  });

  test('register a passkey (presence: the passphrase), then approve with it and the charge passes', async () => {
    await page.goto(`${origin}/agents`);
    await page.waitForSelector('input[aria-label="Passkey name"]', { timeout: WAIT_MS });
    await page.type('input[aria-label="Passkey name"]', 'laptop');
    await page.type('input[aria-label="Owner passphrase for Add passkey"]', PASSPHRASE);
    await (await findButton(page, 'Confirm with passphrase, then add passkey')).click();
    await waitForText('Passkey added.', 'the passkey to be registered');
    await waitForText('laptop (', 'the passkey in the list');
    const health = await stack.a.get('/health');
    assert.equal(health.body.owner_presence, 'passphrase,passkey');

    const approvalId = await ask('7.50', 'passkey.example.com');
    await page.goto(`${origin}/approvals`);
    const section = await approvalSection(approvalId);
    const button = await findButton(page, 'Approve with passkey', section);
    await button.click();
    await waitForText('Approved: pw_', 'the passkey approval');
    const approval = await stack.a.get(`/approvals/${approvalId}`);
    assert.equal(approval.body.status, 'approved');
    const charged = await stack.charge(stack.cards[0].card_id, 'passkey.example.com', '7.50');
    assert.equal(charged.status, 200, charged.text);
    assert.equal(charged.body.decision, 'approved', charged.text);
    const audit = (await import('node:fs')).readFileSync(path.join(stack.home, 'audit.log'), 'utf8');
    const line = audit.split('\n').find((entry) => entry.includes('"approval_approved"') && entry.includes(approvalId));
    assert.ok(line !== undefined && /"passkey_id":"[A-Za-z0-9_-]+"/.test(line), `the approval's audit line names the passkey: ${line}`);
  });

  test('approve with the passphrase', async () => {
    const approvalId = await ask('3.00', 'phrase.example.com');
    await page.goto(`${origin}/approvals`);
    const section = await approvalSection(approvalId);
    await page.type(`${section} input[type="password"]`, PASSPHRASE);
    await (await findButton(page, 'Approve with passphrase', section)).click();
    await waitForText('Approved: pw_', 'the passphrase approval');
    assert.equal((await stack.a.get(`/approvals/${approvalId}`)).body.status, 'approved');
  });

  test('add an agent with the passkey: the page asks for a challenge bound to that exact request', async () => {
    await page.goto(`${origin}/agents`);
    await page.waitForSelector('input[aria-label="New agent name"]', { timeout: WAIT_MS });
    await page.type('input[aria-label="New agent name"]', 'by-passkey');
    await (await findButton(page, 'Add agent with passkey')).click();
    await waitForText('Agent by-passkey added.', 'the agent added with a passkey');
  });

  test('an assertion made for one approval is refused for another, and is never accepted twice', async () => {
    const first = await ask('4.00', 'first.example.com');
    const second = await ask('5.00', 'second.example.com');
    await page.goto(`${origin}/approvals`);
    await approvalSection(second);
    const result = (await page.evaluate(assertionScript(first, second))) as { crossed: { status: number; code: string }; own: { status: number; code: string }; fresh: { status: number }; replay: { status: number; code: string } };
    assert.deepEqual(result.crossed, { status: 401, code: 'passkey_not_verified' }, 'an assertion for the first approval approved the second');
    // The challenge was spent by the wrong use: it cannot approve its own approval afterwards either.
    assert.deepEqual(result.own, { status: 401, code: 'passkey_not_verified' });
    assert.equal(result.fresh.status, 200, `a fresh assertion for the first approval approves it: ${stack.logs().split('\n').filter((line) => line.includes('internal_error')).join('\n')}`);
    assert.deepEqual(result.replay, { status: 401, code: 'passkey_not_verified' }, 'a replayed assertion was accepted');
    assert.equal((await stack.a.get(`/approvals/${second}`)).body.status, 'pending_approval');
    assert.equal((await stack.a.get(`/approvals/${first}`)).body.status, 'approved');
  });

  test('the keyboard alone approves', async () => {
    const approvalId = await ask('2.00', 'keys.example.com');
    await page.goto(`${origin}/approvals`);
    const section = await approvalSection(approvalId);
    const label = `Owner passphrase for Approve`;
    let reached = false;
    for (let presses = 0; presses < 80 && !reached; presses += 1) {
      await page.keyboard.press('Tab');
      reached = (await page.evaluate(`(() => { const el = document.activeElement; return !!el && el.getAttribute('aria-label') === ${JSON.stringify(label)} && !!el.closest(${JSON.stringify(section)}); })()`)) as boolean;
    }
    assert.ok(reached, 'Tab never reached the passphrase field of the approval');
    await page.keyboard.type(PASSPHRASE);
    await page.keyboard.press('Enter');
    await waitForText('Approved: pw_', 'the keyboard approval');
    assert.equal((await stack.a.get(`/approvals/${approvalId}`)).body.status, 'approved');
  });

  test('the policy editor names the field of an invalid policy as you type', async () => {
    await page.goto(`${origin}/policy`);
    await page.waitForSelector('textarea', { timeout: WAIT_MS });
    await waitForText('Valid:', 'the current policy to validate');
    await page.$eval('textarea', (node) => {
      (node as unknown as { value: string }).value = '';
    });
    await page.type('textarea', '{"v": 1, "default": "maybe"}');
    await waitForText('(default)', 'the editor to name the bad field');
    await waitForText('policy_invalid', 'the editor to show the code');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'policy.png') });
  });

  test('every page renders wide and narrow, with no CSP violation or script error', async () => {
    for (const name of ['approvals', 'spending', 'agents', 'policy', 'activity']) {
      for (const [width, height, suffix] of [[1280, 800, ''], [390, 844, '-narrow']] as const) {
        await page.setViewport({ width, height });
        await page.goto(`${origin}/${name}`);
        await page.waitForFunction(`!document.body.innerText.includes('Loading…')`, { timeout: WAIT_MS });
        const overflow = (await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) as number;
        assert.ok(overflow <= 1, `${name} at ${width}px scrolls sideways by ${overflow}px`);
        await page.screenshot({ path: path.join(SCREENSHOTS, `${name}${suffix}.png`), fullPage: true });
      }
    }
    await page.setViewport({ width: 1280, height: 800 });
    await page.goto(`${origin}/spending`);
    await waitForText('Last 30 days by agent (USD)', 'the spending chart');
    assert.ok((await page.$$('svg.chart rect')).length > 0, 'the spending page drew no bars');
    assert.deepEqual(consoleProblems, [], 'the browser reported CSP violations or script errors');
    // The detector above can fail: inline code is refused by the CSP, and the refusal is seen.
    await page.evaluate(`(() => { const script = document.createElement('script'); script.textContent = 'window.inlineRan = true'; document.body.appendChild(script); })()`);
    await page.waitForFunction(() => true, { timeout: WAIT_MS });
    const deadline = Date.now() + WAIT_MS;
    while (consoleProblems.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.match(consoleProblems.join('\n'), /Content Security Policy/, 'an inline script was not reported as a CSP violation');
    assert.equal(await page.evaluate('window.inlineRan === true'), false, 'an inline script ran despite the CSP');
  });

  test('the private page latch console opens instead of the link logs a fresh browser in, from file://', async () => {
    const link = await stack.a.post('/console/login-code', {});
    assert.equal(link.status, 201, link.text);
    const file = writeLoginPage(stack.home, link.body.url);
    const context = await headless.browser.createBrowserContext();
    try {
      const fresh = await context.newPage();
      await fresh.goto(pathToFileURL(file).href);
      await signInWithPassphrase(fresh);
      await fresh.waitForFunction(`location.origin === ${JSON.stringify(origin)} && location.pathname === '/approvals'`, { timeout: WAIT_MS });
      // Logged in with the page's code, which is spent now.
      const again = await fetch(`${origin}/console/api/login`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ code: link.body.url.split('#')[1] }) });
      assert.equal(again.status, 401);
    } finally {
      await context.close();
    }
  });
});

/** signInWithPassphrase answers the sign-in page's request for presence with the owner passphrase. */
async function signInWithPassphrase(page: Page): Promise<void> {
  await page.waitForSelector('input[aria-label="Owner passphrase"]', { timeout: WAIT_MS });
  await page.type('input[aria-label="Owner passphrase"]', PASSPHRASE);
  await (await findButton(page, 'Sign in with passphrase')).click();
}

async function findButton(page: Page, text: string, within = 'body') {
  const handle = await page.waitForFunction(
    `Array.from(document.querySelectorAll(${JSON.stringify(`${within} button`)})).find((button) => button.textContent === ${JSON.stringify(text)}) || null`,
    { timeout: WAIT_MS },
  ).catch(() => {
    throw new Error(`no button "${text}" in ${within}`);
  });
  return handle.asElement() as NonNullable<ReturnType<typeof handle.asElement>> & { click(): Promise<void> };
}

/**
 * assertionScript runs in the page: it gets a passkey assertion for approval `first` and offers it
 * to `second`, then to `first`, then approves `first` with a fresh assertion and replays that one.
 * (A string, so the test runner's transpiler adds nothing the browser lacks.)
 */
function assertionScript(first: string, second: string): string {
  return String.raw`(async () => {
    const csrf = document.querySelector('meta[name="latch-csrf"]').getAttribute('content');
    const call = async (path, proof) => {
      const presence = btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(proof)))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      const response = await fetch('/console/api' + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-latch-csrf': csrf, 'latch-owner-presence': presence }, body: '{}' });
      const json = await response.json();
      return { status: response.status, code: json.error ? json.error.code : undefined };
    };
    const bytes = (text) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
    const text = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    const assertionFor = async (approvalId) => {
      const response = await fetch('/console/api/approvals/' + approvalId + '/passkey-options', { method: 'POST', headers: { 'content-type': 'application/json', 'x-latch-csrf': csrf }, body: '{}' });
      const options = await response.json();
      const credential = await navigator.credentials.get({ publicKey: { challenge: bytes(options.challenge), rpId: options.rp_id, userVerification: 'required', allowCredentials: options.credential_ids.map((id) => ({ type: 'public-key', id: bytes(id) })) } });
      return { id: text(credential.rawId), client_data_json: text(credential.response.clientDataJSON), authenticator_data: text(credential.response.authenticatorData), signature: text(credential.response.signature) };
    };
    const stolen = await assertionFor(${JSON.stringify(first)});
    const crossed = await call('/a/approvals/${second}/approve', { passkey: stolen });
    const own = await call('/a/approvals/${first}/approve', { passkey: stolen });
    const fresh = await assertionFor(${JSON.stringify(first)});
    const freshAnswer = await call('/a/approvals/${first}/approve', { passkey: fresh });
    const replay = await call('/a/approvals/${first}/approve', { passkey: fresh });
    return { crossed: { status: crossed.status, code: crossed.code }, own: { status: own.status, code: own.code }, fresh: { status: freshAnswer.status }, replay: { status: replay.status, code: replay.code } };
  })()`;
}
