/**
 * A whole Latch on ephemeral ports: the real sandbox cloud, a device enrolled through
 * `latch setup` exactly as a user would, and the real daemon with both listeners.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { runCli } from '../../src/cli/main.js';
import { createDaemon, type DaemonHandle } from '../../src/daemon/create-daemon.js';
import { readAgentToken } from '../../src/datadir/agents.js';
import { readToken } from '../../src/datadir/token.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/create-sandbox.js';

export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** A JSON client for one base URL; `auth` is the bearer token to send, if any. */
export class JsonClient {
  constructor(
    readonly baseUrl: string,
    private readonly auth: () => string | undefined,
  ) {}

  async request(method: string, target: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    const token = this.auth();
    const response = await fetch(this.baseUrl + target, {
      method,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  }

  get(target: string, headers?: Record<string, string>): Promise<HttpAnswer> {
    return this.request('GET', target, undefined, headers);
  }

  post(target: string, body: unknown, headers?: Record<string, string>): Promise<HttpAnswer> {
    return this.request('POST', target, body, headers);
  }
}

export interface StackCard {
  card_id: string;
  label: string;
}

export interface Stack {
  root: string;
  home: string;
  sandbox: Sandbox;
  daemon: DaemonHandle;
  portA: number;
  portB: number;
  /** The owner console's port, when started with `console: true`. */
  portConsole: number | undefined;
  accountId: string;
  /** Two frozen cards: Groceries (100.00) and Subscriptions (50.00). */
  cards: [StackCard, StackCard];
  /** Variant A with the token. */
  a: JsonClient;
  /** Variant B with the token. */
  b: JsonClient;
  /** Variant A with an agent's token, read from its file at each request (add the agent first). */
  agent(name: string): JsonClient;
  /** The sandbox's admin surface. */
  admin: JsonClient;
  /** Everything the daemon logged. */
  logs(): string;
  token(): string;
  /** A charge from the card network. */
  charge(cardId: string, merchant: string, amount: string, currency?: string): Promise<HttpAnswer>;
  close(): Promise<void>;
}

/** runLatch runs the CLI in-process with LATCH_HOME set, capturing its output. */
export async function runLatch(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await runCli(args, { stdout, stderr, env });
  return { code, stdout: out, stderr: err };
}

/** startStack starts sandbox, enrollment and daemon; close() stops both and removes the files. */
export async function startStack(options: { sandboxNow?: () => number; console?: boolean } = {}): Promise<Stack> {
  const root = mkdtempSync(path.join(tmpdir(), 'latch-e2e-'));
  chmodSync(root, 0o700);
  const home = path.join(root, 'home');
  const sandbox = await createSandbox({ dataDir: path.join(root, 'sandbox'), port: 0, ...(options.sandboxNow ? { now: options.sandboxNow } : {}) });
  const admin = new JsonClient(sandbox.url, () => sandbox.adminKey);
  const setup = await admin.post('/v1/sandbox/setup-tokens', {});
  if (setup.status !== 201) throw new Error(`setup token: ${setup.text}`);
  const accountId = setup.body.account_id as string;
  const cards: StackCard[] = [];
  for (const [label, balance] of [['Groceries', '100.00'], ['Subscriptions', '50.00']] as const) {
    const created = await admin.post('/v1/sandbox/cards', { account_id: accountId, label, balance, daily_limit: '500.00' });
    if (created.status !== 201) throw new Error(`card: ${created.text}`);
    cards.push({ card_id: created.body.card_id, label });
  }
  const deposit = await admin.post('/v1/sandbox/deposits', { account_id: accountId, amount: '250.00' });
  if (deposit.status !== 200) throw new Error(`deposit: ${deposit.text}`);

  const env: NodeJS.ProcessEnv = { LATCH_HOME: home };
  const enrolled = await runLatch(['setup', '--token', setup.body.setup_token, '--cloud', sandbox.url], env);
  if (enrolled.code !== 0) throw new Error(`latch setup failed: ${enrolled.stderr}`);

  let logText = '';
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => (logText += chunk.toString()));
  const daemon = createDaemon({ home, portA: 0, portB: 0, env, logStream, ...(options.console === true && { console: { port: 0 } }) });
  const ports = await daemon.listen();
  const token = () => readToken(home);
  const a = new JsonClient(`http://127.0.0.1:${ports.portA}`, token);
  const b = new JsonClient(`http://127.0.0.1:${ports.portB}`, token);
  return {
    root,
    home,
    sandbox,
    daemon,
    portA: ports.portA as number,
    portB: ports.portB as number,
    portConsole: ports.portConsole,
    accountId,
    cards: cards as [StackCard, StackCard],
    a,
    b,
    agent: (name) => new JsonClient(`http://127.0.0.1:${ports.portA as number}`, () => readAgentToken(home, name)),
    admin,
    logs: () => logText,
    token,
    charge: (cardId, merchant, amount, currency = 'USD') => admin.post('/v1/sandbox/charges', { card_id: cardId, merchant, amount, currency }),
    async close() {
      await daemon.close({ deadlineMs: 1000 });
      await sandbox.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
