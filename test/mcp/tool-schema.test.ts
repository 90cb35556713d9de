/**
 * Every MCP tool's inputSchema against the daemon's rules it is built from: the same fields, the
 * same required ones, the same constraints, and a table of inputs that a plain JSON Schema check
 * and validateBody accept or refuse alike. The few inputs where JSON Schema cannot say what a
 * rule checks are listed as such, so a schema that grows stricter or looser is noticed.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { JsonNumber, isJsonObject, parseJson, type JsonObject, type JsonValue } from '../../src/json/parse-json.js';
import { validateArguments, type InputSchema, type PropertySchema } from '../../src/mcp/tool-input.js';
import { toolInput } from '../../src/mcp/tool-schema.js';
import { findTool, TOOLS, type ToolDefinition } from '../../src/mcp/tools.js';
import { validateBody } from '../../src/validate/schema.js';
import { str } from '../../src/validate/schema.js';

/** A checker for exactly the JSON Schema subset the tools emit, following JSON Schema's meaning. */
function schemaAccepts(schema: InputSchema, value: JsonValue): boolean {
  if (!isJsonObject(value)) return false;
  for (const name of Object.keys(value)) if (!Object.hasOwn(schema.properties, name)) return false;
  for (const name of schema.required ?? []) if (!Object.hasOwn(value, name)) return false;
  return Object.entries(schema.properties).every(([name, property]) => !Object.hasOwn(value, name) || propertyAccepts(property, value[name] as JsonValue));
}

function propertyAccepts(property: PropertySchema, value: JsonValue): boolean {
  const types = typeof property.type === 'string' ? [property.type] : property.type;
  const isNumber = value instanceof JsonNumber;
  const typeOk = types.some(
    (type) =>
      (type === 'string' && typeof value === 'string') ||
      (type === 'boolean' && typeof value === 'boolean') ||
      (type === 'number' && isNumber) ||
      (type === 'integer' && isNumber && Number.isInteger(Number(value.text))) ||
      (type === 'object' && isJsonObject(value)) ||
      (type === 'array' && Array.isArray(value)),
  );
  if (!typeOk) return false;
  if (Array.isArray(value)) {
    if (property.minItems !== undefined && value.length < property.minItems) return false;
    if (property.maxItems !== undefined && value.length > property.maxItems) return false;
    const element = property.items;
    return element === undefined || value.every((item) => propertyAccepts({ ...element, description: '' }, item));
  }
  if (isJsonObject(value)) {
    const members = property.properties ?? {};
    if (property.additionalProperties === false && Object.keys(value).some((name) => !Object.hasOwn(members, name))) return false;
    if ((property.required ?? []).some((name) => !Object.hasOwn(value, name))) return false;
    return Object.entries(members).every(([name, member]) => !Object.hasOwn(value, name) || propertyAccepts({ ...member, description: '' }, value[name] as JsonValue));
  }
  if (property.enum !== undefined && !property.enum.includes(value as string)) return false;
  if (typeof value === 'string') {
    const length = [...value].length;
    if (property.minLength !== undefined && length < property.minLength) return false;
    if (property.maxLength !== undefined && length > property.maxLength) return false;
    if (property.pattern !== undefined && !new RegExp(property.pattern, 'u').test(value)) return false;
  }
  if (isNumber) {
    const number = Number(value.text);
    if (property.minimum !== undefined && number < property.minimum) return false;
    if (property.exclusiveMinimum !== undefined && number <= property.exclusiveMinimum) return false;
    if (property.maximum !== undefined && number > property.maximum) return false;
  }
  return true;
}

/** daemonAccepts runs the tool's arguments, renamed to the daemon's fields, through validateBody. */
function daemonAccepts(tool: ToolDefinition, args: JsonObject): boolean {
  // An argument the tool does not take stays unknown to the daemon, even if a field has its name.
  const body = Object.fromEntries(Object.entries(args).map(([name, value]) => [tool.fieldOf[name] ?? `not an argument: ${name}`, value]));
  try {
    validateBody(body, tool.rules);
    return true;
  } catch (error) {
    // invalid_agent_key is the AP2 mandate's refusal of the agent's key (docs/ap2.md): a refusal too.
    if (!['invalid_request', 'invalid_agent_key'].includes((error as { code?: string }).code ?? '')) throw error;
    return false;
  }
}

