/**
 * The quick start's sandbox account: what a user would do in a dashboard (create a setup token,
 * fund the wallet, issue two cards), done through the sandbox's admin API.
 */
import { assertFetchCanRun } from '../runtime/wasm-memory.js';

export interface AdminApi {
  post(path: string, body: unknown): Promise<{ status: number; body: unknown }>;
  /** request sends any admin call; a body, when given, is JSON. It rejects when nothing answers. */
  request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}

/** How long one admin call may take. */
const ADMIN_CALL_TIMEOUT_MS = 10_000;

export interface DemoAccount {
  accountId: string;
  setupToken: string;
}

/** The demo cards: frozen, with balances allocated from the wallet. */
export const DEMO_CARDS = [
  { label: 'Groceries', balance: '100.00', daily_limit: '500.00' },
  { label: 'Subscriptions', balance: '50.00', daily_limit: '200.00' },
] as const;

/** Wallet funds left unallocated, for trying /wallet/allocate. */
export const DEMO_WALLET_DEPOSIT = '250.00';

/** adminApi is a small client for /v1/sandbox/* with the admin key. */
export function adminApi(cloudUrl: string, adminKey: string): AdminApi {
  const request: AdminApi['request'] = async (method, path, body) => {
    assertFetchCanRun();
    const response = await fetch(cloudUrl + path, {
      method,
      headers: { authorization: `Bearer ${adminKey}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(ADMIN_CALL_TIMEOUT_MS),
    });
    return { status: response.status, body: (await response.json().catch(() => ({}))) as unknown };
  };
  return { request, post: (path, body) => request('POST', path, body) };
}

function field(body: unknown, name: string): string {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  if (typeof value !== 'string') throw new Error(`the sandbox answered without ${name}`);
  return value;
}

async function expectOk(what: string, answer: Promise<{ status: number; body: unknown }>): Promise<unknown> {
  const { status, body } = await answer;
  if (status !== 200 && status !== 201) throw new Error(`sandbox ${what} failed with HTTP ${status}`);
  return body;
}

/** createDemoAccount makes a new account with two cards and wallet funds, and a setup token for it. */
export async function createDemoAccount(admin: AdminApi): Promise<DemoAccount> {
  const token = await expectOk('setup token', admin.post('/v1/sandbox/setup-tokens', {}));
  const accountId = field(token, 'account_id');
  for (const card of DEMO_CARDS) {
    await expectOk('card', admin.post('/v1/sandbox/cards', { account_id: accountId, ...card }));
  }
  await expectOk('deposit', admin.post('/v1/sandbox/deposits', { account_id: accountId, amount: DEMO_WALLET_DEPOSIT }));
  return { accountId, setupToken: field(token, 'setup_token') };
}
