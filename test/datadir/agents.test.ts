import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { addAgent, AgentNameError, agentsDir, agentTokenPath, AGENTS_MAX, listAgentNames, listAgents, markAgentUsed, readAgentToken, assertAgentTokensPrivate, removeAgent, rotateAgent, validAgentName } from '../../src/datadir/agents.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { NOBODY_UID, runningAsRoot, tempHome } from './temp-home.js';

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

test('agent names: the pattern of the spec, and "owner" is reserved', () => {
  const valid = ['a', '0', 'shopper', 'shop-bot_2', 'a'.repeat(32), '9lives'];
  const invalid = ['', 'A', 'Shopper', '-a', '_a', 'a'.repeat(33), 'a b', 'a/b', '../x', 'a.b', 'owner', 'shöpper', 'sh\u043epper', 'a\n', '.', '..'];
  for (const name of valid) assert.equal(validAgentName(name), true, name);
  for (const name of invalid) assert.equal(validAgentName(name), false, JSON.stringify(name));
  assert.throws(() => agentTokenPath(tempHome(), '../daemon_token'), AgentNameError);
});

test('addAgent creates agents/ at 0700 and NAME.token at 0600 with a fresh 32-byte token, never overwriting', () => {
  const home = tempHome();
  const file = addAgent(home, 'shopper');
  assert.equal(file, path.join(home, 'agents', 'shopper.token'));
  assert.equal(statSync(agentsDir(home)).mode & 0o777, 0o700);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const token = readFileSync(file, 'utf8');
  assert.match(token, TOKEN);
  assert.equal(Buffer.from(token, 'base64url').length, 32);
  assert.equal(readAgentToken(home, 'shopper'), token);
  assert.throws(() => addAgent(home, 'shopper'), (error: unknown) => error instanceof DataDirError && error.code === 'exists');
  assert.equal(readFileSync(file, 'utf8'), token, 'the existing token is untouched');
  assert.notEqual(readAgentToken(home, 'shopper'), readAgentToken(home, addAgentName(home, 'other')));
});

function addAgentName(home: string, name: string): string {
  addAgent(home, name);
  return name;
}

test('rotateAgent replaces the token atomically; removeAgent deletes token and record', () => {
  const home = tempHome();
  addAgent(home, 'shopper');
  const before = readAgentToken(home, 'shopper');
  rotateAgent(home, 'shopper');
  const after = readAgentToken(home, 'shopper');
  assert.match(after, TOKEN);
  assert.notEqual(after, before);
  assert.equal(statSync(agentTokenPath(home, 'shopper')).mode & 0o777, 0o600);
  removeAgent(home, 'shopper');
  assert.deepEqual(readdirSync(agentsDir(home)), []);
  assert.throws(() => readAgentToken(home, 'shopper'), (error: unknown) => error instanceof DataDirError && error.code === 'missing');
  assert.throws(() => removeAgent(home, 'shopper'), (error: unknown) => error instanceof DataDirError && error.code === 'missing');
  assert.throws(() => rotateAgent(home, 'ghost'), (error: unknown) => error instanceof DataDirError && error.code === 'missing');
});

test('listAgents shows names, creation and last use; never a token', () => {
  const home = tempHome();
  assert.deepEqual(listAgents(home), []);
  const created = new Date('2026-01-02T03:04:05.000Z');
  addAgent(home, 'zeta', created);
  addAgent(home, 'alpha', created);
  // The record's modification time is the creation until a use is recorded.
  utimesSync(path.join(agentsDir(home), 'zeta.json'), created, created);
  utimesSync(path.join(agentsDir(home), 'alpha.json'), created, created);
  const used = new Date('2026-01-03T00:00:00.000Z');
  markAgentUsed(home, 'alpha', used);
  const agents = listAgents(home);
  assert.deepEqual(agents.map((a) => a.name), ['alpha', 'zeta']);
  assert.equal(agents[0]?.createdAt.toISOString(), created.toISOString());
  assert.equal(agents[0]?.lastUsedAt?.toISOString(), used.toISOString());
  assert.equal(agents[1]?.lastUsedAt, null);
  const text = JSON.stringify(agents);
  for (const name of ['alpha', 'zeta']) assert.equal(text.includes(readAgentToken(home, name)), false);
});

