/**
 * The x402 guard end to end with x402's own packages (shared/spec/x402.md §5): the real daemon and
 * sandbox, an in-process resource server whose facilitator verifies each payment's EIP-712
 * signature with viem and counts settlements, and the agent's x402Client (ExactEvmScheme,
 * UptoEvmScheme) with a fixed test key, guarded by `latch/x402`.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { addAgent } from '../../src/datadir/agents.js';
import { latchX402Guard } from '../../src/x402-guard/index.js';
import { runLatch, startStack, type JsonClient, type Stack } from '../support/stack.js';
import { verifyEvidence } from '../../src/evidence/verify-pack.js';
import { loadDeviceKey } from '../../src/signer/device-key.js';
import { secretOf, signJwsCompactText } from '../support/raw-signing.js';
import { EVIDENCE_JWS_TYP } from '../../src/evidence/pack.js';
import { BASE_SEPOLIA, PAY_TO, startX402World, type X402World } from '../support/x402-world.js';

let stack: Stack;
let world: X402World;
let shopper: JsonClient;
let pathSeq = 0;

/** A fresh path of the resource server, priced as given. */
function priced(tag: Parameters<X402World['price']>[1]): string {
  const at = `/data-${++pathSeq}`;
  world.price(at, tag);
  return world.url(at);
}

function guarded(options: Parameters<typeof latchX402Guard>[0] = {}) {
  const client = world.client();
  latchX402Guard({ home: stack.home, agent: 'shopper', baseUrl: `http://127.0.0.1:${stack.portA}`, ...options }).install(client);
  return world.pay(client);
}

let policySeq = 0;
/** writePolicy puts policy in force; each write differs, so the daemon sees it change. */
function writePolicy(policy: Record<string, unknown>): void {
  const rules = [...((policy['rules'] as unknown[] | undefined) ?? []), { id: `seq-${++policySeq}`, merchants: [`seq-${policySeq}.example`], decision: 'deny' }];
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify({ ...policy, rules }), { mode: 0o600 });
}

async function x402Entries(): Promise<Array<Record<string, any>>> {
  const listed = await shopper.get('/authorizations?kind=x402&limit=100');
  assert.equal(listed.status, 200, listed.text);
  return listed.body.authorizations as Array<Record<string, any>>;
}

before(async () => {
  stack = await startStack();
  addAgent(stack.home, 'shopper');
  shopper = stack.agent('shopper');
  world = await startX402World();
});
after(async () => {
  await world.close();
  await stack.close();
});
beforeEach(() => {
  writePolicy({ v: 1, default: 'allow' });
});

