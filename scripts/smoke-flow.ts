/**
 * The end-to-end smoke flow, run against a built `latch` (the single binary, or the `latch` an
 * npm install put on PATH): the sandbox cloud and the daemon both run from that build, the device
 * enrolls with `latch setup`, /health answers 200, and one authorization is approved by a
 * matching sandbox charge while a charge from another merchant is declined; `latch doctor`
 * passes, and names the cloud as the problem once the sandbox is stopped.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { readToken } from '../src/datadir/token.js';
import { adminApi, createDemoAccount } from '../src/quickstart/sandbox-account.js';
import { packageVersion, REPO_ROOT } from './build-bundles.js';
import { runLatch, startLatch, type LatchProgram, type RunningLatch } from './latch-process.js';
import { expect, requestJson, type Checklist } from './smoke-kit.js';

/** Where and how the flow runs the build. */
export interface FlowOptions {
  latch: LatchProgram;
  /** A private temporary directory; the data directory and the sandbox journal go inside. */
  root: string;
  /** The environment of every `latch` process (LATCH_HOME is added). */
  env: NodeJS.ProcessEnv;
}

/** smokeFlow runs the flow, recording each step in checks; it stops every process it started. */
export async function smokeFlow(checks: Checklist, options: FlowOptions): Promise<void> {
  const home = path.join(options.root, 'home');
  const env = { ...options.env, LATCH_HOME: home };
  const run = (args: string[]) => runLatch(options.latch, args, { env, cwd: options.root });
  const running: RunningLatch[] = [];
  const start = (args: string[]): RunningLatch => {
    const started = startLatch(options.latch, args, { env, cwd: options.root });
    running.push(started);
    return started;
  };

  try {
    await checks.check('latch --version prints the package version', async () => {
      const result = await run(['--version']);
      expect(result.code === 0 && result.stdout === `${packageVersion()}\n`, 'version', result);
    });

    const sandbox = start(['sandbox', '--port', '0', '--data-dir', path.join(options.root, 'sandbox')]);
    const cloud = await checks.check('latch sandbox starts the sandbox cloud', async () => {
      const ready = await sandbox.ready;
      expect(typeof ready['cloud_url'] === 'string' && typeof ready['admin_key_path'] === 'string', 'ready line', ready);
      return { url: ready['cloud_url'] as string, adminKey: readFileSync(ready['admin_key_path'] as string, 'utf8').trim() };
    });
    const admin = adminApi(cloud.url, cloud.adminKey);
    const account = await checks.check('the sandbox account: setup token, two cards, wallet funds', () => createDemoAccount(admin));

    const keyId = await checks.check('latch setup enrolls the device', async () => {
      const result = await run(['setup', '--token', account.setupToken, '--cloud', cloud.url, '--json']);
      expect(result.code === 0, `latch setup exited ${result.code}: ${result.stderr}`);
      const enrolled = JSON.parse(result.stdout) as { key_id?: unknown; account_id?: unknown };
      expect(enrolled.account_id === account.accountId && typeof enrolled.key_id === 'string', 'enrollment', enrolled);
      return enrolled.key_id as string;
    });

    const daemon = start(['daemon', '--port-a', '0', '--port-b', '0']);
    let consolePort = 0;
    const base = await checks.check('latch daemon listens', async () => {
      const ready = await daemon.ready;
      expect(ready['event'] === 'daemon_listening' && typeof ready['port_a'] === 'number', 'ready line', ready);
      consolePort = ready['port_console'] as number;
      return `http://127.0.0.1:${ready['port_a'] as number}`;
    });
    await checks.check('GET /health is 200 with the version and the enrolled key', async () => {
      const health = await requestJson(`${base}/health`);
      expect(health.status === 200 && health.body?.version === packageVersion() && health.body?.signing_key?.key_id === keyId, 'health', health);
    });
    await checks.check("the console serves its browser files as the bytes of src/console/assets (docs/decisions.md §29.5)", async () => {
      for (const name of ['console.js', 'console.css', 'icon.svg']) {
        const answer = await consoleGet(consolePort, `/assets/${name}`);
        const served = answer.body;
        expect(answer.status === 200 && served.equals(readFileSync(path.join(REPO_ROOT, 'src/console/assets', name))), `${name} as its file`, { status: answer.status, bytes: served.length });
      }
    });

    const token = readToken(home);
    const cardId = await checks.check('GET /cards lists the Groceries card', async () => {
      const cards = await requestJson(`${base}/cards`, { bearer: token });
      const groceries = (cards.body?.cards as Array<{ card_id: string; label: string }> | undefined)?.find((card) => card.label === 'Groceries');
      expect(cards.status === 200 && groceries !== undefined, 'cards', cards);
      return groceries.card_id;
    });
    const authorization = await checks.check('POST /authorize signs a 12.50 window for shop.example.com', async () => {
      const answer = await requestJson(`${base}/authorize`, { bearer: token, body: { card_id: cardId, amount: '12.50', merchant_name: 'shop.example.com' } });
      expect(answer.status === 200 && answer.body?.status === 'active' && answer.body?.amount === '12.50', 'authorization', answer);
      return answer.body as { transaction_id: string };
    });
    const charge = (merchant: string) => admin.post('/v1/sandbox/charges', { card_id: cardId, merchant, amount: '12.50', currency: 'USD' });
    await checks.check('a charge from another merchant is declined', async () => {
      const answer = await charge('other.example.com');
      expect(answer.status === 200 && (answer.body as { decision?: unknown }).decision === 'declined', 'decision', answer);
    });
    await checks.check('the matching sandbox charge is approved', async () => {
      const answer = await charge('shop.example.com');
      expect(answer.status === 200 && (answer.body as { decision?: unknown }).decision === 'approved', 'decision', answer);
    });
    await checks.check('the transaction is settled, as read through the daemon', async () => {
      const answer = await requestJson(`${base}/transactions/${authorization.transaction_id}`, { bearer: token });
      expect(answer.status === 200 && answer.body?.status === 'settled', 'transaction', answer);
    });

    const doctor = (args: string[]) => runLatch(options.latch, ['doctor', ...args], { env: { ...env, LATCH_URL: base }, cwd: options.root });
    await checks.check('latch doctor passes every check', async () => {
      const result = await doctor([]);
      expect(result.code === 0, `latch doctor exited ${result.code}: ${result.stdout}${result.stderr}`);
    });
    await checks.check('SIGTERM stops the sandbox with exit 0', async () => {
      const stopped = await sandbox.stop();
      expect(stopped.code === 0 && stopped.signal === null, 'exit', stopped);
    });
    await checks.check('with the cloud gone, latch doctor names upstream_unavailable (exit 9)', async () => {
      const result = await doctor(['--json']);
      const report = JSON.parse(result.stdout) as { problem?: { code?: unknown } };
      expect(result.code === 9 && report.problem?.code === 'upstream_unavailable', 'doctor', { code: result.code, report });
    });
    await checks.check('SIGTERM stops the daemon with exit 0', async () => {
      const stopped = await daemon.stop();
      expect(stopped.code === 0 && stopped.signal === null, 'exit', stopped);
    });
  } finally {
    await Promise.all(running.map((r) => r.stop(2_000)));
  }
}

/**
 * consoleGet asks the console on 127.0.0.1 with its own Host, `localhost:PORT` (what `localhost`
 * resolves to is not ours to decide, and fetch does not let a caller set Host).
 */
function consoleGet(port: number, target: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, path: target, headers: { host: `localhost:${port}` }, setHost: false, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    request.setTimeout(5_000, () => request.destroy(new Error(`GET ${target} got no answer in 5 s`)));
    request.on('error', reject);
    request.end();
  });
}
