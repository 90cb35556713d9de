import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LatchError } from '../../src/errors/latch-error.js';
import { parseJson } from '../../src/json/parse-json.js';
import { validateBody } from '../../src/validate/schema.js';
import { authorizeRulesB } from '../../src/variant-b/handlers.js';
import { allocateRules as allocateRulesB } from '../../src/requests/request-rules.js';

const CARD = 'card_abc123';

function refusedParam(rules: Parameters<typeof validateBody>[1], json: string): string | undefined {
  try {
    validateBody(parseJson(json), rules);
  } catch (error) {
    assert.ok(error instanceof LatchError, String(error));
    assert.equal(error.code, 'invalid_request');
    return error.param;
  }
  assert.fail(`accepted: ${json}`);
}

describe("B's /authorize rules (the decision: card_id, amount, merchant required; currency USD and ttl 30m by default)", () => {
  test('the minimal body gets the defaults: currency USD, ttl 1800 s', () => {
    const input = validateBody(parseJson(`{"card_id":"${CARD}","amount":12.5,"merchant":"shop.example.com"}`), authorizeRulesB);
    assert.deepEqual(input, { card_id: CARD, amount: 1250, merchant: 'shop.example.com', currency: 'USD', ttl: 1800 });
  });

  test('every field given: ttl in seconds, amount from a decimal string in minor units', () => {
    const input = validateBody(parseJson(`{"card_id":"${CARD}","amount":"0.07","merchant":"Shop.Example.com","currency":"USD","ttl":"2h"}`), authorizeRulesB);
    assert.deepEqual(input, { card_id: CARD, amount: 7, merchant: 'shop.example.com', currency: 'USD', ttl: 7200 });
  });

  test('the rule set names exactly the five B fields', () => {
    assert.deepEqual(Object.keys(authorizeRulesB).sort(), ['amount', 'card_id', 'currency', 'merchant', 'ttl']);
  });

  const refused: Array<[string, string]> = [
    [`{"amount":1,"merchant":"shop.example.com"}`, 'card_id'],
    [`{"card_id":"${CARD}","merchant":"shop.example.com"}`, 'amount'],
    [`{"card_id":"${CARD}","amount":1}`, 'merchant'],
    [`{"card_id":"${CARD}","amount":1,"merchant":"shop.example.com","ttl":"30"}`, 'ttl'],
    [`{"card_id":"${CARD}","amount":1,"merchant":"shop.example.com","ttl":"0m"}`, 'ttl'],
    [`{"card_id":"${CARD}","amount":1,"merchant":"shop.example.com","ttl":"-5m"}`, 'ttl'],
    [`{"card_id":"${CARD}","amount":1,"merchant":"shop.example.com","ttl":"99999h"}`, 'ttl'],
    [`{"card_id":"${CARD}","amount":1,"merchant":"shop.example.com","ttl":"1.5m"}`, 'ttl'],
    [`{"card_id":"${CARD}","amount":1,"merchant":"shop.example.com","ttl":30}`, 'ttl'],
    [`{"card_id":"${CARD}","amount":1e1,"merchant":"shop.example.com"}`, 'amount'],
    [`{"card_id":"${CARD}","amount":10000.001,"merchant":"shop.example.com"}`, 'amount'],
    [`{"card_id":"${CARD}","amount":10000.01,"merchant":"shop.example.com"}`, 'amount'],
    [`{"card_id":"${CARD}","amount":1,"merchant":"shop.example.com","ttl_minutes":30}`, 'ttl_minutes'],
    [`{"card_id":"${CARD}","amount":1,"merchant_name":"shop.example.com"}`, 'merchant_name'],
  ];
  for (const [json, param] of refused) {
    test(`refused with param ${param}: ${json}`, () => {
      assert.equal(refusedParam(authorizeRulesB, json), param);
    });
  }
});

describe("B's /wallet/allocate rules", () => {
  test('card_id and amount, nothing else; amount up to 1,000,000.00', () => {
    assert.deepEqual(Object.keys(allocateRulesB).sort(), ['amount', 'card_id']);
    assert.deepEqual(validateBody(parseJson(`{"card_id":"${CARD}","amount":1000000}`), allocateRulesB), { card_id: CARD, amount: 100_000_000 });
    assert.equal(refusedParam(allocateRulesB, `{"card_id":"${CARD}","amount":1000000.01}`), 'amount');
    assert.equal(refusedParam(allocateRulesB, `{"card_id":"${CARD}","amount":"5","currency":"USDT"}`), 'currency');
  });
});
