/**
 * A broken signing precondition stops the real daemon (docs/decisions.md §42): a daemon child whose
 * ledger is planted to disagree with the window being signed (planted-daemon.ts) is asked for one
 * authorization; it must exit with status 70 after exactly one `invariant_broken` line naming
 * signing_purpose_entered and the policy id, carrying no secret, and answer nothing. Before §42
 * the signer threw, the request was answered 500 and the daemon went on.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { readToken } from '../../src/datadir/token.js';
import { INVARIANT_EXIT_CODE } from '../../src/errors/invariant.js';
import { JsonClient, startStack, type Stack } from '../support/stack.js';
import { killAll, startChild, waitForLine } from '../adversarial/child-process.js';

const STARTUP_MS = 30_000;
const EXIT_MS = 20_000;

let stack: Stack;
before(async () => {
  stack = await startStack();
  await stack.daemon.close({ deadlineMs: 1_000 });
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify({ v: 1, default: 'allow', rules: [] }), { mode: 0o600 });
});
after(async () => {
  await killAll();
  await stack.close();
});

test('a window whose ledger entry disagrees with it stops the daemon: status 70, one invariant_broken line, no secret', { timeout: 90_000 }, async () => {
  const child = startChild('test/signer/planted-daemon.ts', [], { LATCH_HOME: stack.home });
  const line = await waitForLine(child, (text) => text.includes('"daemon_listening"'), STARTUP_MS);
  const owner = new JsonClient(`http://127.0.0.1:${(JSON.parse(line) as { port_a: number }).port_a}`, () => readToken(stack.home));
  // An ordinary request first: the daemon signs what the ledger holds.
  const fine = await owner.post('/authorize', { card_id: stack.cards[0].card_id, amount: '1.00', merchant_name: 'shop.example' });
  assert.equal(fine.status, 200, fine.text);

  const answered = await owner.post('/authorize', { card_id: stack.cards[0].card_id, amount: '1.00', merchant_name: 'planted.example' }).then((answer) => answer.status, () => 'no answer');
  const status = await Promise.race([child.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), EXIT_MS))]);
  assert.equal(status, INVARIANT_EXIT_CODE, `the daemon stopped with 70 (request: ${answered}); stderr: ${child.stderr().slice(-1500)}`);
  assert.equal(answered, 'no answer', 'nothing was answered on broken state');

  const stderr = child.stderr();
  const broken = stderr.split('\n').filter((text) => text.includes('invariant_broken'));
  assert.equal(broken.length, 1, stderr.slice(-1500));
  const fields = JSON.parse(broken[0] as string) as Record<string, string>;
  assert.deepEqual([fields['level'], fields['event'], fields['invariant']], ['fatal', 'invariant_broken', 'signing_purpose_entered']);
  assert.match(fields['detail'] ?? '', /^window pw_[\w-]+: amount differs from the ledger entry$/);
  // No secret: the owner token, the device key's secret (hex or base64url) appear nowhere in what it wrote.
  const keyFile = JSON.parse(readFileSync(path.join(stack.home, 'device.key'), 'utf8')) as { secret_key?: string };
  const secrets = [readToken(stack.home), keyFile.secret_key, keyFile.secret_key === undefined ? undefined : Buffer.from(keyFile.secret_key, 'base64url').toString('hex')];
  for (const secret of secrets) if (secret !== undefined) assert.ok(!stderr.includes(secret) && !child.lines.join('\n').includes(secret), 'no secret in the output');
  assert.ok(keyFile.secret_key !== undefined, 'the stack keeps a raw key, so the check above looked for it');
});
