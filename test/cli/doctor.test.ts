/**
 * `latch doctor` names the spec's error class and remedy for each way Latch can be broken
 * (docs/decisions.md §7 rules 1–2): no daemon, an unusable token file, no enrollment, the cloud down while
 * the daemon is fine, and a key the cloud no longer recognizes.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.js';
import { CONNECTION_CHECKS, DIAGNOSIS_CHECKS } from '../../src/client/diagnose.js';
import { createDaemon } from '../../src/daemon/create-daemon.js';
import { loadConfig } from '../../src/datadir/config.js';
import { tokenPath } from '../../src/datadir/token.js';
import { CaptureStream } from '../daemon/daemon-fixture.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';

interface Doctor {
  code: number;
  stdout: string;
  report: any;
}

async function doctor(env: NodeJS.ProcessEnv): Promise<Doctor> {
  const json = await runLatch(['doctor', '--json'], env);
  const human = await runLatch(['doctor'], env);
  assert.equal(human.code, json.code, 'the exit code does not depend on --json');
  return { code: json.code, stdout: human.stdout, report: JSON.parse(json.stdout) };
}

/** statuses returns each connection check's status, in order (the payment checks are in doctor-payments.test.ts). */
const statuses = (report: any): string[] =>
  report.checks.filter((check: { name: string }) => (CONNECTION_CHECKS as readonly string[]).includes(check.name)).map((check: { status: string }) => check.status);

function stackEnv(stack: Stack): NodeJS.ProcessEnv {
  return { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` };
}

describe('latch doctor on a working stack, then broken in two ways', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(async () => {
    await stack.close();
  });

  test('everything works: exit 0, five checks passed, no problem', async () => {
    const { code, report, stdout } = await doctor(stackEnv(stack));
    assert.equal(code, EXIT.ok);
    assert.equal(report.ok, true);
    assert.equal(report.problem, null);
    assert.deepEqual(report.checks.map((check: { name: string }) => check.name), [...DIAGNOSIS_CHECKS]);
    assert.deepEqual(statuses(report), ['ok', 'ok', 'ok', 'ok', 'ok']);
    assert.match(stdout, /All checks passed\./);
    assert.ok(!stdout.includes(stack.token()));
  });

  test('token file readable by others: token class, the chmod fix, exit 3; commands refuse to send it', async () => {
    const token = stack.token();
    chmodSync(tokenPath(stack.home), 0o644);
    try {
      const { code, report, stdout } = await doctor(stackEnv(stack));
      assert.equal(code, EXIT.dataDir);
      assert.equal(report.problem.check, 'token');
      assert.equal(report.problem.code, 'token_unreadable');
      assert.equal(report.problem.spec_class, 'Missing bearer token');
      assert.match(report.problem.remedy, /chmod 600 .*daemon_token/);
      assert.deepEqual(statuses(report), ['ok', 'failed', 'skipped', 'skipped', 'skipped']);
      assert.match(stdout, /What to do: chmod 600/);
      assert.ok(!stdout.includes(token));
      assert.equal((await runLatch(['cards'], stackEnv(stack))).code, EXIT.dataDir);
    } finally {
      chmodSync(tokenPath(stack.home), 0o600);
    }
  });

  test('audit.log readable by others: exit 3 naming the file and the chmod fix, not a cloud failure (exit 1)', async () => {
    const auditLog = path.join(stack.home, 'audit.log');
    chmodSync(auditLog, 0o644);
    try {
      const { code, report, stdout } = await doctor(stackEnv(stack));
      assert.equal(code, EXIT.dataDir, stdout);
      assert.equal(report.problem.code, 'data_directory_unavailable');
      assert.ok(report.problem.message.includes(auditLog), report.problem.message);
      assert.equal(report.problem.remedy.startsWith(`chmod 600 ${auditLog}`), true, report.problem.remedy);
      assert.match(stdout, new RegExp(`What to do: chmod 600 ${auditLog.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    } finally {
      chmodSync(auditLog, 0o600);
    }
    // The fix is the whole fix: the next doctor passes.
    assert.equal((await doctor(stackEnv(stack))).code, EXIT.ok);
  });

  test('a data directory without a token file (another LATCH_HOME): token class, exit 3', async () => {
    const emptyHome = path.join(stack.root, 'empty-home');
    mkdirSync(emptyHome, { mode: 0o700 });
    const { code, report } = await doctor({ LATCH_HOME: emptyHome, LATCH_URL: `http://127.0.0.1:${stack.portA}` });
    assert.equal(code, EXIT.dataDir);
    assert.equal(report.problem.check, 'token');
    assert.match(report.problem.message, /does not exist/);
  });

  test('the cloud forgot this device: Local key not recognized, remedy latch setup --reconnect, exit 7; the remedy works', async () => {
    const config = loadConfig(stack.home);
    const removed = await stack.admin.request('DELETE', `/v1/sandbox/devices/${config.device_id}`);
    assert.equal(removed.status, 200);
    const { code, report, stdout } = await doctor(stackEnv(stack));
    assert.equal(code, EXIT.refused);
    assert.equal(report.problem.check, 'device_key');
    assert.equal(report.problem.spec_class, 'Local key not recognized');
    assert.equal(report.problem.code, 'local_key_not_recognized');
    assert.match(report.problem.remedy, /latch setup --reconnect/);
    assert.deepEqual(statuses(report), ['ok', 'ok', 'ok', 'ok', 'failed'], 'the cloud answered: it is reachable');
    assert.match(stdout, /Problem: Local key not recognized \(local_key_not_recognized\)/);

    const setup = await stack.admin.post('/v1/sandbox/setup-tokens', { account_id: stack.accountId });
    const reconnect = await runLatch(['setup', '--reconnect', '--token', setup.body.setup_token], { LATCH_HOME: stack.home });
    assert.equal(reconnect.code, EXIT.ok, reconnect.stderr);
    assert.equal((await doctor(stackEnv(stack))).code, EXIT.ok);
  });
});