function mcpAccepts(tool: ToolDefinition, args: JsonObject): boolean {
  try {
    validateArguments(tool.inputSchema, args);
    return true;
  } catch {
    return false;
  }
}

const toolNamed = (name: string): ToolDefinition => {
  const tool = findTool(name, 'owner');
  assert.ok(tool, name);
  return tool;
};

describe('each tool\'s schema is its daemon rule set', () => {
  for (const tool of TOOLS) {
    test(`${tool.name}: one property per rule, the same required fields and constraints`, () => {
      const { properties, required = [] } = tool.inputSchema;
      assert.deepEqual(Object.keys(properties).map((name) => tool.fieldOf[name]).sort(), Object.keys(tool.rules).sort());
      const requiredFields = Object.entries(tool.rules).filter(([, rule]) => rule.presence === 'required').map(([field]) => field);
      assert.deepEqual(required.map((name) => tool.fieldOf[name]).sort(), requiredFields.sort());
      for (const [name, property] of Object.entries(properties)) {
        const { description, ...constraints } = property;
        assert.ok(description.length > 10, name);
        assert.deepEqual(constraints, tool.rules[tool.fieldOf[name] as string]?.jsonSchema, name);
      }
    });
  }

  test('an argument without a rule, or a rule without an argument, fails when the tool is built', () => {
    assert.throws(() => toolInput({ card_id: str({ required: true }) }, {}), /rule card_id has no argument/);
    assert.throws(() => toolInput({}, { card_id: 'The card.' }), /argument card_id has no rule/);
    assert.throws(() => toolInput({ a: str() }, { a: 'One.', b: { field: 'a', description: 'Two.' } }), /taken twice/);
  });
});

/** Whether JSON Schema and the daemon agree on an input, or which one alone refuses it and why. */
type Outcome = 'accepted' | 'refused' | 'daemon refuses only' | 'schema refuses only';

const CARD = '"card_id":"card_a1"';
const AUTH = `${CARD},"merchant_domain":"shop.example.com"`;
/** An AP2 mandate's fields but its items: the agent's key is a real P-256 point. */
const X402 = `"x402_version":2,"resource":{"url":"https://api.example.com/data"}`;
const X402_REQ = '"scheme":"exact","network":"eip155:84532","amount":"10000","asset":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":60';
const AP2 = `${CARD},"merchant":{"name":"Shop","website":"https://shop.example.com"},"amount_max":"25.00","agent_key":{"kty":"EC","crv":"P-256","x":"Y-j5IHETcpmQLoKziufmv18L5_5Iq9myQtNsiSG0gxg","y":"lPoEalpMx0El1x3uKYcqJPb2LCQoa7Th6XtzdfHr1n0"}`;

