import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { UsageError } from '../../src/cli/command.js';
import { amountFlag, checkId, integerFlag, parseCommandArgs } from '../../src/cli/daemon-calls/command-args.js';
import { exitCodeForClientError } from '../../src/cli/daemon-calls/exit-for-error.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { LatchClientError } from '../../src/client/client-errors.js';

const SPEC = { card: 'value', json: 'boolean' } as const;

describe('parseCommandArgs', () => {
  const good: Array<[string[], number, { flags: Record<string, string | true>; positionals: string[] }]> = [
    [['card_a'], 1, { flags: {}, positionals: ['card_a'] }],
    [['card_a', '--json'], 1, { flags: { json: true }, positionals: ['card_a'] }],
    [['--json', 'card_a'], 1, { flags: { json: true }, positionals: ['card_a'] }],
    [['--card', 'card_a', 'tx_1'], 1, { flags: { card: 'card_a' }, positionals: ['tx_1'] }],
    [['--card=card_a'], 0, { flags: { card: 'card_a' }, positionals: [] }],
    [['--card', '--json'], 0, { flags: { card: '--json' }, positionals: [] }],
  ];
  for (const [args, max, expected] of good) test(`reads ${JSON.stringify(args)}`, () => assert.deepEqual(parseCommandArgs(args, SPEC, max), expected));

  const bad: Array<[string[], number]> = [
    [['a', 'b'], 1],
    [['a'], 0],
    [['--card'], 0],
    [['--nope'], 0],
    [['--json', '--json'], 0],
    [['--json=yes'], 0],
  ];
  for (const [args, max] of bad) test(`refuses ${JSON.stringify(args)}`, () => assert.throws(() => parseCommandArgs(args, SPEC, max), UsageError));
});

describe('flag values', () => {
  const amounts: Array<[string, string | undefined]> = [
    ['12.50', '12.50'],
    ['0', '0'],
    ['7', '7'],
    ['0.5', '0.5'],
    ['1.234', undefined],
    ['-1', undefined],
    ['+1', undefined],
    ['1e3', undefined],
    ['01.00', undefined],
    ['1,00', undefined],
    [' 1', undefined],
    ['NaN', undefined],
    ['Infinity', undefined],
    ['12345678901234', undefined],
  ];
  for (const [text, expected] of amounts) {
    test(`--amount ${JSON.stringify(text)}`, () => {
      if (expected === undefined) assert.throws(() => amountFlag({ amount: text }, 'amount'), UsageError);
      else assert.equal(amountFlag({ amount: text }, 'amount'), expected);
    });
  }

  test('integers within bounds only', () => {
    assert.equal(integerFlag({ ttl: '30' }, 'ttl', 1, 1440), 30);
    for (const text of ['0', '1441', '1.5', '-1', 'ten', '']) assert.throws(() => integerFlag({ ttl: text }, 'ttl', 1, 1440), UsageError, text);
  });

  test('ids need their prefix', () => {
    assert.equal(checkId('card_abc123', 'card', '--card'), 'card_abc123');
    for (const text of ['pw_abc', 'card_', 'card_ABC', 'card_a/b', '4111111111111111']) assert.throws(() => checkId(text, 'card', '--card'), UsageError, text);
  });
});

describe('exit codes of client errors', () => {
  const cases: Array<[string, number | null, number]> = [
    ['daemon_unreachable', null, EXIT.daemonUnreachable],
    ['upstream_unavailable', 502, EXIT.upstreamUnavailable],
    ['upstream_unavailable', 504, EXIT.upstreamUnavailable],
    ['token_unreadable', null, EXIT.dataDir],
    ['invalid_request', 400, EXIT.usage],
    ['card_data_not_accepted', 400, EXIT.usage],
    ['insufficient_funds', 402, EXIT.refused],
    ['scope_mismatch', 403, EXIT.refused],
    ['card_not_found', 404, EXIT.refused],
    ['local_key_not_recognized', 401, EXIT.refused],
    ['device_not_enrolled', 409, EXIT.refused],
    ['verification_cap_exceeded', 429, EXIT.refused],
    ['daemon_no_answer', null, EXIT.failure],
    ['invalid_response', 200, EXIT.failure],
    ['internal_error', 500, EXIT.failure],
    ['data_directory_unavailable', 503, EXIT.dataDir],
    ['some_future_code', 503, EXIT.failure],
    ['some_future_code', 418, EXIT.refused],
  ];
  for (const [code, status, exit] of cases) {
    test(`${code} (${status}) → ${exit}`, () => assert.equal(exitCodeForClientError(new LatchClientError({ code, status })), exit));
  }
});
