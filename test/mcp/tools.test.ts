import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseJson, type JsonObject } from '../../src/json/parse-json.js';
import { ToolInputError, validateArguments, type InputSchema } from '../../src/mcp/tool-input.js';
import { findTool, TOOLS } from '../../src/mcp/tools.js';

const args = (text: string): JsonObject => parseJson(text) as JsonObject;
const schemaOf = (name: string): InputSchema => {
  const tool = findTool(name, 'owner');
  assert.ok(tool, name);
  return tool.inputSchema;
};

describe('the tool catalog', () => {
  test('exactly the fifteen tools, each named latch_*', () => {
    assert.deepEqual(TOOLS.map((tool) => tool.name).sort(), [
      'latch_allocate',
      'latch_ap2_mandate',
      'latch_authorize',
      'latch_get_approval',
      'latch_get_card',
      'latch_get_transaction',
      'latch_health',
      'latch_list_cards',
      'latch_list_transactions',
      'latch_merchant_bind',
      'latch_recurring',
      'latch_revoke',
      'latch_sign_web_request',
      'latch_wallet_balance',
      'latch_x402_authorize',
    ]);
  });

  // The validator implements only these keywords; a schema using another would be advertised but not enforced.
  const OBJECT_KEYWORDS = new Set(['type', 'properties', 'required', 'additionalProperties']);
  const PROPERTY_KEYWORDS = new Set(['type', 'description', 'enum', 'pattern', 'minLength', 'maxLength', 'minimum', 'exclusiveMinimum', 'maximum']);
  for (const tool of TOOLS) {
    test(`${tool.name}: a closed object schema using only enforced keywords`, () => {
      const schema = tool.inputSchema as unknown as Record<string, unknown>;
      for (const key of Object.keys(schema)) assert.ok(OBJECT_KEYWORDS.has(key), key);
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(tool.inputSchema.additionalProperties, false);
      for (const name of tool.inputSchema.required ?? []) assert.ok(Object.hasOwn(tool.inputSchema.properties, name), name);
      // An object argument (latch_sign_web_request's headers, latch_ap2_mandate's merchant and key) is
      // closed and names what it requires; an array (latch_ap2_mandate's items) bounds its length and
      // describes its elements; members and elements are checked like any argument, at any depth.
      const enforced = (where: string, schema: Record<string, unknown>): void => {
        const keywords = schema['type'] === 'object' ? new Set([...PROPERTY_KEYWORDS, 'properties', 'required', 'additionalProperties']) : schema['type'] === 'array' ? new Set([...PROPERTY_KEYWORDS, 'items', 'minItems', 'maxItems']) : PROPERTY_KEYWORDS;
        for (const key of Object.keys(schema)) assert.ok(keywords.has(key), `${where}.${key}`);
        if (schema['pattern'] !== undefined) new RegExp(schema['pattern'] as string, 'u');
        // An opaque object names no members at all (x402's `extra`, kept as sent and bounded by the daemon).
        if (schema['type'] === 'object' && (schema['properties'] !== undefined || schema['required'] !== undefined)) {
          assert.equal(schema['additionalProperties'], false, where);
          const members = (schema['properties'] ?? {}) as Record<string, Record<string, unknown>>;
          for (const required of (schema['required'] ?? []) as string[]) assert.ok(Object.hasOwn(members, required), `${where} requires ${required}`);
          for (const [member, memberSchema] of Object.entries(members)) enforced(`${where}.${member}`, memberSchema);
        }
        if (schema['type'] === 'array') enforced(`${where}[]`, schema['items'] as Record<string, unknown>);
      };
      for (const [name, property] of Object.entries(tool.inputSchema.properties)) {
        enforced(name, property as unknown as Record<string, unknown>);
        assert.ok(property.description.length > 10, name);
      }
      assert.ok(tool.description.length > 40);
    });
  }

  test('the money tools tell the agent the spec\'s rules', () => {
    for (const name of ['latch_authorize', 'latch_merchant_bind', 'latch_recurring', 'latch_allocate']) {
      const description = findTool(name, 'owner')?.description ?? '';
      assert.match(description, /never retry with a larger amount, another merchant, a longer TTL/, name);
      assert.match(description, /user/, name);
      assert.match(description, /card numbers/, name);
    }
  });

  test('latch_authorize takes seven arguments, three of them required', () => {
    const schema = schemaOf('latch_authorize');
    assert.deepEqual(Object.keys(schema.properties), ['card_id', 'merchant_domain', 'amount', 'currency', 'authorization_type', 'ttl_minutes', 'reference']);
    assert.deepEqual(schema.required, ['card_id', 'merchant_domain', 'amount']);
  });
});