test('files that are not agents are ignored by the listing', () => {
  const home = tempHome();
  addAgent(home, 'shopper');
  writeFileSync(path.join(agentsDir(home), 'Bad Name.token'), 'x', { mode: 0o600 });
  writeFileSync(path.join(agentsDir(home), 'notes.txt'), 'x', { mode: 0o600 });
  assert.deepEqual(listAgentNames(home), ['shopper']);
});

test('unsafe agent files are refused like daemon_token: loose mode, symbolic link, another owner, wrong type', () => {
  const home = tempHome();
  const file = addAgent(home, 'shopper');
  chmodSync(file, 0o644);
  assert.throws(() => readAgentToken(home, 'shopper'), (error: unknown) => error instanceof DataDirError && error.code === 'insecure_permissions' && error.fix === `chmod 600 ${file}`);
  chmodSync(file, 0o600);
  const target = path.join(home, 'elsewhere');
  writeFileSync(target, readFileSync(file), { mode: 0o600 });
  unlinkSync(file);
  symlinkSync(target, file);
  assert.throws(() => readAgentToken(home, 'shopper'), (error: unknown) => error instanceof DataDirError && error.code === 'symlink');
  unlinkSync(file);
  mkdirSync(file, { mode: 0o700 });
  assert.throws(() => readAgentToken(home, 'shopper'), (error: unknown) => error instanceof DataDirError && error.code === 'wrong_type');
  rmSync(file, { recursive: true });
  writeFileSync(file, 'not a token', { mode: 0o600 });
  assert.throws(() => readAgentToken(home, 'shopper'), (error: unknown) => error instanceof DataDirError && error.code === 'corrupt' && !error.message.includes('not a token'));
  if (runningAsRoot()) {
    writeFileSync(file, readFileSync(target), { mode: 0o600 });
    chownSync(file, NOBODY_UID, NOBODY_UID);
    assert.throws(() => readAgentToken(home, 'shopper'), (error: unknown) => error instanceof DataDirError && error.code === 'wrong_owner');
  }
});

test('a loose or linked agents/ folder is refused before anything is written into it', () => {
  const home = tempHome();
  addAgent(home, 'shopper');
  chmodSync(agentsDir(home), 0o755);
  assert.throws(() => addAgent(home, 'other'), (error: unknown) => error instanceof DataDirError && error.code === 'insecure_permissions' && error.fix === `chmod 700 ${agentsDir(home)}`);
  assert.throws(() => listAgents(home), (error: unknown) => error instanceof DataDirError && error.code === 'insecure_permissions');
  assert.equal(listAgentNames(home).includes('other'), false);

  const other = tempHome();
  const elsewhere = path.join(other, 'outside');
  mkdirSync(elsewhere, { mode: 0o700 });
  symlinkSync(elsewhere, agentsDir(other));
  assert.throws(() => addAgent(other, 'shopper'), (error: unknown) => error instanceof DataDirError && error.code === 'symlink');
  assert.deepEqual(readdirSync(elsewhere), []);
});

test(`at most ${AGENTS_MAX} agents`, () => {
  const home = tempHome();
  for (let i = 0; i < AGENTS_MAX; i++) addAgent(home, `agent${i}`);
  assert.throws(() => addAgent(home, 'onemore'), (error: unknown) => error instanceof DataDirError && error.code === 'invalid_value');
});

test('assertAgentTokensPrivate refuses an exposed token file, naming it and chmod 600, and leaves it as it was; a safe one is kept', () => {
  const home = tempHome();
  const safe = addAgent(home, 'a-safe');
  const exposed = addAgent(home, 'shopper');
  chmodSync(exposed, 0o644);
  const before = readFileSync(exposed, 'utf8');
  assert.throws(
    () => assertAgentTokensPrivate(home),
    (error: unknown) => error instanceof DataDirError && error.code === 'insecure_permissions' && error.file === exposed && error.fix === `chmod 600 ${exposed}`,
  );
  assert.equal(readFileSync(exposed, 'utf8'), before, 'not silently replaced');
  assert.equal(statSync(exposed).mode & 0o777, 0o644);
  chmodSync(exposed, 0o600);
  const safeBefore = readFileSync(safe, 'utf8');
  assertAgentTokensPrivate(home);
  assert.equal(readFileSync(exposed, 'utf8'), before, 'tokens persist until rotated');
  assert.equal(readFileSync(safe, 'utf8'), safeBefore);
});