describe('latch doctor with the cloud down', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(async () => {
    await stack.close();
  });

  test('health fine, cloud unreachable: Upstream API unavailable, exit 9; commands exit 9 too', async () => {
    await stack.sandbox.close();
    const { code, report, stdout } = await doctor(stackEnv(stack));
    assert.equal(code, EXIT.upstreamUnavailable);
    assert.equal(report.problem.check, 'cloud');
    assert.equal(report.problem.spec_class, 'Upstream API unavailable');
    assert.equal(report.problem.code, 'upstream_unavailable');
    assert.match(report.problem.message, /The cause lies in the cloud or its API, not in the daemon\./);
    // The cloud named, and that nothing listens there: retrying does not help (issue 44 item 4).
    assert.ok(report.problem.message.includes(`The daemon's cloud is ${stack.sandbox.url}`), report.problem.message);
    assert.match(report.problem.message, /nothing listens there: the connection is refused/);
    assert.ok(report.problem.remedy.includes(`Start the cloud at ${stack.sandbox.url}`), report.problem.remedy);
    assert.deepEqual(statuses(report), ['ok', 'ok', 'ok', 'failed', 'skipped']);
    assert.match(stdout, /Problem: Upstream API unavailable/);
    const cards = await runLatch(['cards', '--json'], stackEnv(stack));
    assert.equal(cards.code, EXIT.upstreamUnavailable);
    assert.equal(JSON.parse(cards.stdout).error.code, 'upstream_unavailable');
    assert.equal((await runLatch(['status'], stackEnv(stack))).code, EXIT.ok, 'health stays fine (rule 1)');
  });
});

describe('latch doctor without a working daemon', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'latch-doctor-'));
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
  });

  test('no daemon: local availability, not a payment failure (rule 1), exit 8', async () => {
    const home = path.join(root, 'no-daemon');
    mkdirSync(home, { mode: 0o700 });
    const { code, report, stdout } = await doctor({ LATCH_HOME: home, LATCH_URL: `http://127.0.0.1:${await closedPort()}` });
    assert.equal(code, EXIT.daemonUnreachable);
    assert.equal(report.ok, false);
    assert.equal(report.problem.check, 'daemon');
    assert.equal(report.problem.spec_class, 'Local daemon unavailable');
    assert.equal(report.problem.code, 'daemon_unreachable');
    assert.match(report.problem.message, /not a payment authorization failure/);
    assert.match(report.problem.remedy, /latch daemon/);
    assert.deepEqual(statuses(report), ['failed', 'skipped', 'skipped', 'skipped', 'skipped']);
    assert.match(stdout, /What to do: Start the daemon/);
  });

  test('a daemon on an empty data directory: not enrolled, remedy latch setup, exit 7', async () => {
    const home = path.join(root, 'fresh');
    const daemon = createDaemon({ home, portA: 0, variantB: false, env: {}, logStream: new CaptureStream() });
    const { portA } = await daemon.listen();
    try {
      const env = { LATCH_HOME: home, LATCH_URL: `http://127.0.0.1:${portA}` };
      const { code, report, stdout } = await doctor(env);
      assert.equal(code, EXIT.refused);
      assert.equal(report.problem.check, 'enrollment');
      assert.equal(report.problem.code, 'device_not_enrolled');
      assert.equal(report.problem.spec_class, 'Not enrolled');
      assert.match(report.problem.remedy, /latch setup/);
      assert.deepEqual(statuses(report), ['ok', 'ok', 'failed', 'skipped', 'skipped']);
      assert.match(stdout, /Problem: Not enrolled/);
      const cards = await runLatch(['cards', '--json'], env);
      assert.equal(cards.code, EXIT.refused);
      assert.equal(JSON.parse(cards.stdout).error.code, 'device_not_enrolled');
    } finally {
      await daemon.close({ deadlineMs: 1000 });
    }
  });
});

/** closedPort returns a loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
