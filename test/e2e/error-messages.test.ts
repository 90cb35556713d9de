/**
 * One message per situation (issue 37 item 4, docs/decisions.md §31.4): the owner without a terminal
 * is told to use one or --passphrase-stdin, never an HTTP caller's remedy; clock_skew is a refusal
 * with "fix the clock", not an unexpected failure; every error body the daemon writes carries the
 * code's `remedy`, which README tells agents to show, and the sandbox cloud's do not.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { LatchClientError } from '../../src/client/client-errors.js';
import { exitCodeForClientError } from '../../src/cli/daemon-calls/exit-for-error.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { ERROR_TABLE } from '../../src/errors/error-table.js';
import { JsonClient, runLatch, startStack, type Stack } from '../support/stack.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

const latch = (args: string[]) => runLatch(args, { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}` });

test('every error body of A and B carries its code\'s remedy from the one table; the sandbox cloud\'s carry none', async () => {
  const anonymousA = new JsonClient(`http://127.0.0.1:${stack.portA}`, () => '');
  const anonymousB = new JsonClient(`http://127.0.0.1:${stack.portB}`, () => '');
  const answers = [
    await anonymousA.get('/cards'),
    await anonymousB.get('/cards'),
    await stack.a.get('/cards/card_doesnotexist'),
    await stack.a.post('/authorize', { card_id: stack.cards[0].card_id, amount: '12.5x', merchant_name: 'shop.example.com' }),
    await stack.a.get('/no-such-route'),
  ];
  for (const answer of answers) {
    const code = answer.body.error.code as keyof typeof ERROR_TABLE;
    assert.ok(Object.hasOwn(ERROR_TABLE, code), answer.text);
    assert.equal(answer.body.error.remedy, ERROR_TABLE[code].remedy, `${code}: ${answer.text}`);
  }
  const cloud = await new JsonClient(stack.sandbox.url, () => 'not-a-key').get('/v1/sandbox/accounts');
  assert.ok(cloud.status >= 400, cloud.text);
  assert.equal(cloud.body.error.remedy, undefined, 'the cloud API answers code and message only');
});

test('policy apply with a passphrase set and no terminal: "run it in a terminal or pass --passphrase-stdin", nothing about HTTP bodies', async () => {
  const file = path.join(stack.root, 'draft-policy.json');
  writeFileSync(file, '{"v":1,"default":"allow"}');
  setApprovalPassphrase(stack.home, 'correct horse battery staple');
  const run = await latch(['policy', 'apply', file]);
  assert.equal(run.code, EXIT.refused, run.stderr);
  assert.match(run.stderr, /needs the owner passphrase, and standard input is not a terminal/);
  assert.match(run.stderr, /What to do: Run it in a terminal, or pass --passphrase-stdin/);
  assert.doesNotMatch(run.stderr, /Agent not permitted|Latch-Owner-Passphrase|body|POST \/owner/);
});

test('clock_skew on the command line is a refusal (exit 7) whose remedy is to set the clock right', () => {
  const error = new LatchClientError({ code: 'clock_skew', status: 502 });
  assert.equal(exitCodeForClientError(error), EXIT.refused);
  assert.match(error.remedy, /clock right/);
});
