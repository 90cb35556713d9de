import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../../src/cli/main.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { startSandbox, type RunningSandbox } from '../support/sandbox-client.js';
import { tempHome } from '../datadir/temp-home.js';
import { captureIo } from './cli-io.js';

let run: RunningSandbox;
const home = tempHome();
const empty = tempHome();
before(async () => {
  run = await startSandbox();
  writeFileSync(path.join(home, 'sandbox.json'), JSON.stringify({ cloud_url: run.sandbox.url, admin_key_path: run.sandbox.adminKeyPath }), { mode: 0o600 });
});
after(() => run.stop());

async function latch(env: NodeJS.ProcessEnv, ...argv: string[]) {
  const io = captureIo(env);
  const code = await runCli(argv, io);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

test('latch sandbox setup-token prints a setup token with the exact latch setup command, never the admin key', async () => {
  const made = await latch({ LATCH_HOME: home }, 'sandbox', 'setup-token');
  assert.equal(made.code, EXIT.ok, made.stderr);
  assert.match(made.stdout, new RegExp(`^  latch setup --token \\S+ --cloud ${run.sandbox.url.replace(/[.]/g, '\\.')}$`, 'm'));
  assert.equal(made.stdout.includes(run.sandbox.adminKey), false);
  const json = await latch({ LATCH_HOME: home }, 'sandbox', 'setup-token', '--json');
  const answer = JSON.parse(json.stdout) as { setup_token: string; account_id: string };
  assert.match(answer.account_id, /^acct_/);
  // The token works: the sandbox knows it (a second setup-token is another account).
  assert.equal(typeof answer.setup_token, 'string');
});

test('latch sandbox clock shows, advances and resets the clock', async () => {
  const shown = await latch({ LATCH_HOME: home }, 'sandbox', 'clock', '--json');
  assert.equal(shown.code, EXIT.ok, shown.stderr);
  assert.equal((JSON.parse(shown.stdout) as { clock_offset_seconds: number }).clock_offset_seconds, 0);
  const advanced = await latch({ LATCH_HOME: home }, 'sandbox', 'clock', '--advance', '1900');
  assert.equal(advanced.code, EXIT.ok);
  assert.match(advanced.stdout, /^Sandbox clock: \S+ \(1900 s ahead of the real clock\)$/m);
  const reset = await latch({ LATCH_HOME: home }, 'sandbox', 'clock', '--reset');
  assert.match(reset.stdout, /\(0 s ahead of the real clock\)/);
  assert.equal((await latch({ LATCH_HOME: home }, 'sandbox', 'clock', '--advance', '5', '--reset')).code, EXIT.usage);
  assert.equal((await latch({ LATCH_HOME: home }, 'sandbox', 'clock', '--advance', '-5')).code, EXIT.usage);
});

test('without sandbox.json, or with the sandbox down, the commands say what to do', async () => {
  const missing = await latch({ LATCH_HOME: empty }, 'sandbox', 'clock');
  assert.equal(missing.code, EXIT.usage);
  assert.match(missing.stderr, /sandbox\.json does not exist: start the quick start first \(npm start\)/);
  const down = await latch({ LATCH_HOME: empty }, 'sandbox', 'clock', '--cloud', 'http://127.0.0.1:9', '--admin-key-file', run.sandbox.adminKeyPath);
  assert.equal(down.code, EXIT.daemonUnreachable);
  assert.match(down.stderr, /no sandbox answers at http:\/\/127\.0\.0\.1:9/);
  const remote = await latch({ LATCH_HOME: empty }, 'sandbox', 'clock', '--cloud', 'https://api.example.com', '--admin-key-file', run.sandbox.adminKeyPath);
  assert.equal(remote.code, EXIT.usage);
});

test('setup-token says a new account is empty and how a second device joins this one; --account makes a token for it', async () => {
  const enrolled = tempHome();
  writeFileSync(path.join(enrolled, 'sandbox.json'), JSON.stringify({ cloud_url: run.sandbox.url, admin_key_path: run.sandbox.adminKeyPath }), { mode: 0o600 });
  const first = JSON.parse((await latch({ LATCH_HOME: enrolled }, 'sandbox', 'setup-token', '--json')).stdout) as { account_id: string };
  writeFileSync(path.join(enrolled, 'config.json'), JSON.stringify({ account_id: first.account_id }), { mode: 0o600 });

  const fresh = await latch({ LATCH_HOME: enrolled }, 'sandbox', 'setup-token');
  assert.equal(fresh.code, EXIT.ok, fresh.stderr);
  assert.match(fresh.stdout, /This is a new, empty sandbox account: a device enrolled with it sees no cards and no funds\./);
  assert.match(fresh.stdout, new RegExp(`latch sandbox setup-token --account ${first.account_id}$`, 'm'));

  const joined = await latch({ LATCH_HOME: enrolled }, 'sandbox', 'setup-token', '--account', first.account_id, '--json');
  assert.equal(joined.code, EXIT.ok, joined.stderr);
  assert.equal((JSON.parse(joined.stdout) as { account_id: string }).account_id, first.account_id);
  const unknown = await latch({ LATCH_HOME: enrolled }, 'sandbox', 'setup-token', '--account', 'acct_nosuchaccount');
  assert.notEqual(unknown.code, EXIT.ok);
});
