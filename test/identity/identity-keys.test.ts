/**
 * The identity key files (docs/decisions.md §23.1): private like tokens, checked at every read and
 * at the daemon's start, never handed to a new agent of a removed agent's name.
 */
import assert from 'node:assert/strict';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { addAgent, agentFiles, removeAgent } from '../../src/datadir/agents.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { assertDataDirSecure } from '../../src/datadir/permissions.js';
import { ensureIdentityKey, identityKeyPath, readIdentityKey } from '../../src/identity/identity-keys.js';
import { tempHome } from '../datadir/temp-home.js';

test('a key file others can read is refused at use and at the start, naming the file, never its text', () => {
  const home = tempHome();
  addAgent(home, 'shopper');
  const file = identityKeyPath(home, 'shopper');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.ok(agentFiles(home).includes(file), 'the start checks it');
  chmodSync(file, 0o644);
  assert.throws(() => readIdentityKey(home, 'shopper'), (error: unknown) => error instanceof DataDirError && error.file === file);
  assert.throws(() => assertDataDirSecure(home, agentFiles(home)), (error: unknown) => error instanceof DataDirError && error.file === file);
});

test('a file that holds no key is refused as corrupt, without echoing it', () => {
  const home = tempHome();
  addAgent(home, 'shopper');
  const file = identityKeyPath(home, 'shopper');
  writeFileSync(file, 'not-a-key-zq81\n', { mode: 0o600 });
  assert.throws(() => readIdentityKey(home, 'shopper'), (error: unknown) => error instanceof DataDirError && error.code === 'corrupt' && !error.message.includes('zq81'));
});

test('no key is made for an agent that does not exist, and a stale key is not inherited by a new agent of that name', () => {
  const home = tempHome();
  assert.throws(() => ensureIdentityKey(home, 'ghost'), (error: unknown) => error instanceof DataDirError && error.code === 'missing');
  assert.throws(() => statSync(identityKeyPath(home, 'ghost')), /ENOENT/);
  addAgent(home, 'shopper');
  const first = ensureIdentityKey(home, 'shopper').keyId;
  removeAgent(home, 'shopper');
  // A half-done removal of an earlier version could leave the key behind; a new agent never takes it.
  writeFileSync(identityKeyPath(home, 'shopper'), 'A'.repeat(43) + '\n', { mode: 0o600 });
  addAgent(home, 'shopper');
  const second = ensureIdentityKey(home, 'shopper').keyId;
  assert.notEqual(second, first);
  assert.notEqual(second, ensureIdentityKey(tempHomeWithKey('A'.repeat(43)), 'owner').keyId);
});

/** tempHomeWithKey is a data directory whose owner key is the given text (to name a key's id). */
function tempHomeWithKey(text: string): string {
  const home = tempHome();
  ensureIdentityKey(home, 'owner');
  writeFileSync(identityKeyPath(home, 'owner'), `${text}\n`, { mode: 0o600 });
  return home;
}
