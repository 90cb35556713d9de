/**
 * Section 12, the owner console: the approvals page's first paint in a real headless Chromium
 * (Debian's `chromium`, driven over the DevTools protocol by puppeteer-core) on the loopback.
 * A daemon of this tree runs on a clone of the enrolled home with its console on an ephemeral
 * port, one agent and a policy that asks the owner, and one approval pending, so the page has
 * what it shows in use. The browser logs in once with a one-time link, then loads `/approvals`
 * again and again; each load's first contentful paint is read from the page's own Paint Timing
 * entry (from the navigation's start). The baseline is the same measurement of a page of one
 * heading from a bare `node:http` server. Goal (issue 27): p50 ≤ 300 ms. Without Chromium the
 * section says so and reports nothing.
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { addAgent, readAgentToken } from '../../src/datadir/agents.js';
import { browserPath, launchChromium } from '../../test/console/chromium.js';
import { cloneHome, type BenchStack, type LatchUnderTest } from '../bench-stack.js';
import { figure, type Figure } from '../figures.js';
import { send } from '../load-generator.js';
import { percentile } from '../stats.js';

const WAIT_MS = 20_000;
const BASELINE_PAGE = Buffer.from('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Approvals</title></head><body><h1>Approvals</h1></body></html>');

/** The page's first contentful paint, in ms from the navigation's start (undefined until it painted). */
const FIRST_PAINT_SCRIPT = `(() => { const entry = performance.getEntriesByName('first-contentful-paint')[0]; return entry === undefined ? null : entry.startTime; })()`;

/** measureConsolePaint returns the approvals page's first-paint row, or nothing (with a message) without Chromium. */
export async function measureConsolePaint(targets: { stack: BenchStack; latch: LatchUnderTest; loads: number; progress: (text: string) => void }): Promise<Figure[]> {
  const { stack, latch, loads, progress } = targets;
  const chromium = browserPath();
  if ('missing' in chromium) {
    progress(`12: skipped, Chromium not found: ${chromium.missing}`);
    return [];
  }
  const home = cloneHome(latch.home, path.join(stack.root, 'console-home'));
  writeFileSync(path.join(home, 'policy.json'), JSON.stringify({ v: 1, default: 'ask' }), { mode: 0o600 });
  addAgent(home, 'shopper');
  const daemon = await stack.startDaemon({ ...latch, home });
  const bare = await startBarePage();
  const headless = await launchChromium(chromium.path);
  try {
    const consolePort = Number(daemon.server.ready['port_console']);
    if (!Number.isInteger(consolePort) || consolePort <= 0) throw new Error('console: the daemon did not report its console port');
    const asked = await send(false, daemon.port, {
      method: 'POST',
      path: '/authorize',
      headers: { authorization: `Bearer ${readAgentToken(home, 'shopper')}`, 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ card_id: stack.cardIds[0], amount: '12.34', merchant_name: 'shop.example.com', authorization_type: 'exact' })),
    });
    if (asked.status !== 202) throw new Error(`console: the agent's request answered ${asked.status}, not 202 (pending approval): ${asked.text.slice(0, 300)}`);
    const code = await send(false, daemon.port, { method: 'POST', path: '/console/login-code', headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' }, body: Buffer.from('{}') });
    if (code.status !== 201) throw new Error(`console: POST /console/login-code answered ${code.status}: ${code.text.slice(0, 300)}`);
    const page = await headless.browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await page.goto(String((JSON.parse(code.text) as { url: string }).url));
    await page.waitForFunction(`location.pathname === '/approvals'`, { timeout: WAIT_MS });

    const consoleUrl = `http://localhost:${consolePort}/approvals`;
    const bareUrl = `http://localhost:${(bare.address() as AddressInfo).port}/approvals`;
    const paints = { console: [] as number[], bare: [] as number[], shown: [] as number[] };
    // Alternating, after one warm-up load of each, as every other section does.
    for (let load = -1; load < loads; load += 1) {
      for (const side of ['bare', 'console'] as const) {
        await page.goto(side === 'console' ? consoleUrl : bareUrl, { waitUntil: 'load', timeout: WAIT_MS });
        if (side === 'console') {
          await page.waitForSelector('section[data-approval-id]', { timeout: WAIT_MS });
          if (load >= 0) paints.shown.push((await page.evaluate('performance.now()')) as number);
        }
        await page.waitForFunction(`${FIRST_PAINT_SCRIPT} !== null`, { timeout: WAIT_MS });
        if (load >= 0) paints[side].push((await page.evaluate(FIRST_PAINT_SCRIPT)) as number);
      }
    }
    const p50 = (values: number[]) => percentile(values, 50);
    return [
      figure({
        section: 12,
        name: 'Console /approvals in headless Chromium: first contentful paint p50',
        unit: 'ms',
        value: p50(paints.console),
        baseline: p50(paints.bare),
        baselineName: 'a one-heading page from bare node:http, same browser',
        goal: { kind: 'value_at_most', limit: 300 },
        note: `median of ${loads} loads each; the pending approval listed at ${p50(paints.shown).toFixed(1)} ms p50 (its terms fetched and drawn); p99 first paint ${percentile(paints.console, 99).toFixed(1)} ms`,
      }),
    ];
  } finally {
    await headless.close();
    await new Promise((resolve) => bare.close(resolve));
    await daemon.server.stop();
  }
}

function startBarePage(): Promise<http.Server> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': BASELINE_PAGE.length });
    response.end(BASELINE_PAGE);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}