const SAMPLES: ReadonlyArray<[string, string, string, Outcome]> = [
  ['latch_health', 'no arguments', '{}', 'accepted'],
  ['latch_health', 'any argument', '{"verbose":true}', 'refused'],
  ['latch_list_cards', 'no arguments', '{}', 'accepted'],
  ['latch_list_cards', 'an unknown argument', '{"card_id":"card_a1"}', 'refused'],
  ['latch_get_card', 'a card id', `{${CARD}}`, 'accepted'],
  ['latch_get_card', 'no card id', '{}', 'refused'],
  ['latch_get_card', 'an upper-case card id', '{"card_id":"card_A1"}', 'refused'],
  ['latch_get_card', 'a card id of 65 characters', `{"card_id":"card_${'a'.repeat(65)}"}`, 'refused'],
  ['latch_get_card', 'a percent-encoded card id', '{"card_id":"card_%61"}', 'refused'],
  ['latch_get_card', 'a card number', '{"card_id":"4111111111111111"}', 'refused'],
  ['latch_get_card', 'a card id as a number', '{"card_id":1}', 'refused'],
  ['latch_authorize', 'the three required', `{${AUTH},"amount":"12.50"}`, 'accepted'],
  ['latch_authorize', 'an amount as a JSON number', `{${AUTH},"amount":12.5}`, 'accepted'],
  ['latch_authorize', 'every optional field', `{${AUTH},"amount":"1","currency":"USD","authorization_type":"ceiling","ttl_minutes":1440}`, 'accepted'],
  ['latch_authorize', 'the largest amount', `{${AUTH},"amount":"10000.00"}`, 'accepted'],
  ['latch_authorize', 'a missing amount', `{${AUTH}}`, 'refused'],
  ['latch_authorize', 'the REST name merchant_name', `{${CARD},"merchant_name":"shop.example.com","amount":"1"}`, 'refused'],
  ['latch_authorize', 'an unknown card_number', `{${AUTH},"amount":"1","card_number":"4111111111111111"}`, 'refused'],
  ['latch_authorize', 'a zero amount', `{${AUTH},"amount":"0.00"}`, 'refused'],
  ['latch_authorize', 'a zero amount as a number', `{${AUTH},"amount":0}`, 'refused'],
  ['latch_authorize', 'a negative amount', `{${AUTH},"amount":"-1"}`, 'refused'],
  ['latch_authorize', 'a negative amount as a number', `{${AUTH},"amount":-1}`, 'refused'],
  ['latch_authorize', 'three decimals', `{${AUTH},"amount":"1.005"}`, 'refused'],
  ['latch_authorize', 'a leading zero', `{${AUTH},"amount":"01.00"}`, 'refused'],
  ['latch_authorize', 'an exponent in text', `{${AUTH},"amount":"1e2"}`, 'refused'],
  ['latch_authorize', 'six whole digits', `{${AUTH},"amount":"100000"}`, 'refused'],
  ['latch_authorize', 'a number above the maximum', `{${AUTH},"amount":10000.01}`, 'refused'],
  ['latch_authorize', 'an amount as a boolean', `{${AUTH},"amount":true}`, 'refused'],
  ['latch_authorize', 'ttl_minutes 0', `{${AUTH},"amount":"1","ttl_minutes":0}`, 'refused'],
  ['latch_authorize', 'ttl_minutes 1441', `{${AUTH},"amount":"1","ttl_minutes":1441}`, 'refused'],
  ['latch_authorize', 'ttl_minutes 1.5', `{${AUTH},"amount":"1","ttl_minutes":1.5}`, 'refused'],
  ['latch_authorize', 'ttl_minutes as text', `{${AUTH},"amount":"1","ttl_minutes":"30"}`, 'refused'],
  ['latch_authorize', 'another authorization_type', `{${AUTH},"amount":"1","authorization_type":"Exact"}`, 'refused'],
  ['latch_authorize', 'a lower-case currency', `{${AUTH},"amount":"1","currency":"usd"}`, 'refused'],
  ['latch_authorize', 'an unsupported currency', `{${AUTH},"amount":"1","currency":"EUR"}`, 'refused'],
  ['latch_authorize', 'USDT as a currency', `{${AUTH},"amount":"1","currency":"USDT"}`, 'refused'],
  ['latch_authorize', 'a merchant of 254 characters', `{${CARD},"merchant_domain":"${'a'.repeat(250)}.com","amount":"1"}`, 'refused'],
  ['latch_authorize', 'an empty merchant', `{${CARD},"merchant_domain":"","amount":"1"}`, 'refused'],
  ['latch_authorize', 'a null card id', '{"card_id":null,"merchant_domain":"shop.example.com","amount":"1"}', 'refused'],
  // What JSON Schema cannot say: a domain's structure, text amounts under a maximum, number text.
  ['latch_authorize', 'a merchant with a scheme', `{${CARD},"merchant_domain":"https://shop.example.com","amount":"1"}`, 'daemon refuses only'],
  ['latch_authorize', 'a text amount above the maximum', `{${AUTH},"amount":"10000.01"}`, 'refused'],
  ['latch_authorize', 'a number with three decimals', `{${AUTH},"amount":1.005}`, 'daemon refuses only'],
  ['latch_authorize', 'a number with an exponent', `{${AUTH},"amount":1e2}`, 'daemon refuses only'],
  ['latch_authorize', 'ttl_minutes written 30.0', `{${AUTH},"amount":"1","ttl_minutes":30.0}`, 'daemon refuses only'],
  // The daemon reads null as "absent"; JSON Schema refuses a null where a string is expected.
  ['latch_authorize', 'a null optional currency', `{${AUTH},"amount":"1","currency":null}`, 'schema refuses only'],
  ['latch_merchant_bind', 'no amount (default 0)', `{${AUTH}}`, 'accepted'],
  ['latch_merchant_bind', 'amount 0', `{${AUTH},"amount":"0"}`, 'accepted'],
  ['latch_merchant_bind', 'amount 0 as a number', `{${AUTH},"amount":0}`, 'accepted'],
  ['latch_merchant_bind', 'amount 1.00', `{${AUTH},"amount":"1.00"}`, 'accepted'],
  ['latch_merchant_bind', 'amount 10', `{${AUTH},"amount":"10"}`, 'refused'],
  ['latch_merchant_bind', 'amount 1.01 as a number', `{${AUTH},"amount":1.01}`, 'refused'],
  ['latch_merchant_bind', 'amount 1.01 as text', `{${AUTH},"amount":"1.01"}`, 'refused'],
  ['latch_merchant_bind', 'ttl_minutes 1440', `{${AUTH},"ttl_minutes":1440}`, 'accepted'],
  ['latch_x402_authorize', 'an exact payment with extra', `{${X402},"requirements":{${X402_REQ},"extra":{"name":"USDC","version":"2"}}}`, 'accepted'],
  ['latch_x402_authorize', 'an upto payment without extra', `{${X402},"requirements":{${X402_REQ.replace('exact', 'upto')}}}`, 'accepted'],
  ['latch_x402_authorize', 'no payTo', `{${X402},"requirements":{${X402_REQ.replace(',"payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C"', '')}}}`, 'refused'],
  ['latch_x402_authorize', 'an amount of 0', `{${X402},"requirements":{${X402_REQ.replace('"10000"', '"0"')}}}`, 'refused'],
  ['latch_x402_authorize', 'a timeout of a day', `{${X402},"requirements":{${X402_REQ.replace(':60', ':86400')}}}`, 'refused'],
  ['latch_x402_authorize', 'an unknown member', `{${X402},"requirements":{${X402_REQ}},"pan":"x"}`, 'refused'],
  ['latch_ap2_mandate', 'a mandate for one item', `{${AP2},"items":[{"id":"sku-1","title":"Mug"}]}`, 'accepted'],
  ['latch_ap2_mandate', 'no items', `{${AP2},"items":[]}`, 'refused'],
  ['latch_ap2_mandate', 'no agent key', `{${CARD},"merchant":{"name":"Shop","website":"https://shop.example.com"},"amount_max":"25.00","items":[{"id":"sku-1","title":"Mug"}]}`, 'refused'],
  ['latch_ap2_mandate', 'an RSA agent key', `{${AP2.replace('"kty":"EC"', '"kty":"RSA"')},"items":[{"id":"sku-1","title":"Mug"}]}`, 'refused'],
  ['latch_ap2_mandate', 'an unknown member', `{${AP2},"items":[{"id":"sku-1","title":"Mug"}],"pan":"x"}`, 'refused'],
  ['latch_recurring', 'a monthly plan', `{${AUTH},"amount":"9.99","interval":"month"}`, 'accepted'],
  ['latch_recurring', 'every field', `{${AUTH},"amount":"9.99","interval":"week","interval_count":2,"authorization_type":"exact","currency":"USD","starts_at":"2999-01-01T00:00:00Z","ends_at":"2999-06-01T00:00:00Z","max_charges":12}`, 'accepted'],
  ['latch_recurring', 'no interval', `{${AUTH},"amount":"9.99"}`, 'refused'],
  ['latch_recurring', 'a fortnight interval', `{${AUTH},"amount":"9.99","interval":"fortnight"}`, 'refused'],
  ['latch_recurring', 'interval_count 366', `{${AUTH},"amount":"9.99","interval":"day","interval_count":366}`, 'refused'],
  ['latch_recurring', 'max_charges 0', `{${AUTH},"amount":"9.99","interval":"day","max_charges":0}`, 'refused'],
  ['latch_recurring', 'max_charges 1001', `{${AUTH},"amount":"9.99","interval":"day","max_charges":1001}`, 'refused'],
  ['latch_recurring', 'an empty starts_at', `{${AUTH},"amount":"9.99","interval":"day","starts_at":""}`, 'refused'],
  ['latch_recurring', 'starts_at that is not a time', `{${AUTH},"amount":"9.99","interval":"day","starts_at":"tomorrow"}`, 'daemon refuses only'],
  ['latch_revoke', 'a policy id', '{"policy_id":"pw_abc"}', 'accepted'],
  ['latch_revoke', 'a policy id and a reason', '{"policy_id":"pw_abc","reason":"not needed"}', 'accepted'],
  ['latch_revoke', 'a card id for a policy id', '{"policy_id":"card_abc"}', 'refused'],
  ['latch_revoke', 'an empty reason', '{"policy_id":"pw_abc","reason":""}', 'refused'],
  ['latch_revoke', 'a reason of 201 characters', `{"policy_id":"pw_abc","reason":"${'r'.repeat(201)}"}`, 'refused'],
  ['latch_revoke', 'a reason of 200 emoji', `{"policy_id":"pw_abc","reason":"${'😀'.repeat(200)}"}`, 'accepted'],
  ['latch_revoke', 'a reason with a control character', '{"policy_id":"pw_abc","reason":"a\\u0007b"}', 'daemon refuses only'],
  ['latch_wallet_balance', 'no arguments', '{}', 'accepted'],
  ['latch_allocate', 'a card and an amount', `{${CARD},"amount":"250.00"}`, 'accepted'],
  ['latch_allocate', 'the largest amount as a number', `{${CARD},"amount":1000000}`, 'accepted'],
  ['latch_allocate', 'no amount', `{${CARD}}`, 'refused'],
  ['latch_allocate', 'an amount too large as a number', `{${CARD},"amount":1000000.01}`, 'refused'],
  ['latch_list_transactions', 'no filters', '{}', 'accepted'],
  ['latch_list_transactions', 'every filter', '{"limit":100,"starting_after":"tx_abc","card_id":"card_a1","status":"settled"}', 'accepted'],
  ['latch_list_transactions', 'limit 0', '{"limit":0}', 'refused'],
  ['latch_list_transactions', 'limit 101', '{"limit":101}', 'refused'],
  ['latch_list_transactions', 'a negative limit', '{"limit":-1}', 'refused'],
  ['latch_list_transactions', 'starting_after a card id', '{"starting_after":"card_a1"}', 'refused'],
  ['latch_list_transactions', 'an upper-case status', '{"status":"SETTLED"}', 'refused'],
  ['latch_get_transaction', 'a transaction id', '{"tx_id":"tx_abc"}', 'accepted'],
  ['latch_get_transaction', 'a transaction id with a slash', '{"tx_id":"tx_abc/def"}', 'refused'],
  ['latch_get_transaction', 'a Cyrillic transaction id', '{"tx_id":"tx_аbc"}', 'refused'],
  ['latch_get_transaction', 'an empty transaction id', '{"tx_id":""}', 'refused'],
  ['latch_get_approval', 'an approval id', '{"approval_id":"ap_abc"}', 'accepted'],
  ['latch_get_approval', 'an approval id and the longest wait', '{"approval_id":"ap_abc","wait_seconds":60}', 'accepted'],
  ['latch_get_approval', 'no wait', '{"approval_id":"ap_abc","wait_seconds":0}', 'accepted'],
  ['latch_get_approval', 'a wait over 60 seconds', '{"approval_id":"ap_abc","wait_seconds":61}', 'refused'],
  ['latch_get_approval', 'a negative wait', '{"approval_id":"ap_abc","wait_seconds":-1}', 'refused'],
  ['latch_get_approval', 'a wait as text', '{"approval_id":"ap_abc","wait_seconds":"5"}', 'refused'],
  ['latch_get_approval', 'a policy id for an approval id', '{"approval_id":"pw_abc"}', 'refused'],
  ['latch_get_approval', 'an approval id with a slash', '{"approval_id":"ap_abc/../x"}', 'refused'],
  ['latch_get_approval', 'no approval id', '{"wait_seconds":5}', 'refused'],
  ['latch_sign_web_request', 'a method and a URL', '{"method":"GET","url":"https://shop.example.com/p?id=1"}', 'accepted'],
  ['latch_sign_web_request', 'every field', `{"method":"POST","url":"https://shop.example.com/","headers":{"content-digest":"sha-256=:${'A'.repeat(43)}=:"},"tag":"agent-payer-auth","expires_in_seconds":480}`, 'accepted'],
  ['latch_sign_web_request', 'no url', '{"method":"GET"}', 'refused'],
  ['latch_sign_web_request', 'a method with a space', '{"method":"G T","url":"https://shop.example.com/"}', 'refused'],
  ['latch_sign_web_request', 'an unknown tag', '{"method":"GET","url":"https://shop.example.com/","tag":"bot"}', 'refused'],
  ['latch_sign_web_request', 'expires_in_seconds 481', '{"method":"GET","url":"https://shop.example.com/","expires_in_seconds":481}', 'refused'],
  ['latch_sign_web_request', 'a header other than content-digest', '{"method":"GET","url":"https://shop.example.com/","headers":{"cookie":"a"}}', 'refused'],
  ['latch_sign_web_request', 'a malformed content-digest', '{"method":"GET","url":"https://shop.example.com/","headers":{"content-digest":"md5=:x:"}}', 'refused'],
  ['latch_sign_web_request', 'headers as text', '{"method":"GET","url":"https://shop.example.com/","headers":"content-digest"}', 'refused'],
  // JSON Schema property names are exact; the daemon reads header names in any case.
  ['latch_sign_web_request', 'Content-Digest in capitals', `{"method":"GET","url":"https://shop.example.com/","headers":{"Content-Digest":"sha-256=:${'A'.repeat(43)}=:"}}`, 'schema refuses only'],
];

