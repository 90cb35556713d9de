/**
 * The audit views show what people look for (issue 37 item 6, docs/decisions.md §31.6): the
 * `latch audit` table has a merchant column, a signed web request names its host (and a proxied
 * one its path), a refusal says its code; the console's Activity lines say the same; `latch audit
 * --follow` prints each new line as it is written, until Ctrl-C.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { runCli } from '../../src/cli/main.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { activityLine } from '../../src/console/activity.js';
import { sharedAuditWriter } from '../../src/datadir/audit-writer.js';
import { REPO_ROOT } from '../support/paths.js';
import { tempHome } from '../datadir/temp-home.js';
import { captureIo } from './cli-io.js';

const LINES = [
  { operation: 'sign_card_policy_window', policy_id: 'pw_books1', card_id: 'card_c1', merchant: 'books.example.com', amount: '12.50', currency: 'USD', agent: 'shopper', user_agent: 'agent/1' },
  { operation: 'web_bot_auth_signed', agent: 'shopper', method: 'GET', host: 'shop.example.com', tag: 'web-bot-auth', created: 1 },
  { operation: 'authorization_outcome', policy_id: 'pw_books1', outcome: 'refused', code: 'insufficient_funds', agent: 'shopper' },
  { operation: 'sign_request', method: 'POST', path: '/v1/wallet/allocate', agent: 'owner' },
];

async function latch(home: string, argv: string[]) {
  const io = captureIo({ LATCH_HOME: home });
  const code = await runCli(argv, io);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

async function homeWithLines(): Promise<string> {
  const home = tempHome();
  const writer = sharedAuditWriter(home);
  for (const line of LINES) await writer.append(line);
  return home;
}

test('latch audit: a MERCHANT column, the host of a Web Bot Auth line, the code of a refusal, the path of a signed request', async () => {
  const home = await homeWithLines();
  const run = await latch(home, ['audit', '--reads']);
  assert.equal(run.code, EXIT.ok, run.stderr);
  const [header, ...rows] = run.stdout.trimEnd().split('\n');
  assert.match(header ?? '', /^SEQ\s+TIME\s+OPERATION\s+AGENT\s+MERCHANT\s+AMOUNT\s+DETAIL\s+USER-AGENT$/);
  const merchantAt = (header ?? '').indexOf('MERCHANT');
  assert.equal(rows[0]?.slice(merchantAt).startsWith('books.example.com'), true, rows[0]);
  assert.equal(rows[1]?.slice(merchantAt).startsWith('shop.example.com'), true, `the host stands as the merchant: ${rows[1]}`);
  assert.match(rows[1] ?? '', /GET shop\.example\.com/);
  assert.match(rows[2] ?? '', /pw_books1 refused \(insufficient_funds\)/);
  assert.match(rows[3] ?? '', /POST \/v1\/wallet\/allocate/);
});

test('the console Activity lines: a signed request with its host or path, a refusal with its code', () => {
  const words = LINES.map((line, index) => activityLine(JSON.stringify({ seq: index + 1, prev: '0'.repeat(64), time: '2026-11-27T10:00:00Z', ...line }))?.words);
  assert.equal(words[0], 'authorized 12.50 USD at books.example.com (pw_books1)');
  assert.equal(words[1], 'signed a web request as itself: GET shop.example.com');
  assert.equal(words[2], 'authorization outcome: refused (insufficient_funds) (pw_books1)');
  assert.equal(words[3], 'sent a signed request: POST /v1/wallet/allocate');
});

test('latch audit --follow prints the latest lines, then each new one as it is written, and stops at SIGINT with exit 0', async () => {
  const home = await homeWithLines();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'audit', '--follow', '--limit', '1'], { cwd: REPO_ROOT, env: { ...process.env, LATCH_HOME: home } });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = async (pattern: RegExp, what: string): Promise<void> => {
    const deadline = Date.now() + 20_000;
    while (!pattern.test(out)) {
      if (Date.now() > deadline) assert.fail(`audit --follow did not print ${what} within 20 s:\n${out}\n${err}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  try {
    await waitFor(/POST \/v1\/wallet\/allocate/, 'the latest line');
    assert.doesNotMatch(out, /insufficient_funds/, '--limit 1 shows one of the latest lines');
    await sharedAuditWriter(home).append({ operation: 'sign_revocation', policy_id: 'pw_books1', agent: 'owner' });
    await waitFor(/sign_revocation/, 'the line written after it started');
    child.kill('SIGINT');
    assert.equal(await exited, 0, err);
    assert.equal(out.split('sign_revocation').length - 1, 1, 'the new line once');
  } finally {
    child.kill('SIGKILL');
  }
});
