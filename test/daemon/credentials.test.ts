import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { addAgent, agentsDir, agentTokenPath, readAgentToken, removeAgent, rotateAgent, listAgents } from '../../src/datadir/agents.js';
import { ensureToken } from '../../src/datadir/token.js';
import { createCredentials } from '../../src/daemon/credentials.js';
import { createLogger } from '../../src/log/logger.js';
import { tempHome } from '../datadir/temp-home.js';

function setup() {
  const home = tempHome();
  const owner = ensureToken(home);
  const lines: string[] = [];
  const logger = createLogger({ stream: { write: (line: string) => lines.push(line) } });
  let now = Date.parse('2026-05-01T00:00:00Z');
  const credentials = createCredentials({ home, ownerToken: () => owner, logger, nowMs: () => now });
  return { home, owner, lines, credentials, advance: (ms: number) => (now += ms) };
}

const names = (list: ReadonlyArray<{ principal: { kind: string; name?: string } }>) => list.map((c) => (c.principal.kind === 'owner' ? 'owner' : c.principal.name));

test('with no agents, only the owner token is accepted', () => {
  const { owner, credentials } = setup();
  assert.deepEqual(credentials.list(), [{ token: owner, principal: { kind: 'owner' } }]);
});

test('agents added, rotated and removed are seen at the next call, without a restart', () => {
  const { home, credentials } = setup();
  credentials.list();
  addAgent(home, 'shopper');
  const first = credentials.list();
  assert.deepEqual(names(first), ['owner', 'shopper']);
  assert.equal(first[1]?.token, readAgentToken(home, 'shopper'));
  rotateAgent(home, 'shopper');
  const rotated = credentials.list();
  assert.equal(rotated[1]?.token, readAgentToken(home, 'shopper'));
  assert.notEqual(rotated[1]?.token, first[1]?.token);
  addAgent(home, 'travel');
  assert.deepEqual(names(credentials.list()), ['owner', 'shopper', 'travel']);
  removeAgent(home, 'shopper');
  assert.deepEqual(names(credentials.list()), ['owner', 'travel']);
});

test('an unsafe agent file takes only that agent out, and the log names the file and fix but no token', () => {
  const { home, credentials, lines, owner } = setup();
  addAgent(home, 'shopper');
  addAgent(home, 'travel');
  const travelToken = readAgentToken(home, 'travel');
  chmodSync(agentTokenPath(home, 'travel'), 0o640);
  assert.deepEqual(names(credentials.list()), ['owner', 'shopper']);
  const refusal = lines.map((line) => JSON.parse(line)).find((line) => line.event === 'agent_token_refused');
  assert.equal(refusal?.file, agentTokenPath(home, 'travel'));
  assert.equal(refusal?.fix, `chmod 600 ${agentTokenPath(home, 'travel')}`);
  for (const line of lines) {
    assert.equal(line.includes(travelToken), false);
    assert.equal(line.includes(owner), false);
  }
  chmodSync(agentTokenPath(home, 'travel'), 0o600);
  assert.deepEqual(names(credentials.list()), ['owner', 'shopper', 'travel']);
});

test('a loose agents/ folder takes every agent out; the owner keeps working', () => {
  const { home, credentials } = setup();
  addAgent(home, 'shopper');
  assert.deepEqual(names(credentials.list()), ['owner', 'shopper']);
  chmodSync(agentsDir(home), 0o777);
  assert.deepEqual(names(credentials.list()), ['owner']);
  chmodSync(agentsDir(home), 0o700);
  assert.deepEqual(names(credentials.list()), ['owner', 'shopper']);
});

test('a corrupt agent file is refused, never accepted as a token', () => {
  const { home, credentials } = setup();
  addAgent(home, 'shopper');
  writeFileSync(agentTokenPath(home, 'shopper'), 'x'.repeat(43) + '!', { mode: 0o600 });
  assert.deepEqual(names(credentials.list()), ['owner']);
});

test('noteUse records the last use at most once a minute; the owner is not recorded', () => {
  const { home, credentials, advance } = setup();
  const created = new Date('2026-04-01T00:00:00Z');
  addAgent(home, 'shopper', created);
  utimesSync(path.join(agentsDir(home), 'shopper.json'), created, created);
  credentials.noteUse({ kind: 'owner' });
  assert.equal(listAgents(home)[0]?.lastUsedAt, null);
  credentials.noteUse({ kind: 'agent', name: 'shopper' });
  assert.equal(listAgents(home)[0]?.lastUsedAt?.toISOString(), '2026-05-01T00:00:00.000Z');
  advance(30_000);
  credentials.noteUse({ kind: 'agent', name: 'shopper' });
  assert.equal(listAgents(home)[0]?.lastUsedAt?.toISOString(), '2026-05-01T00:00:00.000Z');
  advance(31_000);
  credentials.noteUse({ kind: 'agent', name: 'shopper' });
  assert.equal(listAgents(home)[0]?.lastUsedAt?.toISOString(), '2026-05-01T00:01:01.000Z');
  credentials.noteUse({ kind: 'agent', name: 'removed-meanwhile' });
});