describe('JSON Schema and the daemon accept and refuse the same inputs', () => {
  for (const [name, what, text, outcome] of SAMPLES) {
    test(`${name}, ${what}: ${outcome}`, () => {
      const tool = toolNamed(name);
      const args = parseJson(text) as JsonObject;
      const bySchema = schemaAccepts(tool.inputSchema, args);
      const byDaemon = daemonAccepts(tool, args);
      assert.deepEqual(
        { bySchema, byDaemon },
        {
          bySchema: outcome === 'accepted' || outcome === 'daemon refuses only',
          byDaemon: outcome === 'accepted' || outcome === 'schema refuses only',
        },
      );
      // The MCP's own check never blocks what the daemon takes, and enforces what the schema says.
      if (byDaemon && outcome !== 'schema refuses only') assert.equal(mcpAccepts(tool, args), true);
      if (!bySchema) assert.equal(mcpAccepts(tool, args), false);
    });
  }

  test('every tool has samples of both outcomes or takes no arguments', () => {
    for (const tool of TOOLS) {
      const outcomes = new Set(SAMPLES.filter(([name]) => name === tool.name).map(([, , , outcome]) => outcome));
      assert.ok(outcomes.has('accepted'), tool.name);
      assert.ok(outcomes.has('refused') || Object.keys(tool.rules).length === 0, tool.name);
    }
  });
});