describe('validateArguments', () => {
  const authorize = schemaOf('latch_authorize');
  const valid: Array<[string, string, Record<string, string | number>]> = [
    ['the three required', '{"card_id":"card_a1","merchant_domain":"shop.example.com","amount":"12.50"}', { card_id: 'card_a1', merchant_domain: 'shop.example.com', amount: '12.50' }],
    ['an amount as a JSON number keeps its exact text', '{"card_id":"card_a1","merchant_domain":"m.example","amount":12.50}', { card_id: 'card_a1', merchant_domain: 'm.example', amount: '12.50' }],
    [
      'every optional field',
      '{"card_id":"card_a1","merchant_domain":"m.example","amount":"1","currency":"USD","authorization_type":"ceiling","ttl_minutes":1440}',
      { card_id: 'card_a1', merchant_domain: 'm.example', amount: '1', currency: 'USD', authorization_type: 'ceiling', ttl_minutes: 1440 },
    ],
  ];
  for (const [name, text, expected] of valid) test(`accepts ${name}`, () => assert.deepEqual(validateArguments(authorize, args(text)), expected));

  const invalid: Array<[string, string, string]> = [
    ['a missing amount', '{"card_id":"card_a1","merchant_domain":"m.example"}', 'amount'],
    ['an unknown field', '{"card_id":"card_a1","merchant_domain":"m.example","amount":"1","colour":"red"}', 'colour'],
    ['an unknown card-data field, named only as arguments', '{"card_id":"card_a1","merchant_domain":"m.example","amount":"1","card_number":"4111111111111111"}', 'arguments'],
    ['the REST name merchant_name', '{"card_id":"card_a1","merchant_name":"m.example","amount":"1"}', 'merchant_name'],
    ['a card id of the wrong form', '{"card_id":"4111111111111111","merchant_domain":"m.example","amount":"1"}', 'card_id'],
    ['a negative amount string', '{"card_id":"card_a1","merchant_domain":"m.example","amount":"-1"}', 'amount'],
    ['an amount with three decimals', '{"card_id":"card_a1","merchant_domain":"m.example","amount":"1.005"}', 'amount'],
    ['an amount as an object', '{"card_id":"card_a1","merchant_domain":"m.example","amount":{"v":1}}', 'amount'],
    ['an amount as a boolean', '{"card_id":"card_a1","merchant_domain":"m.example","amount":true}', 'amount'],
    ['ttl_minutes 0', '{"card_id":"card_a1","merchant_domain":"m.example","amount":"1","ttl_minutes":0}', 'ttl_minutes'],
    ['ttl_minutes 1441', '{"card_id":"card_a1","merchant_domain":"m.example","amount":"1","ttl_minutes":1441}', 'ttl_minutes'],
    ['ttl_minutes 1.5', '{"card_id":"card_a1","merchant_domain":"m.example","amount":"1","ttl_minutes":1.5}', 'ttl_minutes'],
    ['ttl_minutes as text', '{"card_id":"card_a1","merchant_domain":"m.example","amount":"1","ttl_minutes":"30"}', 'ttl_minutes'],
    ['another authorization_type', '{"card_id":"card_a1","merchant_domain":"m.example","amount":"1","authorization_type":"any"}', 'authorization_type'],
    ['a lower-case currency', '{"card_id":"card_a1","merchant_domain":"m.example","amount":"1","currency":"usd"}', 'currency'],
    ['a merchant of 254 characters', `{"card_id":"card_a1","merchant_domain":"${'a'.repeat(254)}","amount":"1"}`, 'merchant_domain'],
    ['a null card id', '{"card_id":null,"merchant_domain":"m.example","amount":"1"}', 'card_id'],
  ];
  for (const [name, text, param] of invalid) {
    test(`refuses ${name}, naming the field`, () => {
      assert.throws(() => validateArguments(authorize, args(text)), (error: unknown) => error instanceof ToolInputError && error.param === param);
    });
  }

  const unknownNames: Array<[string, string, string | undefined]> = [
    ['a plain name is repeated', 'colour', 'colour'],
    ['a long name is cut to 64 characters', 'x'.repeat(200), `${'x'.repeat(64)}…`],
    ['markup is not repeated', '<img src=x onerror=alert(1)>', undefined],
    ['a bidi override is not repeated', 'amount\u202e', undefined],
    ['a control character is not repeated', 'a\u0007b', undefined],
    ['a card number as a name is not repeated', '4111111111111111', undefined],
    ['a cvv field name is not repeated', 'cvv', undefined],
  ];
  for (const [name, argument, shown] of unknownNames) {
    test(`an unknown argument: ${name}`, () => {
      const given = { card_id: 'card_a1', merchant_domain: 'm.example', amount: '1', [argument]: '1' };
      assert.throws(
        () => validateArguments(authorize, given),
        (error: unknown) => {
          assert.ok(error instanceof ToolInputError);
          assert.equal(error.param, shown ?? 'arguments');
          if (shown === undefined) assert.ok(!error.message.includes(argument), error.message);
          else assert.ok(error.message.startsWith(`Unknown argument ${shown};`), error.message);
          return true;
        },
      );
    });
  }

  const amounts: Array<[string, Record<string, string>, unknown, boolean]> = [
    ['latch_authorize', { card_id: 'card_a1', merchant_domain: 'm.example' }, '0', false],
    ['latch_authorize', { card_id: 'card_a1', merchant_domain: 'm.example' }, '0.00', false],
    ['latch_authorize', { card_id: 'card_a1', merchant_domain: 'm.example' }, '0.01', true],
    ['latch_recurring', { card_id: 'card_a1', merchant_domain: 'm.example', interval: 'month' }, '0.0', false],
    ['latch_allocate', { card_id: 'card_a1' }, '0', false],
    ['latch_allocate', { card_id: 'card_a1' }, '0.10', true],
    ['latch_merchant_bind', { card_id: 'card_a1', merchant_domain: 'm.example' }, '0', true],
    ['latch_merchant_bind', { card_id: 'card_a1', merchant_domain: 'm.example' }, '1.00', true],
  ];
  for (const [tool, rest, amount, accepted] of amounts) {
    test(`${tool} ${accepted ? 'accepts' : 'refuses'} amount ${String(amount)}, as the daemon does, and says so`, () => {
      const schema = schemaOf(tool);
      const run = () => validateArguments(schema, { ...rest, amount: amount as string });
      if (accepted) assert.equal(run()['amount'], amount);
      else assert.throws(run, (error: unknown) => error instanceof ToolInputError && error.param === 'amount');
      const description = schema.properties['amount']?.description ?? '';
      assert.match(description, tool === 'latch_merchant_bind' ? /from 0/ : /more than 0/);
    });
  }

  test('a tool without arguments accepts none and refuses any', () => {
    const schema = schemaOf('latch_list_cards');
    assert.deepEqual(validateArguments(schema, undefined), {});
    assert.deepEqual(validateArguments(schema, {}), {});
    assert.throws(() => validateArguments(schema, args('{"x":1}')), ToolInputError);
  });
});

