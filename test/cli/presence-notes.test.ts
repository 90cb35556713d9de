/**
 * Where the owner passphrase does not apply, the CLI says so where it happens (issue 37 item 3,
 * docs/decisions.md §31.3): in the same-user setup `latch resume` and `latch agent add` change the
 * files themselves, so with a passphrase set they say the passphrase guards the API, not the files;
 * `latch approvals passphrase set` says what it guards and what it does not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { runCli } from '../../src/cli/main.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { DIRECT_EDIT_NOTE } from '../../src/cli/owner-session.js';
import { setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { pauseSigning } from '../../src/datadir/pause.js';
import { tempHome } from '../datadir/temp-home.js';
import { captureIo } from './cli-io.js';

async function latch(home: string, argv: string[], stdin?: string) {
  const io = captureIo({ LATCH_HOME: home });
  if (stdin !== undefined) {
    const pipe = new PassThrough();
    pipe.end(stdin);
    Object.assign(io, { stdin: pipe });
  }
  const code = await runCli(argv, io);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

test('resume and agent add in the same-user setup with a passphrase: one line says the file was changed directly, the passphrase guards the API', async () => {
  const home = tempHome();
  setApprovalPassphrase(home, 'correct horse battery staple');
  pauseSigning(home, undefined);
  const resumed = await latch(home, ['resume']);
  assert.equal(resumed.code, EXIT.ok, resumed.stderr);
  assert.equal(resumed.stdout, `Signing resumed.\n${DIRECT_EDIT_NOTE}\n`);
  assert.match(DIRECT_EDIT_NOTE, /^Changed the file directly; the passphrase guards the API, not your files\..*separate-user setup/);

  const added = await latch(home, ['agent', 'add', 'shopper']);
  assert.equal(added.code, EXIT.ok, added.stderr);
  assert.ok(added.stdout.trimEnd().endsWith(DIRECT_EDIT_NOTE), added.stdout);
  const json = JSON.parse((await latch(home, ['agent', 'add', 'helper', '--json'])).stdout);
  assert.equal(json.note, DIRECT_EDIT_NOTE);
});

test('without a passphrase there is nothing to bypass, and nothing is said', async () => {
  const home = tempHome();
  pauseSigning(home, undefined);
  assert.equal((await latch(home, ['resume'])).stdout, 'Signing resumed.\n');
  assert.doesNotMatch((await latch(home, ['agent', 'add', 'shopper'])).stdout, /passphrase/);
});

test('passphrase set says what it guards (the API) and what it does not (files a program running as you can edit)', async () => {
  const home = tempHome();
  const set = await latch(home, ['approvals', 'passphrase', 'set', '--passphrase-stdin'], 'correct horse battery staple\n');
  assert.equal(set.code, EXIT.ok, set.stderr);
  assert.match(set.stdout, /It guards the daemon's API: approving, resuming, changing the policy, adding agents/);
  assert.match(set.stdout, /It does not guard your files: .*separate-user setup/);
});
