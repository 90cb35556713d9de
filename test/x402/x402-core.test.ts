/**
 * The x402 guard's core (shared/spec/x402.md §1–3) without HTTP: counting rounded up in integer
 * arithmetic, the state machine's transitions derived from its own table, the entry and each
 * transition replayed from state.journal to the same state, expiry at expires_at releasing the
 * reservation, and the budgets following every state.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { StoredAuthorizationLedger } from '../../src/core/authorization-ledger.js';
import type { CoreDeps, OperationContext } from '../../src/core/core-deps.js';
import { X402_STATES } from '../../src/core/model.js';
import { neverPaused } from '../../src/core/signing-pause.js';
import { requestX402Authorization } from '../../src/core/x402-authorize.js';
import type { X402AuditLine } from '../../src/core/x402-deps.js';
import { X402Index } from '../../src/core/x402-index.js';
import { bindPayload, expireDue, releaseEntry, reportSettlement, x402Entry } from '../../src/core/x402-lifecycle.js';
import type { X402Input } from '../../src/core/x402-request.js';
import { checkTransition, type X402Detail, type X402Transition } from '../../src/core/x402-states.js';
import { HeldWindows } from '../../src/core/held-windows.js';
import { SignedWindowCache } from '../../src/core/signed-window-cache.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { parsePolicyText } from '../../src/policy/policy-file.js';
import { PolicyGate } from '../../src/policy/policy-gate.js';
import { BUILT_IN_X402_ASSETS } from '../../src/x402/assets.js';
import { countedMinor } from '../../src/x402/counting.js';
import { approvalsNeverAsked, outcomesIgnored, refusalsIgnored, noCardLabels } from '../support/core-deps.js';
import { MemoryRecordStore } from '../support/memory-record-store.js';
import { generateSecretKey } from '../support/raw-signing.js';
import { testSigner } from '../support/test-signer.js';
import { verifyJwsCompact } from '../../src/verify/jws-verify.js';

const NOW = 1_800_000_000;
const secret = generateSecretKey();
const AGENT: OperationContext = { principal: { kind: 'agent', name: 'shopper' }, caller: { requestId: 'req_1', userAgent: 'test' }, idempotencyKey: undefined };
const OWNER_CONTEXT: OperationContext = { ...AGENT, principal: { kind: 'owner' } };
const USDC = BUILT_IN_X402_ASSETS[1] as (typeof BUILT_IN_X402_ASSETS)[number];
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';

test('counting: the atomic amount in the currency, rounded up to its minor unit, exactly', () => {
  const cases: Array<[atomic: string, assetDecimals: number, counted: number | undefined]> = [
    ['1', 6, 1], // 0.000001 USDC counts 0.01 USD: an overcount, never an undercount
    ['1000', 6, 1], // 0.001 USDC counts 0.01 USD (shared/spec/x402.md §2)
    ['10000', 6, 1],
    ['10001', 6, 2],
    ['999999', 6, 100],
    ['1000000', 6, 100],
    ['1000000000000000000', 18, 100], // 1 of an 18-decimal token
    ['1000000000000000001', 18, 101],
    ['7', 0, 700], // a token with no decimals: 7 whole units
    ['1000000000', 6, 100_000],
    ['9'.repeat(78), 6, undefined], // beyond any bound: refused, never rounded into a number
  ];
  for (const [atomic, assetDecimals, counted] of cases) assert.equal(countedMinor(atomic, assetDecimals, 2, 10_000_000_000), counted, `${atomic} at ${assetDecimals} decimals`);
});

test('no money in the x402 guard passes through parseFloat, toFixed or a Number of the atomic amount', () => {
  const root = path.resolve(import.meta.dirname, '../../src');
  const files = [...readdirSync(path.join(root, 'x402')).map((file) => path.join('x402', file)), ...readdirSync(path.join(root, 'core')).filter((file) => file.startsWith('x402')).map((file) => path.join('core', file))];
  assert.ok(files.length >= 8, 'the guard\'s files are found');
  for (const file of files) {
    const text = readFileSync(path.join(root, file), 'utf8');
    assert.doesNotMatch(text, /parseFloat|toFixed|Number\((?:amount|atomic|requirements\.amount)/, file);
  }
});

test('the state machine: each transition is allowed from exactly the states its table names, and a report only once', () => {
  const detail = (state: X402Detail['state'], reported = false): X402Detail =>
    ({ state, report: reported ? { kind: 'outcome', outcome: 'transport_error' } : null }) as unknown as X402Detail;
  const transitions: X402Transition[] = [
    { to: 'bound', atSeconds: NOW, payloadSha256: 'a'.repeat(64) },
    { to: 'settled', atSeconds: NOW, report: { kind: 'settle_response', settleResponse: { success: true } }, settledMinor: 1 },
    { to: 'failed', atSeconds: NOW, report: { kind: 'outcome', outcome: 'verify_failed' } },
    { to: 'reported', atSeconds: NOW, report: { kind: 'outcome', outcome: 'transport_error' } },
    { to: 'released', atSeconds: NOW },
    { to: 'expired', atSeconds: NOW },
  ];
  const allowed: Record<string, readonly string[]> = { bound: ['authorized'], settled: ['bound'], failed: ['bound'], reported: ['bound'], released: ['authorized', 'bound'], expired: ['authorized'] };
  for (const transition of transitions) {
    for (const state of X402_STATES) {
      assert.equal(checkTransition(detail(state), transition), allowed[transition.to]?.includes(state), `${transition.to} from ${state}`);
    }
  }
  // After a transport_error report the entry stays bound, and the first report wins.
  for (const to of ['settled', 'failed', 'reported'] as const) {
    assert.equal(checkTransition(detail('bound', true), transitions.find((t) => t.to === to) as X402Transition), false, `${to} after a report`);
  }
});

interface Harness {
  deps: CoreDeps;
  publicKey: Uint8Array;
  store: MemoryRecordStore;
  audits: X402AuditLine[];
  clock: { now: number };
  gate: PolicyGate;
}

function harness(policyText: string): Harness {
  const store = new MemoryRecordStore();
  const clock = { now: NOW };
  const ledger = new StoredAuthorizationLedger(store, () => clock.now);
  const { signer, key } = testSigner(secret, ledger);
  const policy = parsePolicyText(policyText);
  const gate = new PolicyGate({ policy: () => policy, authorizations: ledger, nowSeconds: () => clock.now });
  const audits: X402AuditLine[] = [];
  const deps: CoreDeps = {
    signer,
    heldWindows: new HeldWindows(new MemoryRecordStore()),
    device: () => ({ key, deviceId: 'dev_test', cloud: {} as never }),
    audit: async () => undefined,
    nowSeconds: () => clock.now,
    paused: neverPaused,
    decide: gate.decide,
    authorizations: ledger,
    approvals: approvalsNeverAsked(),
    signedWindows: new SignedWindowCache(),
    x402: { assets: () => policy.x402Assets, audit: async (line) => void audits.push(line), index: new X402Index(ledger), running: new Map() },
    outcome: outcomesIgnored,
    refused: refusalsIgnored,
    cloudNowSeconds: () => clock.now,
    mandates: noCardLabels,
  };
  return { deps, publicKey: key.publicKey, store, audits, clock, gate };
}

function input(amount: string, url = 'https://api.example.com/data', scheme: 'exact' | 'upto' = 'exact'): X402Input {
  return { resource: { url }, merchant: new URL(url).hostname, requirements: { scheme, network: USDC.network, amount, asset: USDC.asset, payTo: PAY_TO, maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' } } };
}

async function authorized(h: Harness, value: X402Input, context = AGENT): Promise<string> {
  const result = await requestX402Authorization(h.deps, value, context);
  assert.equal(result.outcome, 'authorized');
  return result.outcome === 'authorized' ? result.entry.policyId : '';
}

const BUDGET_TWO_CENTS = JSON.stringify({ v: 1, default: 'allow', budgets: [{ id: 'two-cents', currencies: ['USD'], per: 'day', limit: '0.02', over: 'deny' }] });

async function refusedBy(h: Harness, value: X402Input): Promise<string | undefined> {
  try {
    await requestX402Authorization(h.deps, value, AGENT);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof LatchError);
    return error.rule ?? error.code;
  }
}

test('the receipt is the device key\'s JWS over the entry\'s terms, with its own typ', async () => {
  const h = harness(BUDGET_TWO_CENTS);
  const id = await authorized(h, input('10000'));
  const entry = h.deps.authorizations.get(id);
  const verified = verifyJwsCompact(entry?.jws ?? '', h.publicKey);
  assert.ok(typeof verified !== 'string', String(verified));
  assert.equal(verified.header['typ'], 'latch-x402-receipt+jwt');
  assert.equal(verified.payload['authorization_id'], id);
  assert.equal(verified.payload['amount_max'], '10000');
  assert.equal(verified.payload['amount'], '0.01');
  assert.equal(verified.payload['requirements_sha256'], entry?.x402?.requirementsSha256);
  assert.equal(verified.payload['exp'], NOW + 60 + 60, 'expires_at = now + maxTimeoutSeconds + 60 s');
});

test('the budgets follow every state: authorized and bound count in full, settled what settled, released and expired nothing', async () => {
  const h = harness(BUDGET_TWO_CENTS);
  const first = await authorized(h, input('10000'));
  const second = await authorized(h, input('10000'));
  assert.equal(await refusedBy(h, input('1')), 'two-cents', 'two cents reserved');
  await releaseEntry(h.deps, second, AGENT);
  const third = await authorized(h, input('10000'));
  await bindPayload(h.deps, third, input('10000').requirements, 'b'.repeat(64), AGENT);
  assert.equal(await refusedBy(h, input('1')), 'two-cents', 'bound counts in full');
  // An upto bound at 0.02 and settled at 0.005 counts 0.01: room for one cent more.
  await releaseEntry(h.deps, first, OWNER_CONTEXT);
  await reportSettlement(h.deps, third, { kind: 'settle_response', settleResponse: { success: false } }, AGENT);
  const upto = await authorized(h, input('20000', 'https://api.example.com/upto', 'upto'));
  await bindPayload(h.deps, upto, input('20000', 'https://api.example.com/upto', 'upto').requirements, 'c'.repeat(64), AGENT);
  await reportSettlement(h.deps, upto, { kind: 'settle_response', settleResponse: { success: true, amount: '5000' } }, AGENT);
  assert.equal(h.deps.authorizations.get(upto)?.usedMinor, 1);
  await authorized(h, input('10000'));
  assert.equal(await refusedBy(h, input('1')), 'two-cents');
});

test('an unbound authorization expires at expires_at, audited, its reservation released; a bound one never expires', async () => {
  const h = harness(JSON.stringify({ v: 1, default: 'allow', budgets: [{ id: 'one-cent', currencies: ['USD'], per: 'day', limit: '0.01', over: 'deny' }] }));
  const id = await authorized(h, input('10000'));
  assert.equal(await refusedBy(h, input('1')), 'one-cent');
  h.clock.now = NOW + 119;
  await expireDue(h.deps);
  assert.equal(h.deps.authorizations.get(id)?.x402?.state, 'authorized', 'not before expires_at');
  h.clock.now = NOW + 120;
  await expireDue(h.deps);
  assert.equal(h.deps.authorizations.get(id)?.x402?.state, 'expired');
  assert.deepEqual(h.audits.map((line) => line.operation), ['x402_authorized', 'x402_expired']);
  await assert.rejects(bindPayload(h.deps, id, input('10000').requirements, 'a'.repeat(64), AGENT), (error: LatchError) => error.code === 'x402_authorization_expired');
  const next = await authorized(h, input('10000'));
  await bindPayload(h.deps, next, input('10000').requirements, 'a'.repeat(64), AGENT);
  h.clock.now += 10_000;
  await expireDue(h.deps);
  assert.equal(h.deps.authorizations.get(next)?.x402?.state, 'bound', 'bound and never reported stays counted in full');
});

test('the entry and every transition replay from state.journal to the same state and the same budgets', async () => {
  const h = harness(BUDGET_TWO_CENTS);
  const settled = await authorized(h, input('10000'));
  await bindPayload(h.deps, settled, input('10000').requirements, 'a'.repeat(64), AGENT);
  await reportSettlement(h.deps, settled, { kind: 'settle_response', settleResponse: { success: true, transaction: '0x1' } }, AGENT);
  const released = await authorized(h, input('10000'));
  await releaseEntry(h.deps, released, AGENT);
  const lost = await authorized(h, input('10000'));
  await bindPayload(h.deps, lost, input('10000').requirements, 'b'.repeat(64), AGENT);
  await reportSettlement(h.deps, lost, { kind: 'outcome', outcome: 'transport_error' }, AGENT);
  // A second ledger replays what the first wrote, as a restart would.
  const owners = new MemoryRecordStore();
  const fresh = new StoredAuthorizationLedger(owners, () => h.clock.now);
  for (const record of h.store.records) owners.owners.get(String(record['type']))?.replay(record, h.clock.now);
  for (const id of [settled, released, lost]) assert.deepEqual(fresh.get(id), h.deps.authorizations.get(id), id);
  assert.equal(fresh.get(lost)?.x402?.state, 'bound');
  assert.equal(fresh.get(lost)?.state, 'active', 'a lost report keeps the amount counted');
});

test('bind: other terms release the entry (x402_terms_changed), once only, and an agent sees only its own', async () => {
  const h = harness(BUDGET_TWO_CENTS);
  const id = await authorized(h, input('10000'));
  await assert.rejects(x402Entry(h.deps, id, { ...AGENT, principal: { kind: 'agent', name: 'other' } }), (error: LatchError) => error.code === 'authorization_not_found');
  const cheaper = { ...input('10000').requirements, amount: '9999' };
  await assert.rejects(bindPayload(h.deps, id, cheaper, 'a'.repeat(64), AGENT), (error: LatchError) => error.code === 'x402_terms_changed');
  assert.equal(h.deps.authorizations.get(id)?.x402?.state, 'released');
  assert.equal((await releaseEntry(h.deps, id, AGENT)).x402?.state, 'released', 'a release of a released entry answers it');
  const again = await authorized(h, input('10000'));
  // EVM addresses compare case-insensitively.
  const lower = { ...input('10000').requirements, payTo: PAY_TO.toLowerCase() };
  await bindPayload(h.deps, again, lower, 'a'.repeat(64), AGENT);
  assert.equal((await bindPayload(h.deps, again, lower, 'a'.repeat(64), AGENT)).x402?.state, 'bound', 'the same binding again is answered');
  await assert.rejects(bindPayload(h.deps, again, lower, 'b'.repeat(64), AGENT), (error: LatchError) => error.code === 'x402_authorization_not_bindable');
  await assert.rejects(releaseEntry(h.deps, again, AGENT), (error: LatchError) => error.code === 'agent_not_permitted');
});

test('settlement: the first report wins; the same again is answered, a different one is x402_settlement_conflict; above the maximum counts as reported', async () => {
  const h = harness(JSON.stringify({ v: 1, default: 'allow' }));
  const value = input('20000', 'https://api.example.com/upto', 'upto');
  const id = await authorized(h, value);
  await assert.rejects(reportSettlement(h.deps, id, { kind: 'outcome', outcome: 'transport_error' }, AGENT), (error: LatchError) => error.code === 'x402_not_bound');
  await bindPayload(h.deps, id, value.requirements, 'a'.repeat(64), AGENT);
  const over = { kind: 'settle_response' as const, settleResponse: { success: true, amount: '30001' } };
  assert.equal((await reportSettlement(h.deps, id, over, AGENT)).usedMinor, 4, '0.030001 counts 0.04');
  assert.equal((await reportSettlement(h.deps, id, over, AGENT)).x402?.state, 'settled');
  await assert.rejects(reportSettlement(h.deps, id, { kind: 'settle_response', settleResponse: { success: true, amount: '1' } }, AGENT), (error: LatchError) => error.code === 'x402_settlement_conflict');
  assert.deepEqual(h.audits.map((line) => line.operation), ['x402_authorized', 'x402_bound', 'x402_settled', 'x402_settlement_anomaly']);
});

test('new_merchant is the pair host + payTo: a known host paying a new address is new', async () => {
  const h = harness(JSON.stringify({ v: 1, default: 'allow', new_merchant: 'deny' }));
  assert.equal(await refusedBy(h, input('10000')), 'new_merchant');
  await h.gate.markMerchantKnown(`api.example.com pay_to ${PAY_TO.toLowerCase()}`);
  await authorized(h, input('10000'));
  const elsewhere = { ...input('10000'), requirements: { ...input('10000').requirements, payTo: '0x0000000000000000000000000000000000000001' } };
  assert.equal(await refusedBy(h, elsewhere), 'new_merchant');
});

test('rules name kinds ["x402"], networks and pay_to; a card-scoped budget does not cover x402; unlisted assets are x402_asset', async () => {
  const h = harness(
    JSON.stringify({
      v: 1,
      default: 'allow',
      rules: [
        { id: 'mainnet-denied', kinds: ['x402'], networks: ['eip155:8453'], decision: 'deny' },
        { id: 'bad-payee', pay_to: ['0x0000000000000000000000000000000000000BAD'], decision: 'deny' },
      ],
      budgets: [{ id: 'card-budget', cards: ['card_a'], per: 'day', limit: '0.01', over: 'deny' }],
    }),
  );
  await authorized(h, input('50000'));
  const mainnet = { ...input('10000'), requirements: { ...input('10000').requirements, network: 'eip155:8453', asset: (BUILT_IN_X402_ASSETS[0] as { asset: string }).asset } };
  assert.equal(await refusedBy(h, mainnet), 'mainnet-denied');
  const bad = { ...input('10000'), requirements: { ...input('10000').requirements, payTo: '0x0000000000000000000000000000000000000bad' } };
  assert.equal(await refusedBy(h, bad), 'bad-payee', 'pay_to compares case-insensitively');
  const unlisted = { ...input('10000'), requirements: { ...input('10000').requirements, asset: '0x1234567890123456789012345678901234567890' } };
  assert.equal(await refusedBy(h, unlisted), 'x402_asset');
});

test('a transition is the ledger state machine\'s: applied in the turn it is committed, undone when its record cannot be written', async () => {
  const h = harness(BUDGET_TWO_CENTS);
  const id = await authorized(h, input('10000'));
  const before = h.deps.authorizations.get(id);
  const written = h.store.records.length;
  h.store.append = async () => {
    throw new Error('disk full');
  };
  const bound = h.deps.authorizations.noteX402(id, { to: 'bound', atSeconds: h.clock.now, payloadSha256: 'c'.repeat(64) });
  // Memory changes in this turn, before anything is awaited, so no snapshot can miss it.
  assert.equal(h.deps.authorizations.get(id)?.x402?.state, 'bound', 'applied in the turn it is committed');
  await assert.rejects(bound, /disk full/);
  assert.deepEqual(h.deps.authorizations.get(id), before, 'the undo leaves the entry, its detail and its state as they were');
  assert.equal(h.store.records.length, written, 'nothing written');
  assert.equal(h.deps.authorizations.get(id)?.x402?.payloadSha256, null, 'no payload bound');
});
