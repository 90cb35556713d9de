/**
 * POST /x402/authorize and the lifecycle routes refuse bad input as the spec says
 * (shared/spec/x402.md §2–3): each case a clear error with its code and param, nothing recorded; and
 * GET /x402/assets answers the built-in table.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { addAgent } from '../../src/datadir/agents.js';
import { startStack, type JsonClient, type Stack } from '../support/stack.js';
import { BASE_SEPOLIA, BASE_SEPOLIA_USDC, PAY_TO } from '../support/x402-world.js';

let stack: Stack;
let shopper: JsonClient;

before(async () => {
  stack = await startStack();
  addAgent(stack.home, 'shopper');
  shopper = stack.agent('shopper');
});
after(() => stack.close());

const requirements = { scheme: 'exact', network: BASE_SEPOLIA, amount: '10000', asset: BASE_SEPOLIA_USDC, payTo: PAY_TO, maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' } };
const valid = { x402_version: 2, resource: { url: 'https://api.example.com/premium-data', description: 'Market data' }, requirements };
const withRequirements = (over: Record<string, unknown>) => ({ ...valid, requirements: { ...requirements, ...over } });

const CASES: Array<[name: string, body: unknown, status: number, code: string, param?: string]> = [
  ['x402 version 1', { ...valid, x402_version: 1 }, 400, 'x402_version_not_supported', 'x402_version'],
  ['x402 version as text', { ...valid, x402_version: '2' }, 400, 'invalid_request', 'x402_version'],
  ['scheme stream', withRequirements({ scheme: 'stream' }), 400, 'x402_scheme_not_supported', 'requirements.scheme'],
  ['amount 0', withRequirements({ amount: '0' }), 400, 'invalid_request', 'requirements.amount'],
  ['amount with a sign', withRequirements({ amount: '-1' }), 400, 'invalid_request', 'requirements.amount'],
  ['amount as a number', withRequirements({ amount: 10000 }), 400, 'invalid_request', 'requirements.amount'],
  ['amount of 79 digits', withRequirements({ amount: `1${'0'.repeat(78)}` }), 400, 'invalid_request', 'requirements.amount'],
  ['amount with a decimal point', withRequirements({ amount: '1.5' }), 400, 'invalid_request', 'requirements.amount'],
  ['amount above what one authorization may count', withRequirements({ amount: '10000000001' }), 400, 'invalid_request', 'requirements.amount'],
  ['payTo of 129 characters', withRequirements({ payTo: `0x${'a'.repeat(127)}` }), 400, 'invalid_request', 'requirements.payTo'],
  ['payTo with a space', withRequirements({ payTo: '0x20 9693' }), 400, 'invalid_request', 'requirements.payTo'],
  ['maxTimeoutSeconds 0', withRequirements({ maxTimeoutSeconds: 0 }), 400, 'invalid_request', 'requirements.maxTimeoutSeconds'],
  ['maxTimeoutSeconds 3601', withRequirements({ maxTimeoutSeconds: 3601 }), 400, 'invalid_request', 'requirements.maxTimeoutSeconds'],
  ['extra of 5 KiB', withRequirements({ extra: { pad: 'x'.repeat(5000) } }), 400, 'invalid_request', 'requirements.extra'],
  ['a network that is not CAIP-2', withRequirements({ network: 'base' }), 400, 'invalid_request', 'requirements.network'],
  ['an unknown requirements member', withRequirements({ maxAmountRequired: '1' }), 400, 'invalid_request', 'requirements.maxAmountRequired'],
  ['an http resource on a public host', { ...valid, resource: { url: 'http://api.example.com/x' } }, 400, 'invalid_request', 'resource.url'],
  ['a resource URL with user info', { ...valid, resource: { url: 'https://user:pw@api.example.com/x' } }, 400, 'invalid_request', 'resource.url'],
  ['a resource without a url', { ...valid, resource: { description: 'x' } }, 400, 'invalid_request', 'resource.url'],
  ['a description with a control character', { ...valid, resource: { url: 'https://api.example.com/x', description: 'a\u0007b' } }, 400, 'invalid_request', 'resource.description'],
  ['a card number in the description', { ...valid, resource: { url: 'https://api.example.com/x', description: 'card 4111 1111 1111 1111' } }, 400, 'card_data_not_accepted'],
  ['an asset that does not count', withRequirements({ asset: '0x1234567890123456789012345678901234567890' }), 403, 'policy_denied'],
  ['Base mainnet USDC on Base Sepolia', withRequirements({ asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' }), 403, 'policy_denied'],
];

for (const [name, body, status, code, param] of CASES) {
  test(`POST /x402/authorize, ${name}: ${status} ${code}, nothing recorded`, async () => {
    const before = (await shopper.get('/authorizations?kind=x402&limit=100')).body.authorizations.length;
    const answer = await shopper.post('/x402/authorize', body);
    assert.equal(answer.status, status, answer.text);
    assert.equal(answer.body.error.code, code);
    if (param !== undefined) assert.equal(answer.body.error.param, param);
    if (code === 'policy_denied') assert.equal(answer.body.error.rule, 'x402_asset');
    assert.equal((await shopper.get('/authorizations?kind=x402&limit=100')).body.authorizations.length, before);
  });
}

test('GET /x402/assets answers x402\'s default USDC entries for Base and Base Sepolia', async () => {
  const answer = await shopper.get('/x402/assets');
  assert.equal(answer.status, 200);
  assert.deepEqual(answer.body, {
    assets: [
      { network: 'eip155:8453', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', symbol: 'USDC', decimals: 6, counts_as: 'USD' },
      { network: 'eip155:84532', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', symbol: 'USDC', decimals: 6, counts_as: 'USD' },
    ],
  });
});

test('the lifecycle routes: another agent\'s entry is not found, a malformed id too, and a body needs exactly one report', async () => {
  const made = await shopper.post('/x402/authorize', valid, { 'idempotency-key': 'routes-1' });
  assert.equal(made.status, 201, made.text);
  assert.match(made.body.authorization_id, /^xa_/);
  const replay = await shopper.post('/x402/authorize', valid, { 'idempotency-key': 'routes-1' });
  assert.equal(replay.status, 201);
  assert.equal(replay.body.authorization_id, made.body.authorization_id, 'a retry under the same key answers the same entry');
  const reused = await shopper.post('/x402/authorize', withRequirements({ amount: '20000' }), { 'idempotency-key': 'routes-1' });
  assert.equal(reused.status, 422);
  assert.equal(reused.body.error.code, 'idempotency_key_reused');
  addAgent(stack.home, 'other');
  const other = stack.agent('other');
  const id = made.body.authorization_id as string;
  assert.equal((await other.post(`/x402/authorizations/${id}/release`, {})).body.error.code, 'authorization_not_found');
  assert.equal((await other.get(`/authorizations/${id}`)).body.error.code, 'authorization_not_found');
  assert.equal((await shopper.post('/x402/authorizations/pw_abc/release', {})).body.error.code, 'authorization_not_found');
  const both = await shopper.post(`/x402/authorizations/${id}/settlement`, { outcome: 'transport_error', settle_response: { success: true } });
  assert.equal(both.status, 400);
  assert.equal((await shopper.post(`/x402/authorizations/${id}/settlement`, { outcome: 'transport_error' })).body.error.code, 'x402_not_bound');
  const released = await shopper.post(`/x402/authorizations/${id}/release`, {});
  assert.equal(released.status, 200);
  assert.equal(released.body.status, 'released');
  const listed = await stack.a.get('/authorizations?kind=x402&status=released');
  assert.ok(listed.body.authorizations.some((entry: { authorization_id: string }) => entry.authorization_id === id));
  const audit = await stack.a.get('/audit?limit=50');
  assert.equal(audit.status, 200);
});
