/**
 * kill -9 of the sandbox cloud (a child process) in the middle of a stream of authorizations,
 * charges and idempotent allocations, three times over. After each restart on the same journal:
 * every operation that was acknowledged (201/200) is there with the outcome that was answered,
 * each acknowledged allocation replays from its idempotency record without a second effect, and
 * the ledger balances — usdt = allocated + available, allocated = the cards' balances, nothing
 * negative, holds within balances — with the money accounted for: of the requests cut off by the
 * kill, each took effect at most once.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { AdminClient, enrollDevice, SignedClient } from '../support/sandbox-client.js';
import { killAll, killHard, startChild, waitForLine, type Child } from './child-process.js';
import { fuzzSeed, SeededRandom } from './seeded-random.js';
import { sleep } from './wire.js';

const ROUNDS = 3;
const STARTUP_MS = 30_000;

const root = mkdtempSync(path.join(tmpdir(), 'latch-crash-sandbox-'));
chmodSync(root, 0o700);
const dataDir = path.join(root, 'sandbox');
after(async () => {
  await killAll();
  rmSync(root, { recursive: true, force: true });
});

interface RunningChild {
  child: Child;
  url: string;
  admin: AdminClient;
}

async function startSandboxChild(): Promise<RunningChild> {
  const child = startChild('src/sandbox/main.ts', ['--port', '0', '--data-dir', dataDir], {});
  const line = await waitForLine(child, (text) => text.startsWith('{"cloud_url"'), STARTUP_MS);
  const { cloud_url: url, admin_key_path: keyPath } = JSON.parse(line) as { cloud_url: string; admin_key_path: string };
  return { child, url, admin: new AdminClient(url, readFileSync(keyPath, 'utf8').trim()) };
}

const cents = (text: unknown): number => Math.round(Number(text) * 100);

interface Acknowledged {
  windows: string[];
  charges: Array<{ id: string; status: string }>;
  allocations: Array<{ key: string; text: string }>;
}

interface Totals {
  usdt: number;
  allocated: number;
}

test(`kill -9 of the sandbox during charges and allocations, ${ROUNDS} times: every acknowledged operation survives and the ledger balances`, async () => {
  const random = new SeededRandom(fuzzSeed() ^ 0x5a5a);
  let sandbox = await startSandboxChild();
  const enrolled = await enrollDevice(sandbox.admin);
  const { card_id: cardId } = await sandbox.admin.card(enrolled.accountId, '1000.00', '100000.00');
  assert.equal((await sandbox.admin.request('POST', '/v1/sandbox/deposits', { account_id: enrolled.accountId, amount: '2000.00' })).status, 200);
  const start = totals(await sandbox.admin.state(), enrolled.accountId);
  const acked: Acknowledged = { windows: [], charges: [], allocations: [] };
  const cutOff = { allocations: 0, charges: 0 };
  let counter = 0;

  for (let round = 0; round < ROUNDS; round++) {
    const device = new SignedClient(sandbox.url, enrolled.key, enrolled.deviceId, enrolled.accountId);
    const admin = sandbox.admin;
    const charges = (async () => {
      for (;;) {
        const merchant = `crash-${counter++}.example`;
        let window;
        try {
          window = await device.authorize({ card_id: cardId, amount: '1.00', merchant });
        } catch {
          return;
        }
        assert.equal(window.status, 201, window.text);
        acked.windows.push(window.body.policy_id);
        try {
          const charge = await admin.charge(cardId, merchant, '1.00');
          assert.equal(charge.status, 200, charge.text);
          acked.charges.push({ id: charge.body.transaction.id, status: charge.body.transaction.status });
        } catch (error) {
          if (error instanceof assert.AssertionError) throw error;
          cutOff.charges += 1;
          return;
        }
      }
    })();
    const allocations = (async () => {
      for (let j = 0; ; j++) {
        const key = `alloc-${round}-${j}`;
        try {
          const answer = await device.request('POST', '/v1/wallet/allocate', { card_id: cardId, amount: '0.50' }, { idempotencyKey: key });
          assert.equal(answer.status, 200, answer.text);
          acked.allocations.push({ key, text: answer.text });
        } catch (error) {
          if (error instanceof assert.AssertionError) throw error;
          cutOff.allocations += 1;
          return;
        }
      }
    })();
    // Let both streams run for a while (at least a few operations), then pull the plug.
    await sleep(300 + random.int(900));
    await killHard(sandbox.child);
    await Promise.all([charges, allocations]);

    sandbox = await startSandboxChild();
    await verify(sandbox, enrolled, cardId, start, acked, cutOff);
  }
  assert.ok(acked.charges.length > ROUNDS && acked.allocations.length > ROUNDS, `the streams ran: ${acked.charges.length} charges, ${acked.allocations.length} allocations`);
  await killHard(sandbox.child);
});

function totals(state: Record<string, unknown>, accountId: string): Totals {
  const account = (state['accounts'] as Array<Record<string, string>>).find((a) => a['account_id'] === accountId);
  assert.ok(account !== undefined);
  return { usdt: cents(account['usdt']), allocated: cents(account['allocated']) };
}

async function verify(sandbox: RunningChild, enrolled: SignedClient, cardId: string, start: Totals, acked: Acknowledged, cutOff: { allocations: number; charges: number }): Promise<void> {
  const state = await sandbox.admin.state();
  const accountId = enrolled.accountId;
  const windows = new Set((state['authorizations'] as Array<Record<string, string>>).map((a) => a['policy_id']));
  const transactions = new Map((state['transactions'] as Array<Record<string, string>>).map((t) => [t['id'], t]));
  for (const policyId of acked.windows) assert.ok(windows.has(policyId), `acknowledged window ${policyId} is missing`);
  for (const charge of acked.charges) assert.equal(transactions.get(charge.id)?.['status'], charge.status, `acknowledged charge ${charge.id}`);

  // Ledger invariants.
  const account = (state['accounts'] as Array<Record<string, string>>).find((a) => a['account_id'] === accountId) as Record<string, string>;
  const [usdt, allocated, available] = [cents(account['usdt']), cents(account['allocated']), cents(account['available'])];
  assert.equal(usdt, allocated + available, 'usdt = allocated + available');
  const cards = (state['cards'] as Array<Record<string, string>>).filter((c) => c['account_id'] === accountId);
  assert.equal(allocated, cards.reduce((sum, c) => sum + cents(c['balance']), 0), 'allocated = the sum of card balances');
  for (const value of [usdt, allocated, available]) assert.ok(value >= 0, 'no negative wallet figure');
  for (const c of cards) assert.ok(cents(c['held']) >= 0 && cents(c['held']) <= cents(c['balance']), `card ${c['card_id']} holds within its balance`);

  // Money: usdt fell by exactly the settled charges; allocations account for the rest.
  const settled = [...transactions.values()].filter((t) => t['account_id'] === accountId && t['status'] === 'settled');
  const settledCents = settled.reduce((sum, t) => sum + cents(t['amount']), 0);
  assert.equal(usdt, start.usdt - settledCents, 'usdt = deposits − settled charges');
  const applied = (allocated - start.allocated + settledCents) / 50;
  assert.ok(Number.isInteger(applied), `allocations moved whole 0.50 steps (${applied})`);
  assert.ok(applied >= acked.allocations.length && applied <= acked.allocations.length + cutOff.allocations, `allocations applied ${applied}: acknowledged ${acked.allocations.length}, cut off ${cutOff.allocations}`);
  const approved = acked.charges.filter((c) => c.status === 'settled').length;
  assert.ok(settled.length >= approved && settled.length <= approved + cutOff.charges, `settled ${settled.length}: acknowledged ${approved}, cut off ${cutOff.charges}`);
  assert.ok(cards.every((c) => c['card_id'] !== cardId || cents(c['balance']) > 0));

  // Each acknowledged allocation is remembered: the same key and body replay, with no effect.
  const device = new SignedClient(sandbox.url, enrolled.key, enrolled.deviceId, enrolled.accountId);
  for (let i = 0; i < acked.allocations.length; i += 10) {
    await Promise.all(
      acked.allocations.slice(i, i + 10).map(async (allocation) => {
        const replayed = await device.request('POST', '/v1/wallet/allocate', { card_id: cardId, amount: '0.50' }, { idempotencyKey: allocation.key });
        assert.equal(replayed.status, 200);
        assert.equal(replayed.headers['idempotent-replayed'], 'true', `acknowledged allocation ${allocation.key} is remembered`);
        assert.equal(replayed.text, allocation.text);
      }),
    );
  }
  assert.equal(totals(await sandbox.admin.state(), accountId).allocated, allocated, 'the replays moved nothing');
}