describe('allow', () => {
  test('an exact payment the policy allows is authorized, bound, paid and counted at what settled', async () => {
    const url = priced({ scheme: 'exact', amount: '10000' });
    const settledBefore = world.settlements.length;
    const response = await guarded()(url);
    assert.equal(response.status, 200, await response.clone().text());
    assert.equal(world.settlements.length, settledBefore + 1);
    const entry = (await x402Entries()).find((candidate) => candidate['resource_url'] === url);
    assert.ok(entry, 'the payment is listed as an x402 authorization');
    assert.equal(entry['status'], 'settled');
    assert.equal(entry['amount'], '0.01');
    assert.equal(entry['settled_amount'], '0.01');
    assert.equal(entry['network'], BASE_SEPOLIA);
    assert.equal(entry['pay_to'], PAY_TO);
    assert.equal(entry['transaction'], world.settlements.at(-1)?.transaction);
    assert.match(String(entry['payload_sha256']), /^[0-9a-f]{64}$/);
    assert.match(String(entry['receipt']), /^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  test('an upto payment settled below its maximum counts what settled, rounded up', async () => {
    // 0.05 USDC at most; 0.001001 settles, which counts 0.01 USD (rounded up, never down).
    const url = priced({ scheme: 'upto', amount: '50000', settles: '1001' });
    const response = await guarded()(url);
    assert.equal(response.status, 200, await response.clone().text());
    const entry = (await x402Entries()).find((candidate) => candidate['resource_url'] === url);
    assert.equal(entry?.['status'], 'settled');
    assert.equal(entry?.['amount'], '0.05', 'reserved at its maximum');
    assert.equal(entry?.['settled_amount'], '0.01', 'counted at what settled, rounded up');
  });
});

describe('deny aborts before the signer or the facilitator is called', () => {
  const refusedCases: Array<{ name: string; code: string; arrange: () => Promise<{ url: string; options?: Parameters<typeof latchX402Guard>[0]; undo?: () => Promise<void> }> }> = [
    {
      name: 'a budget that is spent',
      code: 'policy_denied',
      arrange: async () => {
        writePolicy({ v: 1, default: 'allow', budgets: [{ id: 'x402-daily', currencies: ['USD'], per: 'day', limit: '0.01', over: 'deny' }] });
        return { url: priced({ scheme: 'exact', amount: '20000' }) };
      },
    },
    {
      name: 'an asset that does not count',
      code: 'policy_denied',
      arrange: async () => ({ url: priced({ scheme: 'exact', amount: '10000', asset: '0x1234567890123456789012345678901234567890' }), options: { replaceSpendControls: true } }),
    },
    {
      name: 'the pause',
      code: 'daemon_paused',
      arrange: async () => {
        const paused = await stack.a.post('/pause', {});
        assert.equal(paused.status, 200, paused.text);
        return { url: priced({ scheme: 'exact', amount: '10000' }), undo: async () => void (await stack.a.post('/resume', {})) };
      },
    },
    {
      name: 'no daemon',
      code: 'daemon_unreachable',
      arrange: async () => ({ url: priced({ scheme: 'exact', amount: '10000' }), options: { baseUrl: 'http://127.0.0.1:9' } }),
    },
    {
      name: 'a wrong token',
      code: 'daemon_not_verified',
      arrange: async () => {
        // The agent's token as another data directory holds it: one the daemon does not know.
        const elsewhere = mkdtempSync(path.join(stack.root, 'elsewhere-'));
        mkdirSync(path.join(elsewhere, 'agents'), { mode: 0o700 });
        writeFileSync(path.join(elsewhere, 'agents', 'shopper.token'), `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
        return { url: priced({ scheme: 'exact', amount: '10000' }), options: { home: elsewhere } };
      },
    },
  ];
  for (const { name, code, arrange } of refusedCases) {
    test(`${name}: the fetch fails with latch: ${code}, nothing is signed or settled`, async () => {
      const { url, options, undo } = await arrange();
      const signedBefore = world.signatures();
      const settledBefore = world.settlements.length;
      try {
        await assert.rejects(guarded(options)(url), (error: Error) => error.message.includes(`latch: ${code}`) || assert.fail(`${name}: ${error.message}`));
      } finally {
        await undo?.();
      }
      assert.equal(world.signatures(), signedBefore, 'the wallet key signed nothing');
      assert.equal(world.settlements.length, settledBefore, 'the facilitator settled nothing');
    });
  }
});

/** pendingApprovals lists the owner's pending approvals for url. */
async function pendingFor(url: string): Promise<Array<Record<string, any>>> {
  const listed = await stack.a.get('/approvals?status=pending_approval&limit=100');
  assert.equal(listed.status, 200, listed.text);
  return (listed.body.approvals as Array<Record<string, any>>).filter((approval) => approval['request']?.['x402']?.['resource']?.['url'] === url);
}

/** waitFor polls until check answers a value, or fails naming what it waited for. */
async function waitFor<T>(what: string, check: () => Promise<T | undefined>, deadlineMs = 15_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('ask', () => {
  test('held for the owner: the payment goes out once the owner approves, under one approval', async () => {
    writePolicy({ v: 1, default: 'allow', rules: [{ id: 'x402-ask', kinds: ['x402'], decision: 'ask' }] });
    const url = priced({ scheme: 'exact', amount: '10000' });
    const settledBefore = world.settlements.length;
    const paying = guarded({ waitSeconds: 20 })(url);
    const [approval] = await waitFor('the approval', async () => {
      const found = await pendingFor(url);
      return found.length > 0 ? found : undefined;
    });
    assert.equal(approval?.['request']?.['kind'], 'x402');
    const approved = await stack.a.post(`/approvals/${String(approval?.['approval_id'])}/approve`, {});
    assert.equal(approved.status, 200, approved.text);
    const response = await paying;
    assert.equal(response.status, 200);
    assert.equal(world.settlements.length, settledBefore + 1);
    const entry = (await x402Entries()).find((candidate) => candidate['resource_url'] === url);
    assert.equal(entry?.['status'], 'settled');
  });

  test('not held: the first fetch aborts with approval_pending; after the approval the same payment pays with that approval', async () => {
    writePolicy({ v: 1, default: 'allow', rules: [{ id: 'x402-ask', kinds: ['x402'], decision: 'ask' }] });
    const url = priced({ scheme: 'exact', amount: '10000' });
    const pay = guarded();
    const signedBefore = world.signatures();
    await assert.rejects(pay(url), /latch: approval_pending/);
    assert.equal(world.signatures(), signedBefore, 'nothing signed before the approval');
    const [approval] = await pendingFor(url);
    assert.ok(approval, 'one pending approval');
    const approved = await stack.a.post(`/approvals/${String(approval['approval_id'])}/approve`, {});
    assert.equal(approved.status, 200, approved.text);
    const settledBefore = world.settlements.length;
    const response = await pay(url);
    assert.equal(response.status, 200);
    assert.equal(world.settlements.length, settledBefore + 1);
    const all = await stack.a.get('/approvals?limit=100');
    const forUrl = (all.body.approvals as Array<Record<string, any>>).filter((candidate) => candidate['request']?.['x402']?.['resource']?.['url'] === url);
    assert.equal(forUrl.length, 1, 'one approval, not a second');
  });
});

describe('budgets hold across parallel payments', () => {
  test('20 parallel paid fetches with a budget for 10 pay exactly 10', async () => {
    // An agent of its own, so nothing else this stack paid counts against its budget.
    addAgent(stack.home, 'parallel');
    writePolicy({ v: 1, default: 'allow', budgets: [{ id: 'x402-ten', agents: ['parallel'], currencies: ['USD'], per: 'day', limit: '0.10', over: 'deny' }] });
    const urls = Array.from({ length: 20 }, () => priced({ scheme: 'exact', amount: '10000' }));
    const settledBefore = world.settlements.length;
    const results = await Promise.allSettled(urls.map((url) => guarded({ agent: 'parallel' })(url)));
    const paid = results.filter((result) => result.status === 'fulfilled' && result.value.status === 200).length;
    const refused = results.filter((result) => result.status === 'rejected' && String(result.reason?.message).includes('latch: policy_denied')).length;
    assert.equal(paid, 10, 'exactly 10 paid');
    assert.equal(refused, 10, 'the other 10 were refused by the budget, before signing');
    assert.equal(world.settlements.length - settledBefore, 10, 'the facilitator settled exactly 10');
  });
});

describe('evidence', () => {
  test('the pack of a settled x402 payment verifies; a changed settled amount fails it', async () => {
    const url = priced({ scheme: 'upto', amount: '50000', settles: '20000' });
    const response = await guarded()(url);
    assert.equal(response.status, 200);
    const entry = (await x402Entries()).find((candidate) => candidate['resource_url'] === url);
    const id = String(entry?.['authorization_id']);
    const exported = await shopper.get(`/authorizations/${id}/evidence`);
    assert.equal(exported.status, 200, exported.text);
    const text = exported.text;
    const pack = JSON.parse(text) as Record<string, any>;
    assert.equal(pack['x402']['settlement']['reported_by'], 'agent');
    assert.equal(pack['x402']['settlement']['settle_response']['amount'], '20000');
    const verdict = verifyEvidence(text);
    assert.ok(verdict.ok, JSON.stringify(verdict));
    const file = path.join(stack.root, `${id}.json`);
    writeFileSync(file, text, { mode: 0o600 });
    const latch = await runLatch(['evidence', 'verify', file], { LATCH_HOME: stack.home });
    assert.equal(latch.code, 0, latch.stderr + latch.stdout);
    // The settled amount changed, and the pack re-signed by another key: the receipt no longer verifies.
    const changed = text.replace('"amount":"20000"', '"amount":"10000"');
    assert.notEqual(changed, text);
    assert.equal(verifyEvidence(changed).ok, false);
    const forged: Record<string, any> = { ...pack, x402: { ...pack['x402'], settlement: { ...pack['x402']['settlement'], settle_response: { ...pack['x402']['settlement']['settle_response'], amount: '60000' } } } };
    const { jws: _jws, ...body } = forged;
    const device = loadDeviceKey(stack.home);
    assert.ok(device !== undefined);
    const bodyText = JSON.stringify(body);
    const resigned = `${bodyText.slice(0, -1)},"jws":${JSON.stringify(signJwsCompactText(bodyText, device.keyId, secretOf(device), EVIDENCE_JWS_TYP))}}\n`;
    const verdictResigned = verifyEvidence(resigned);
    assert.equal(verdictResigned.ok, false);
    assert.match(verdictResigned.ok ? '' : verdictResigned.problem, /above the maximum/);
  });
});
