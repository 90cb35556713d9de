/**
 * A real headless Chromium for console tests, driven over the DevTools protocol by puppeteer-core.
 * It is Debian's `chromium` (installed by .ci/run when missing), found by CHROMIUM_PATH or the
 * usual paths; with none, browserPath() says so and the caller skips with that message.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import puppeteer, { type Browser, type CDPSession, type Page } from 'puppeteer-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/** browserPath finds Chromium, or returns why it cannot. */
export function browserPath(): { path: string } | { missing: string } {
  const configured = process.env['CHROMIUM_PATH'];
  if (configured !== undefined && configured !== '') return existsSync(configured) ? { path: configured } : { missing: `CHROMIUM_PATH=${configured} does not exist` };
  const found = CANDIDATES.find((candidate) => existsSync(candidate));
  return found === undefined ? { missing: `no Chromium at ${CANDIDATES.join(', ')} (apt-get install chromium, or set CHROMIUM_PATH)` } : { path: found };
}

export interface HeadlessBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/** launchChromium starts a headless Chromium with a fresh profile and no background traffic. */
export async function launchChromium(executablePath: string): Promise<HeadlessBrowser> {
  const profile = mkdtempSync(path.join(tmpdir(), 'latch-chromium-'));
  const browser = await puppeteer.launch({
    executablePath,
    headless: true,
    userDataDir: profile,
    protocolTimeout: 60_000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  return {
    browser,
    async close() {
      await browser.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** addVirtualAuthenticator gives a page an internal, user-verifying platform authenticator (a passkey). */
export async function addVirtualAuthenticator(page: Page): Promise<{ session: CDPSession; authenticatorId: string }> {
  const session = await page.createCDPSession();
  await session.send('WebAuthn.enable');
  const { authenticatorId } = await session.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { session, authenticatorId };
}
