/**
 * POST /ap2/mandates' body (shared/spec/ap2-mandates.md §2): what is accepted, normalized and
 * refused, and that every refusal of the agent key is invalid_agent_key saying why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { parseJson } from '../../src/json/parse-json.js';
import { validateBody } from '../../src/validate/schema.js';
import { ap2MandateRules } from '../../src/requests/ap2-mandate-rules.js';
import { LatchError } from '../../src/errors/latch-error.js';

const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const agentPublic = publicKey.export({ format: 'jwk' }) as Record<string, string>;
const agentPrivate = privateKey.export({ format: 'jwk' }) as Record<string, string>;

function body(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    card_id: 'card_0123456789abcdef',
    merchant: { name: 'Example Shop', website: 'https://Shop.Example/path' },
    amount_max: '25.00',
    currency: 'USD',
    items: [{ id: 'sku-1', title: 'Blue mug', quantity: 2, alternatives: [{ id: 'sku-2', title: 'Red mug' }] }],
    agent_key: { ...agentPublic, kid: 'agent-1', use: 'sig', key_ops: ['verify'], ext: true, alg: 'ES256' },
    ...over,
  };
}

function validate(value: Record<string, unknown>) {
  return validateBody(parseJson(JSON.stringify(value)), ap2MandateRules);
}

function refusedWith(code: string, param: string, words?: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof LatchError, String(error));
    assert.equal(error.code, code);
    assert.equal(error.param, param);
    if (words !== undefined) assert.match(error.message, words);
    return true;
  };
}

test('a valid body: amount in minor units, the website host normalized as the merchant, id defaulting to it, the agent key cut to kty, crv, x, y, ttl 10 by default', () => {
  const input = validate(body());
  assert.equal(input.amount_max, 2500);
  assert.deepEqual(input.merchant, { ap2: { id: 'shop.example', name: 'Example Shop', website: 'https://Shop.Example/path' }, host: 'shop.example' });
  assert.deepEqual(input.items, [{ item: { id: 'sku-1', title: 'Blue mug' }, alternatives: [{ id: 'sku-2', title: 'Red mug' }], quantity: 2 }]);
  assert.deepEqual(input.agent_key, { kty: 'EC', crv: 'P-256', x: agentPublic['x'], y: agentPublic['y'] });
  assert.equal(input.ttl_minutes, 10);
  assert.equal(validate(body({ merchant: { name: 'S', website: 'https://shop.example', id: 'shop.example' } })).merchant.ap2.id, 'shop.example');
  assert.equal(validate(body({ items: [{ id: 'a', title: 'A' }] })).items[0]?.quantity, 1);
});

test('invalid_agent_key: a private part, another curve or key type, another alg, bad coordinates, a point off the curve, not an object', () => {
  const ed = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' });
  const offCurve = { ...agentPublic, y: agentPublic['x'] };
  const cases: [string, unknown, RegExp][] = [
    ['a private key', agentPrivate, /private key \(d\)/],
    ['Ed25519', ed, /kty must be EC/],
    ['P-384', p384, /crv must be P-256/],
    ['alg RS256', { ...agentPublic, alg: 'RS256' }, /alg/],
    ['short x', { ...agentPublic, x: 'AAAA' }, /x must be 32 bytes/],
    ['a number y', { ...agentPublic, y: 5 }, /y must be 32 bytes/],
    ['off the curve', offCurve, /not on the P-256 curve/],
    ['a string', 'key', /JWK object/],
    ['an array', [agentPublic], /JWK object/],
  ];
  for (const [name, key, words] of cases) {
    assert.throws(() => validate(body({ agent_key: key })), refusedWith('invalid_agent_key', 'agent_key', words), name);
  }
  assert.throws(() => validate(body({ agent_key: agentPrivate })), (error: unknown) => !(error as Error).message.includes(agentPrivate['d'] as string));
});

test('invalid_request names the field: merchant website, items and their bounds, amounts, currency, ttl, unknown members', () => {
  const longList = Array.from({ length: 21 }, (_, i) => ({ id: `s${i}`, title: 'T' }));
  const cases: [string, Record<string, unknown>, string][] = [
    ['http website', { merchant: { name: 'S', website: 'http://shop.example' } }, 'merchant.website'],
    ['not a URL', { merchant: { name: 'S', website: 'shop.example' } }, 'merchant.website'],
    ['an IP website', { merchant: { name: 'S', website: 'https://10.0.0.1' } }, 'merchant.website'],
    ['a port', { merchant: { name: 'S', website: 'https://shop.example:8443' } }, 'merchant.website'],
    ['user info', { merchant: { name: 'S', website: 'https://u:p@shop.example' } }, 'merchant.website'],
    ['no name', { merchant: { website: 'https://shop.example' } }, 'merchant.name'],
    // One merchant (spec §6): AP2 matches payees by id, so an id other than the judged host is refused.
    ['an id naming another merchant', { merchant: { name: 'S', website: 'https://shop.example', id: 'casino.example' } }, 'merchant.id'],
    ['an id naming another id', { merchant: { name: 'S', website: 'https://shop.example', id: 'merchant_1' } }, 'merchant.id'],
    ['an id of the host unnormalized', { merchant: { name: 'S', website: 'https://shop.example', id: 'Shop.Example' } }, 'merchant.id'],
    ['an unknown merchant member', { merchant: { name: 'S', website: 'https://shop.example', logo: 'x' } }, 'merchant.logo'],
    ['no items', { items: [] }, 'items'],
    ['21 items', { items: longList }, 'items'],
    ['quantity 0', { items: [{ id: 'a', title: 'A', quantity: 0 }] }, 'items[0].quantity'],
    ['quantity 100', { items: [{ id: 'a', title: 'A', quantity: 100 }] }, 'items[0].quantity'],
    ['an empty title', { items: [{ id: 'a', title: '' }] }, 'items[0].title'],
    ['10 alternatives', { items: [{ id: 'a', title: 'A', alternatives: longList.slice(0, 10) }] }, 'items[0].alternatives'],
    ['an alternative without a title', { items: [{ id: 'a', title: 'A', alternatives: [{ id: 'b' }] }] }, 'items[0].alternatives[0].title'],
    ['a zero amount', { amount_max: '0' }, 'amount_max'],
    ['three decimals', { amount_max: '1.005' }, 'amount_max'],
    ['over the maximum', { amount_max: '10000.01' }, 'amount_max'],
    ['USDT', { currency: 'USDT' }, 'currency'],
    ['ttl 0', { ttl_minutes: 0 }, 'ttl_minutes'],
    ['ttl 1441', { ttl_minutes: 1441 }, 'ttl_minutes'],
    ['an unknown field', { reference: 'x' }, 'reference'],
  ];
  for (const [name, over, param] of cases) {
    assert.throws(() => validate(body(over)), refusedWith('invalid_request', param), name);
  }
  const missing = body();
  delete missing['agent_key'];
  assert.throws(() => validate(missing), refusedWith('invalid_request', 'agent_key'));
});
