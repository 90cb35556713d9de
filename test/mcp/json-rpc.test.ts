import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseJson } from '../../src/json/parse-json.js';
import { classifyMessage, errorLine, resultLine, type Incoming } from '../../src/mcp/json-rpc.js';

const classify = (text: string): Incoming => classifyMessage(parseJson(text));

describe('classifyMessage', () => {
  const cases: Array<[string, string, Partial<Record<string, unknown>>]> = [
    ['a request with a number id', '{"jsonrpc":"2.0","id":1,"method":"ping"}', { kind: 'request', method: 'ping', paramsValid: true }],
    ['a request with a string id', '{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}', { kind: 'request', id: 'a' }],
    ['a notification', '{"jsonrpc":"2.0","method":"notifications/initialized"}', { kind: 'notification', method: 'notifications/initialized' }],
    ['a response from the client', '{"jsonrpc":"2.0","id":3,"result":{}}', { kind: 'response', error: undefined }],
    ['an error response from the client', '{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}}', { kind: 'response', result: undefined }],
    ['params as an array', '{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}', { kind: 'request', paramsValid: false }],
    ['params as a string', '{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}', { kind: 'request', paramsValid: false }],
    ['no jsonrpc', '{"id":1,"method":"ping"}', { kind: 'invalid' }],
    ['jsonrpc 1.0', '{"jsonrpc":"1.0","id":1,"method":"ping"}', { kind: 'invalid' }],
    ['a null id', '{"jsonrpc":"2.0","id":null,"method":"ping"}', { kind: 'invalid', id: null }],
    ['an object id', '{"jsonrpc":"2.0","id":{},"method":"ping"}', { kind: 'invalid', id: null }],
    ['a boolean id', '{"jsonrpc":"2.0","id":true,"method":"ping"}', { kind: 'invalid', id: null }],
    ['a numeric method', '{"jsonrpc":"2.0","id":1,"method":5}', { kind: 'invalid' }],
    ['an empty method', '{"jsonrpc":"2.0","id":1,"method":""}', { kind: 'invalid' }],
    ['neither method nor result', '{"jsonrpc":"2.0","id":1}', { kind: 'invalid' }],
    ['not an object', '"ping"', { kind: 'invalid', id: null }],
    ['a number', '42', { kind: 'invalid', id: null }],
    ['null', 'null', { kind: 'invalid', id: null }],
  ];
  for (const [name, text, expected] of cases) {
    test(name, () => {
      const message = classify(text) as unknown as Record<string, unknown>;
      for (const [key, value] of Object.entries(expected)) assert.deepEqual(message[key], value, key);
    });
  }

  test('an invalid message keeps a readable id so the error can be matched', () => {
    const message = classify('{"jsonrpc":"1.0","id":7,"method":"ping"}');
    assert.equal(message.kind, 'invalid');
    assert.equal(resultLineId(errorLine(message.kind === 'invalid' ? message.id : null, -32600, 'x')), '7');
  });
});

describe('response lines', () => {
  test('a numeric id is echoed as written, even beyond float precision', () => {
    const message = classify('{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}');
    assert.equal(message.kind, 'request');
    if (message.kind !== 'request') return;
    assert.equal(resultLine(message.id, {}), '{"jsonrpc":"2.0","id":12345678901234567890,"result":{}}');
  });

  test('a string id is escaped; an unknown id is null', () => {
    assert.equal(resultLine('a"b', 1), '{"jsonrpc":"2.0","id":"a\\"b","result":1}');
    assert.equal(errorLine(null, -32700, 'Parse error'), '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
  });

  test('a line never contains a raw newline, whatever the text', () => {
    const line = resultLine('x', { text: 'one\ntwo\u2028three' });
    assert.ok(!line.includes('\n'));
    assert.deepEqual(JSON.parse(line).result, { text: 'one\ntwo\u2028three' });
  });
});

function resultLineId(line: string): string {
  return /"id":([^,]+),/.exec(line)?.[1] ?? '';
}
