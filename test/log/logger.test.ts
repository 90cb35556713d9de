import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger, type LogLevel } from '../../src/log/logger.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { createDeviceKey } from '../support/device-key.js';
import { ensureHome } from '../../src/datadir/home.js';
import { toBase64Url } from '../../src/crypto/base64url.js';
import { secretOf } from '../support/raw-signing.js';

const FIXED = new Date('2025-01-02T03:04:05.000Z');
const PAN = '4111 1111 1111 1111';

function capture(level?: LogLevel): { lines: () => Array<Record<string, unknown>>; raw: () => string; logger: ReturnType<typeof createLogger> } {
  const chunks: string[] = [];
  const logger = createLogger({ stream: { write: (chunk: string) => chunks.push(chunk) }, now: () => FIXED, ...(level ? { level } : {}) });
  return {
    logger,
    raw: () => chunks.join(''),
    lines: () => chunks.map((chunk) => {
      assert.ok(chunk.endsWith('\n') && !chunk.slice(0, -1).includes('\n'), 'one line per event');
      return JSON.parse(chunk) as Record<string, unknown>;
    }),
  };
}

test('each event is one JSON line with time, level, event and the fields', () => {
  const { logger, lines } = capture();
  logger.info('daemon_listening', { port_a: 7723, port_b: null, ok: true });
  logger.warn('device_key_raw', {});
  logger.error('internal_error');
  assert.deepEqual(lines(), [
    { time: FIXED.toISOString(), level: 'info', event: 'daemon_listening', port_a: 7723, port_b: null, ok: true },
    { time: FIXED.toISOString(), level: 'warn', event: 'device_key_raw' },
    { time: FIXED.toISOString(), level: 'error', event: 'internal_error' },
  ]);
});

test('the level option drops less severe events', () => {
  const cases: Array<[LogLevel, string[]]> = [
    ['debug', ['debug', 'info', 'warn', 'error']],
    ['info', ['info', 'warn', 'error']],
    ['warn', ['warn', 'error']],
    ['error', ['error']],
    ['silent', []],
  ];
  for (const [level, want] of cases) {
    const { logger, lines } = capture(level);
    logger.debug('e');
    logger.info('e');
    logger.warn('e');
    logger.error('e');
    assert.deepEqual(lines().map((line) => line['level']), want, level);
  }
});

test('a registered token never appears in the output, wherever it is put', () => {
  const { logger, raw, lines } = capture('debug');
  const token = randomBytes(32).toString('base64url');
  logger.addSecret(token);
  logger.info('request', { note: `header was ${token}`, nested: { deeper: [`x${token}y`, { t: token }] } });
  logger.info('request', { [token]: 'as a key' });
  logger.info(`event_${token}`);
  logger.error('failed', { cause: new Error(`could not use ${token}`) });
  logger.debug('many', { list: [token, token, token] });
  logger.warn('count', { big: BigInt(5), text: token.repeat(3) });
  assert.ok(!raw().includes(token), 'the token leaked');
  // Half a token must not survive either (the cut happens after redaction).
  assert.ok(!raw().includes(token.slice(0, 20)));
  assert.equal(lines().length, 6);
  assert.ok(raw().includes('[redacted]'));
});

test('bearer credentials are redacted even when not registered', () => {
  const { logger, raw } = capture();
  logger.info('request', { header: 'Authorization: Bearer abcdefghijklmnop', other: 'bearer zyxwvutsrq, next' });
  assert.ok(!raw().includes('abcdefghijklmnop'));
  assert.ok(!raw().includes('zyxwvutsrq'));
  assert.ok(raw().includes('next'));
});

test('fields named like secrets or card data are redacted; ordinary product fields are kept', () => {
  const secretNames = [
    'token', 'daemon_token', 'setup_token', 'access_token', 'secret', 'secret_key', 'secretKey', 'client_secret',
    'password', 'passwd', 'passphrase', 'LATCH_KEY_PASSPHRASE', 'authorization', 'Authorization', 'proxy-authorization',
    'cookie', 'set-cookie', 'signature', 'Signature-Input', 'private_key', 'privateKey', 'api_key', 'x-api-key', 'admin_key',
    'signing_key', 'key', 'd', 'pan', 'card_number', 'cardNumber', 'cvv', 'cvc', 'cvv2', 'cid', 'security_code',
    'exp_month', 'exp_year', 'track1', 'track2', 'credentials',
  ];
  const publicNames = [
    'authorization_id', 'authorization_type', 'key_id', 'keyid', 'idempotency_key', 'public_key', 'policy_id', 'card_id',
    'merchant', 'merchant_name', 'amount', 'currency', 'request_id', 'user_agent', 'status', 'expires_at', 'last4', 'code',
  ];
  const { logger, lines } = capture();
  const fields: Record<string, unknown> = {};
  for (const name of [...secretNames, ...publicNames]) fields[name] = 'value-1';
  logger.info('fields', fields);
  const [line] = lines();
  assert.ok(line);
  for (const name of secretNames) assert.equal(line[name], '[redacted]', name);
  for (const name of publicNames) assert.equal(line[name], 'value-1', name);
});

