import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, statSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../../src/cli/main.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { agentsDir, agentTokenPath, readAgentToken } from '../../src/datadir/agents.js';
import { tempHome } from '../datadir/temp-home.js';
import { captureIo } from './cli-io.js';

async function latch(home: string, ...argv: string[]) {
  const io = captureIo({ LATCH_HOME: home });
  const code = await runCli(argv, io);
  return { code, stdout: io.stdout.text, stderr: io.stderr.text };
}

test('latch agent add prints the token file, never the token, and refuses a second add', async () => {
  const home = tempHome();
  const added = await latch(home, 'agent', 'add', 'shopper');
  assert.equal(added.code, EXIT.ok, added.stderr);
  const file = path.join(home, 'agents', 'shopper.token');
  assert.match(added.stdout, new RegExp(`Its token is in ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.match(added.stdout, /latch mcp --agent shopper/);
  const token = readAgentToken(home, 'shopper');
  assert.equal(added.stdout.includes(token) || added.stderr.includes(token), false);
  assert.equal(statSync(file).mode & 0o777, 0o600);

  const again = await latch(home, 'agent', 'add', 'shopper');
  assert.equal(again.code, EXIT.dataDir);
  assert.match(again.stderr, /already exists/);
  assert.equal(readAgentToken(home, 'shopper'), token);
});

test('latch agent add refuses bad names and missing names as usage errors', async () => {
  const home = tempHome();
  for (const argv of [['agent', 'add'], ['agent', 'add', 'Bad'], ['agent', 'add', 'owner'], ['agent', 'add', '../x'], ['agent', 'add', 'a', 'b'], ['agent', 'add', '--json']]) {
    const run = await latch(home, ...argv);
    assert.equal(run.code, EXIT.usage, argv.join(' '));
    assert.match(run.stderr, /Run 'latch agent add --help'/);
  }
});

test('latch agent list shows name, created and last use in a table and as JSON', async () => {
  const home = tempHome();
  const empty = await latch(home, 'agent', 'list');
  assert.equal(empty.code, EXIT.ok);
  assert.match(empty.stdout, /No agents yet/);
  await latch(home, 'agent', 'add', 'shopper');
  await latch(home, 'agent', 'add', 'travel');
  const table = await latch(home, 'agent', 'list');
  assert.equal(table.code, EXIT.ok);
  const lines = table.stdout.trim().split('\n');
  assert.match(lines[0] as string, /^NAME\s+CREATED\s+LAST USED$/);
  assert.match(lines[1] as string, /^shopper\s+\d{4}-\d\d-\d\d \d\d:\d\dZ\s+never$/);
  assert.match(lines[2] as string, /^travel\s/);
  const json = await latch(home, 'agent', 'list', '--json');
  const parsed = JSON.parse(json.stdout) as { agents: Array<Record<string, unknown>> };
  assert.deepEqual(parsed.agents.map((a) => Object.keys(a).sort()), [['created_at', 'last_used_at', 'name'], ['created_at', 'last_used_at', 'name']]);
  for (const name of ['shopper', 'travel']) assert.equal(json.stdout.includes(readAgentToken(home, name)), false);
});

test('latch agent rotate and remove', async () => {
  const home = tempHome();
  await latch(home, 'agent', 'add', 'shopper');
  const before = readAgentToken(home, 'shopper');
  const rotated = await latch(home, 'agent', 'rotate', 'shopper');
  assert.equal(rotated.code, EXIT.ok, rotated.stderr);
  assert.notEqual(readAgentToken(home, 'shopper'), before);
  assert.equal(rotated.stdout.includes(readAgentToken(home, 'shopper')), false);
  const removed = await latch(home, 'agent', 'remove', 'shopper');
  assert.equal(removed.code, EXIT.ok);
  assert.match(removed.stdout, /Removed agent shopper/);
  const gone = await latch(home, 'agent', 'remove', 'shopper');
  assert.equal(gone.code, EXIT.dataDir);
  assert.match(gone.stderr, /There is no agent named "shopper"/);
  const ghost = await latch(home, 'agent', 'rotate', 'ghost');
  assert.equal(ghost.code, EXIT.dataDir);
});

test('agent commands refuse an unsafe data directory or agents folder, naming the fix', async () => {
  const home = tempHome();
  await latch(home, 'agent', 'add', 'shopper');
  chmodSync(agentsDir(home), 0o750);
  const listed = await latch(home, 'agent', 'list');
  assert.equal(listed.code, EXIT.dataDir);
  assert.match(listed.stderr, new RegExp(`chmod 700 ${agentsDir(home)}`));
  chmodSync(agentsDir(home), 0o700);
  chmodSync(agentTokenPath(home, 'shopper'), 0o604);
  const rotated = await latch(home, 'agent', 'rotate', 'shopper');
  assert.equal(rotated.code, EXIT.dataDir);
  assert.match(rotated.stderr, /chmod 600/);
  chmodSync(home, 0o770);
  const added = await latch(home, 'agent', 'add', 'other');
  assert.equal(added.code, EXIT.dataDir);
  assert.match(added.stderr, /chmod 700/);
});

test('latch agent add makes an identity key; rotate --identity replaces only it; remove destroys it', async () => {
  const home = tempHome();
  const added = await latch(home, 'agent', 'add', 'shopper');
  const keyFile = path.join(home, 'agents', 'shopper.identity');
  assert.equal(statSync(keyFile).mode & 0o777, 0o600);
  const shown = await latch(home, 'identity', 'show', 'shopper');
  assert.equal(shown.code, EXIT.ok, shown.stderr);
  const first = JSON.parse(shown.stdout) as { name: string; key_id: string; jwk: Record<string, string> };
  // What README says agent add prints (issue 44 item 8): the identity key's id, as identity show has it.
  assert.ok(added.stdout.includes(`Its Web Bot Auth identity key: ${first.key_id} (the public key: latch identity show shopper)`), added.stdout);
  const json = await latch(home, 'agent', 'add', 'helper', '--json');
  assert.match((JSON.parse(json.stdout) as { identity_key_id: string }).identity_key_id, /^[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(Object.keys(first.jwk).sort(), ['crv', 'kid', 'kty', 'use', 'x'], 'never the secret key');
  assert.equal(first.jwk['kid'], first.key_id);
  const token = readAgentToken(home, 'shopper');
  const rotated = await latch(home, 'agent', 'rotate', 'shopper', '--identity');
  assert.equal(rotated.code, EXIT.ok, rotated.stderr);
  const second = JSON.parse((await latch(home, 'identity', 'show', 'shopper')).stdout) as { key_id: string };
  assert.notEqual(second.key_id, first.key_id);
  assert.match(rotated.stdout, new RegExp(second.key_id));
  assert.equal(readAgentToken(home, 'shopper'), token, '--identity leaves the token alone');
  assert.equal((await latch(home, 'agent', 'remove', 'shopper')).code, EXIT.ok);
  assert.throws(() => statSync(keyFile), /ENOENT/);
  assert.equal((await latch(home, 'identity', 'show', 'shopper')).code, EXIT.dataDir, 'a removed agent has no key to show');
  assert.equal((await latch(home, 'agent', 'rotate', 'ghost', '--identity')).code, EXIT.dataDir);
  assert.equal((await latch(home, 'identity', 'show', 'Bad')).code, EXIT.usage);
});

test('latch identity directory lists the owner and every agent, kid = thumbprint, to stdout or --out', async () => {
  const home = tempHome();
  await latch(home, 'agent', 'add', 'shopper');
  await latch(home, 'agent', 'add', 'travel');
  const printed = await latch(home, 'identity', 'directory');
  assert.equal(printed.code, EXIT.ok, printed.stderr);
  const { keys } = JSON.parse(printed.stdout) as { keys: Array<{ kid: string; x: string }> };
  assert.equal(keys.length, 3);
  const { keyIdOf } = await import('../../src/crypto/jwk.js');
  for (const key of keys) assert.equal(keyIdOf(new Uint8Array(Buffer.from(key.x, 'base64url'))), key.kid);
  const owner = JSON.parse((await latch(home, 'identity', 'show', 'owner')).stdout) as { key_id: string };
  assert.equal(keys[0]?.kid, owner.key_id, 'the owner first');
  const out = path.join(home, 'published.json');
  const written = await latch(home, 'identity', 'directory', '--out', out);
  assert.equal(written.code, EXIT.ok, written.stderr);
  const { readFileSync } = await import('node:fs');
  assert.equal(readFileSync(out, 'utf8'), printed.stdout.trimEnd());
  assert.doesNotMatch(readFileSync(out, 'utf8'), /"d"/, 'no private member');
});