describe('latch_sign_web_request arguments', () => {
  const schema = schemaOf('latch_sign_web_request');
  const digest = `sha-256=:${'A'.repeat(43)}=:`;
  test('the same fields as POST /web-bot-auth/sign, headers an object holding only content-digest', () => {
    assert.deepEqual(Object.keys(schema.properties), ['method', 'url', 'headers', 'tag', 'expires_in_seconds']);
    assert.deepEqual(schema.required, ['method', 'url']);
    assert.deepEqual(validateArguments(schema, args(`{"method":"POST","url":"https://shop.example.com/","headers":{"content-digest":"${digest}"},"tag":"agent-payer-auth","expires_in_seconds":120}`)), {
      method: 'POST',
      url: 'https://shop.example.com/',
      headers: { 'content-digest': digest },
      tag: 'agent-payer-auth',
      expires_in_seconds: 120,
    });
  });
  const refused: Array<[string, string, string]> = [
    ['headers not an object', '{"method":"GET","url":"https://a.example/","headers":"content-digest"}', 'headers'],
    ['another header', '{"method":"GET","url":"https://a.example/","headers":{"x-price":"1"}}', 'headers'],
    ['a malformed digest', '{"method":"GET","url":"https://a.example/","headers":{"content-digest":"sha-256=:x:"}}', 'headers.content-digest'],
    ['a digest that is not a string', '{"method":"GET","url":"https://a.example/","headers":{"content-digest":5}}', 'headers.content-digest'],
    ['an unknown tag', '{"method":"GET","url":"https://a.example/","tag":"x"}', 'tag'],
    ['expires_in_seconds over 480', '{"method":"GET","url":"https://a.example/","expires_in_seconds":481}', 'expires_in_seconds'],
  ];
  for (const [name, text, param] of refused) {
    test(`refused: ${name} (${param})`, () => {
      assert.throws(() => validateArguments(schema, args(text)), (error: unknown) => error instanceof ToolInputError && error.param === param);
    });
  }
});