test('secret-named fields are redacted at any depth and whatever their type', () => {
  const { logger, raw } = capture();
  logger.info('nested', { headers: { authorization: 'Basic dXNlcjpwYXNz', accept: 'application/json' }, list: [{ token: { inner: 'tok-abc-123' } }], password: 12345678 });
  assert.ok(!raw().includes('dXNlcjpwYXNz'));
  assert.ok(!raw().includes('tok-abc-123'));
  assert.ok(!raw().includes('12345678'));
  assert.ok(raw().includes('application/json'));
});

test('card numbers are withheld from strings and numbers; other numbers are kept', () => {
  const { logger, lines, raw } = capture();
  logger.info('card', {
    spaced: `pay with ${PAN} now`,
    dashed: '4111-1111-1111-1111',
    plain: '5555555555554444',
    number: 4111111111111111,
    unix_ms: 1735787045000,
    amount: 1250,
    not_luhn: '4111111111111112',
  });
  const [line] = lines();
  assert.ok(line);
  for (const key of ['spaced', 'dashed', 'plain', 'number']) assert.equal(line[key], '[redacted]', key);
  assert.equal(line['unix_ms'], 1735787045000);
  assert.equal(line['amount'], 1250);
  assert.equal(line['not_luhn'], '4111111111111112');
  assert.ok(!raw().includes('1111 1111'));
});

test('errors are logged by name, code and message only, never with a stack', () => {
  const { logger, lines, raw } = capture();
  const plain = new Error('boom');
  const latch = new LatchError('card_not_found');
  const errno = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
  logger.error('failed', { plain, latch, errno });
  const [line] = lines();
  assert.ok(line);
  assert.deepEqual(line['plain'], { name: 'Error', message: 'boom' });
  assert.deepEqual(line['latch'], { name: 'LatchError', code: 'card_not_found', message: latch.message });
  assert.deepEqual(line['errno'], { name: 'Error', code: 'EACCES', message: 'EACCES: permission denied' });
  assert.ok(!raw().includes('logger.test.ts'), 'no stack frames');
  assert.ok(!raw().includes('    at '));
});

test('bytes are never dumped, and a device key logs public material only', () => {
  const home = path.join(mkdtempSync(path.join(os.tmpdir(), 'latch-log-')), 'h');
  try {
    ensureHome(home);
    const key = createDeviceKey(home);
    const { logger, lines, raw } = capture();
    logger.info('key', { device: key, bytes: secretOf(key), buffer: Buffer.from(secretOf(key)) });
    const [line] = lines();
    assert.ok(line);
    assert.equal(line['bytes'], '[bytes]');
    assert.equal(line['buffer'], '[bytes]');
    assert.ok(!raw().includes(toBase64Url(secretOf(key))));
    assert.ok(raw().includes(key.keyId));
  } finally {
    rmSync(path.dirname(home), { recursive: true, force: true });
  }
});

test('fields cannot forge time, level or event, and __proto__ is plain data', () => {
  const { logger, lines } = capture();
  logger.info('real', JSON.parse('{"time":"1970","level":"error","event":"forged","__proto__":{"polluted":true}}') as Record<string, unknown>);
  const [line] = lines();
  assert.ok(line);
  assert.equal(line['time'], FIXED.toISOString());
  assert.equal(line['level'], 'info');
  assert.equal(line['event'], 'real');
  assert.equal(line['field_event'], 'forged');
  assert.deepEqual(Object.getOwnPropertyDescriptor(line, '__proto__')?.value, { polluted: true });
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
});

test('cycles, depth, long strings, long arrays and odd values are bounded', () => {
  const { logger, lines } = capture();
  const cyclic: Record<string, unknown> = { name: 'a' };
  cyclic['self'] = cyclic;
  let deep: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < 20; i += 1) deep = { deep };
  logger.info('bounds', {
    cyclic,
    deep,
    long: 'x'.repeat(5000),
    huge: 'y'.repeat(2 * 1024 * 1024),
    list: Array.from({ length: 150 }, (_, i) => i),
    nan: Number.NaN,
    when: FIXED,
    fn: () => 1,
    missing: undefined,
    map: new Map([[1, 2]]),
  });
  const [line] = lines();
  assert.ok(line);
  assert.deepEqual(line['cyclic'], { name: 'a', self: '[circular]' });
  assert.ok(JSON.stringify(line['deep']).includes('[depth limit]'));
  assert.ok((line['long'] as string).length < 2100);
  assert.equal(line['huge'], '[omitted: too long]');
  assert.equal((line['list'] as unknown[]).length, 101);
  assert.equal(line['nan'], 'NaN');
  assert.equal(line['when'], FIXED.toISOString());
  assert.equal('fn' in line, false);
  assert.equal('missing' in line, false);
  assert.equal(line['map'], '[Map]');
});

test('an event name that is not a plain constant is redacted rather than trusted', () => {
  const { logger, lines } = capture();
  logger.info(`paid ${PAN}`);
  logger.info('line\nbreak');
  const [first, second] = lines();
  assert.equal(first?.['event'], '[redacted]');
  assert.equal(second?.['event'], 'line\nbreak');
});

test('a failing stream never makes logging throw', () => {
  const logger = createLogger({ stream: { write: () => { throw new Error('EPIPE'); } } });
  assert.doesNotThrow(() => logger.error('anything', { a: 1 }));
});

test('addSecret refuses values too short to redact safely', () => {
  const { logger } = capture();
  for (const bad of ['', 'a', '1234567']) assert.throws(() => logger.addSecret(bad), TypeError);
  assert.doesNotThrow(() => logger.addSecret('12345678'));
});
