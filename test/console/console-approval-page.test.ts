/**
 * The page an MCP client sends the person to (shared/spec/mcp-approvals.md §2), in a real headless
 * Chromium, end to end: the official MCP SDK client with URL-mode elicitation calls latch_authorize
 * through `latch mcp`; the URL it is asked to open goes to the browser; without a session the page
 * offers sign-in only and shows no term of the approval; passkey sign-in with a virtual,
 * user-verifying authenticator; then the exact terms; approve with the passkey; the open tool call
 * returns the authorization and notifications/elicitation/complete follows. Screenshots go to
 * test-output/console/ (docs/images/ keeps two of them).
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitationCompleteNotificationSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Page } from 'puppeteer-core';
import { addAgent } from '../../src/datadir/agents.js';
import { REPO_ROOT } from '../support/paths.js';
import { startStack, type Stack } from '../support/stack.js';
import { waitUntil } from '../support/wait.js';
import { addVirtualAuthenticator, browserPath, launchChromium, type HeadlessBrowser } from './chromium.js';

const SCREENSHOTS = path.join(REPO_ROOT, 'test-output', 'console');
const WAIT_MS = 20_000;
const chromium = browserPath();

describe('the approval page an MCP client opens', { skip: 'missing' in chromium ? `Chromium not found: ${chromium.missing}` : false }, () => {
  let stack: Stack;
  let headless: HeadlessBrowser;
  let page: Page;
  let origin = '';
  const cspProblems: string[] = [];

  before(async () => {
    stack = await startStack({ console: true });
    origin = `http://localhost:${stack.portConsole}`;
    addAgent(stack.home, 'shopper');
    writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify({ v: 1, rules: [{ id: 'ask-first', merchants: ['books.example.com'], decision: 'ask' }] }), { mode: 0o600 });
    const config = path.join(stack.home, 'config.json');
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, 'utf8')), console_port: stack.portConsole }), { mode: 0o600 });
    headless = await launchChromium((chromium as { path: string }).path);
    page = await headless.browser.newPage();
    await page.setViewport({ width: 1100, height: 760 });
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) cspProblems.push(message.text());
    });
    page.on('pageerror', (error) => cspProblems.push(String(error)));
    await addVirtualAuthenticator(page);
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  after(async () => {
    await headless?.close();
    await stack?.close();
  });

  const text = async (): Promise<string> => (await page.evaluate('document.body.innerText')) as string;
  async function waitForText(wanted: string, what: string): Promise<void> {
    try {
      await page.waitForFunction(`document.body.innerText.includes(${JSON.stringify(wanted)})`, { timeout: WAIT_MS });
    } catch {
      throw new Error(`waited ${WAIT_MS} ms for ${what} (${JSON.stringify(wanted)}); the page says: ${await text()}`);
    }
  }
  async function click(label: string): Promise<void> {
    const button = await page.waitForFunction(`Array.from(document.querySelectorAll('button')).find((b) => b.textContent === ${JSON.stringify(label)}) || null`, { timeout: WAIT_MS }).catch(() => {
      throw new Error(`no button "${label}" on the page`);
    });
    await (button.asElement() as unknown as { click(): Promise<void> }).click();
  }

  test('the owner registers a passkey in the console, then signs out', async () => {
    // The first passkey, while no factor exists, needs only the session (spec owner-console §2).
    const link = await stack.a.post('/console/login-code', {});
    assert.equal(link.status, 201, link.text);
    await page.goto(link.body.url);
    await page.waitForFunction(`location.pathname === '/approvals'`, { timeout: WAIT_MS });
    await page.goto(`${origin}/agents`);
    await page.waitForSelector('input[aria-label="Passkey name"]', { timeout: WAIT_MS });
    await page.type('input[aria-label="Passkey name"]', 'laptop');
    await click('Add passkey');
    await waitForText('Passkey added.', 'the passkey to be registered');
    await page.deleteCookie(...(await page.cookies(origin)));
  });

  test('the MCP client\'s URL: sign-in only and no term before sign-in; passkey sign-in; the exact terms; approve with the passkey; the tool call returns the authorization', async (t) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli/main.ts', 'mcp', '--agent', 'shopper'],
      cwd: REPO_ROOT,
      env: { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', () => undefined);
    const client = new Client({ name: 'browser-test', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    const urls: string[] = [];
    const completed: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      urls.push(String((request.params as { url: string }).url));
      return { action: 'accept' };
    });
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => void completed.push(notification.params.elicitationId));
    await client.connect(transport);
    t.after(() => client.close());
    await client.listTools();

    const call = client.callTool({ name: 'latch_authorize', arguments: { card_id: stack.cards[0].card_id, merchant_domain: 'books.example.com', amount: '23.40' } }, undefined, { timeout: 120_000 });
    const url = await waitUntil(() => urls[0], 'the elicitation with the console URL');
    const approvalId = url.split('/').at(-1) as string;

    // Without a session: sign-in, and nothing of the approval.
    await page.goto(url);
    await waitForText('Sign in with passkey', 'the sign-in page');
    const signedOut = await text();
    for (const term of ['23.40', 'books.example.com', stack.cards[0].card_id, 'Groceries', 'shopper', 'ask-first']) assert.ok(!signedOut.includes(term), `the page shows ${term} before sign-in: ${signedOut}`);
    assert.ok(signedOut.includes('latch console'), 'it names the other way in');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'approval-signin.png') });

    await click('Sign in with passkey');
    await waitForText('23.40 USD at books.example.com', 'the approval\'s terms after passkey sign-in');
    assert.equal(new URL(page.url()).pathname, `/approvals/${approvalId}`);
    const terms = await text();
    for (const term of ['shopper', 'Groceries', stack.cards[0].card_id, 'one-time', 'ask-first']) assert.ok(terms.includes(term), `the terms lack ${term}: ${terms}`);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'approval-page.png') });

    // Presence is still asked for the approval itself: a passkey now exists, so the button says so.
    await click('Approve with passkey');
    await waitForText('Approved: pw_', 'the approval');
    await waitForText('This approval was approved.', 'the page to say it is decided');
    const result: any = await call;
    assert.equal(result.isError, false, JSON.stringify(result.content));
    assert.match(result.structuredContent.policy_id, /^pw_/);
    assert.equal(result.structuredContent.amount, '23.40');
    await waitUntil(() => completed.includes(`latch-approval-${approvalId}`), 'notifications/elicitation/complete');
    assert.deepEqual(cspProblems, []);
  });

  test('signed in, an unknown approval says so', async () => {
    await page.goto(`${origin}/approvals/ap_doesnotexist00000000000`);
    await waitForText('There is no approval ap_doesnotexist00000000000', 'the unknown approval');
  });
});
