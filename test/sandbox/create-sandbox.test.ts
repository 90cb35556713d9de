import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSandbox } from '../../src/sandbox/create-sandbox.js';
import { SNAPSHOT_FILE } from '../../src/sandbox/ledger/snapshot.js';
import { enrollDevice, startSandbox } from '../support/sandbox-client.js';

test('createSandbox: the sweeper expires windows without any request reading them', async () => {
  const run = await startSandbox({ sweepIntervalMs: 10 });
  try {
    const device = await enrollDevice(run.admin);
    const { card_id } = await run.admin.card(device.accountId, '10.00');
    const created = (await device.authorize({ card_id, amount: '4.00', not_after: Math.floor(Date.now() / 1000) + 90 })).body;
    await run.admin.request('POST', '/v1/sandbox/clock', { advance_seconds: 91 });
    const deadline = Date.now() + 10_000;
    // Only the in-process state is read here: no request runs the sweep on its way in.
    while (run.sandbox.state().authorizations.get(created.policy_id)?.status === 'active' && Date.now() < deadline) await sleep(10);
    assert.equal(run.sandbox.state().authorizations.get(created.policy_id)?.status, 'expired');
    assert.equal(run.sandbox.state().cards.get(card_id)?.held, 0);
  } finally {
    await run.stop();
  }
});

test('createSandbox: keeps its admin key across restarts and drops a torn journal tail', async () => {
  const run = await startSandbox();
  const adminKey = run.sandbox.adminKey;
  assert.match(adminKey, /^[A-Za-z0-9_-]{43}$/);
  const device = await enrollDevice(run.admin);
  await run.admin.card(device.accountId, '10.00');
  appendFileSync(run.sandbox.journalPath, Buffer.from('LTJ1\x00\x00\x00\x10partial'));
  const restarted = await run.restart();
  try {
    assert.equal(restarted.sandbox.adminKey, adminKey);
    assert.equal(restarted.sandbox.droppedJournalBytes, 15);
    assert.equal((await device.request('GET', '/v1/cards')).body.cards.length, 1);
  } finally {
    await restarted.stop();
  }
});

test('createSandbox: refuses a data directory others can read', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'latch-sandbox-perm-'));
  try {
    const dataDir = path.join(root, 'sandbox');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    await assert.rejects(createSandbox({ dataDir, port: 0 }), /too open/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('createSandbox: writes a snapshot on its own once enough records follow the last, and starts from it', async () => {
  const run = await startSandbox({ sweepIntervalMs: 10, snapshotEveryRecords: 5 });
  const device = await enrollDevice(run.admin);
  const { card_id } = await run.admin.card(device.accountId, '10.00');
  for (let n = 0; n < 5; n += 1) await run.admin.request('POST', '/v1/sandbox/charges', { card_id, merchant: 'shop.example.com', amount: '1.00' });
  const snapshot = path.join(run.dataDir, SNAPSHOT_FILE);
  const deadline = Date.now() + 10_000;
  while (!existsSync(snapshot) && Date.now() < deadline) await sleep(10);
  assert.equal(existsSync(snapshot), true);
  await run.admin.request('POST', '/v1/sandbox/charges', { card_id, merchant: 'shop.example.com', amount: '1.00' });
  const seq = run.sandbox.state().seq;
  const restarted = await run.restart();
  try {
    assert.equal(restarted.sandbox.ledgerStart.from, 'snapshot');
    assert.ok(restarted.sandbox.ledgerStart.replayedRecords >= 1);
    assert.equal(restarted.sandbox.state().seq, seq);
    const listed = (await device.request('GET', `/v1/transactions?card_id=${card_id}&limit=100`)).body;
    assert.equal(listed.transactions.length, 6);
  } finally {
    await restarted.stop();
  }
});

test('createSandbox: a snapshot that cannot be written is refused, leaves no temporary and loses nothing', async () => {
  const run = await startSandbox({ snapshotEveryRecords: Number.POSITIVE_INFINITY });
  try {
    const device = await enrollDevice(run.admin);
    await run.admin.card(device.accountId, '10.00');
    // A directory where the snapshot's file must go: the rename over it fails.
    mkdirSync(path.join(run.dataDir, SNAPSHOT_FILE));
    await assert.rejects(run.sandbox.writeSnapshot());
    assert.equal(readdirSync(run.dataDir).filter((name) => name.endsWith('.tmp')).length, 0);
    assert.equal((await device.request('GET', '/v1/cards')).body.cards.length, 1);
  } finally {
    await run.stop();
  }
});
