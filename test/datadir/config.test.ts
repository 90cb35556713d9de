import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { configPath, effectiveCloudUrl, loadConfig, normalizeCloudUrl, saveConfig, type LatchConfig } from '../../src/datadir/config.js';
import { tempHome } from './temp-home.js';

const KEY_ID = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';

test('loadConfig returns {} when config.json does not exist', () => {
  assert.deepEqual(loadConfig(tempHome()), {});
});

test('saveConfig then loadConfig round-trips every field, at 0600, with no temporary file left', () => {
  const home = tempHome();
  const config: LatchConfig = { cloud_url: 'https://api.latch.example', device_id: 'dev_abc123', key_id: KEY_ID, account_id: 'acct_9', device_name: 'Ana’s laptop' };
  saveConfig(home, config);
  assert.deepEqual(loadConfig(home), config);
  assert.equal(statSync(configPath(home)).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(home), ['config.json']);
  saveConfig(home, { cloud_url: 'http://127.0.0.1:8080' });
  assert.deepEqual(loadConfig(home), { cloud_url: 'http://127.0.0.1:8080' });
});

test('normalizeCloudUrl keeps origins and refuses everything else', () => {
  const cases: Array<[string, string | undefined]> = [
    ['https://api.latch.example', 'https://api.latch.example'],
    ['https://API.Latch.Example/', 'https://api.latch.example'],
    ['https://api.latch.example:443', 'https://api.latch.example'],
    ['https://api.latch.example:8443', 'https://api.latch.example:8443'],
    ['http://127.0.0.1:7800', 'http://127.0.0.1:7800'],
    ['http://localhost:7800/', 'http://127.0.0.1:7800'],
    ['http://[::1]:7800', 'http://[::1]:7800'],
    ['https://bücher.example', 'https://xn--bcher-kva.example'],
    ['http://api.latch.example', undefined],
    ['http://10.0.0.1', undefined],
    ['http://127.0.0.1.nip.io', undefined],
    ['https://user:pw@api.latch.example', undefined],
    ['https://api.latch.example/v1', undefined],
    ['https://api.latch.example/?', undefined],
    ['https://api.latch.example/#x', undefined],
    ['https://api.latch.example?x=1', undefined],
    ['ftp://api.latch.example', undefined],
    ['file:///etc/passwd', undefined],
    ['javascript:alert(1)', undefined],
    ['api.latch.example', undefined],
    ['', undefined],
  ];
  for (const [input, want] of cases) assert.equal(normalizeCloudUrl(input), want, input);
});

test('loadConfig refuses unknown fields, wrong types, invalid values and non-objects', () => {
  const home = tempHome();
  const bad: Array<[string, string]> = [
    ['not json', 'not valid JSON'],
    ['[]', 'JSON object'],
    ['null', 'JSON object'],
    ['"x"', 'JSON object'],
    [JSON.stringify({ cloud_ur1: 'https://a.example' }), 'unknown field "cloud_ur1"'],
    [JSON.stringify({ cloud_url: 42 }), 'invalid value for "cloud_url"'],
    [JSON.stringify({ cloud_url: 'http://evil.example' }), 'invalid value for "cloud_url"'],
    [JSON.stringify({ device_id: '' }), 'invalid value for "device_id"'],
    [JSON.stringify({ device_id: 'dev id' }), 'invalid value for "device_id"'],
    [JSON.stringify({ device_id: 'd'.repeat(129) }), 'invalid value for "device_id"'],
    [JSON.stringify({ key_id: 'short' }), 'invalid value for "key_id"'],
    [JSON.stringify({ account_id: null }), 'invalid value for "account_id"'],
    [JSON.stringify({ device_name: 'a\nb' }), 'invalid value for "device_name"'],
    [JSON.stringify({ device_name: 'x'.repeat(65) }), 'invalid value for "device_name"'],
    [JSON.stringify({ device_name: ' padded ' }), 'invalid value for "device_name"'],
    [JSON.stringify({ device_name: 'zero\u200bwidth' }), 'invalid value for "device_name"'],
    ['{"__proto__":{"device_id":"dev_1"}}', 'unknown field "__proto__"'],
  ];
  for (const [text, message] of bad) {
    writeFileSync(configPath(home), text, { mode: 0o600 });
    assert.throws(() => loadConfig(home), (error: unknown) => {
      assert.ok(error instanceof DataDirError, text);
      assert.equal(error.code, 'corrupt', text);
      assert.ok(error.message.includes(message), `${text}: ${error.message}`);
      assert.equal(error.file, configPath(home));
      return true;
    });
  }
});

test('saveConfig refuses invalid values and leaves the existing file unchanged', () => {
  const home = tempHome();
  saveConfig(home, { device_id: 'dev_1' });
  const before = readFileSync(configPath(home), 'utf8');
  const bad: unknown[] = [{ cloud_url: 'http://evil.example' }, { key_id: 'x' }, { extra: 'y' }];
  for (const config of bad) {
    assert.throws(() => saveConfig(home, config as LatchConfig), (error: unknown) => error instanceof DataDirError && error.code === 'invalid_value');
  }
  assert.equal(readFileSync(configPath(home), 'utf8'), before);
});

test('config.json with loose permissions is refused', () => {
  const home = tempHome();
  saveConfig(home, {});
  chmodSync(configPath(home), 0o644);
  assert.throws(() => loadConfig(home), (error: unknown) => error instanceof DataDirError && error.code === 'insecure_permissions');
});

test('effectiveCloudUrl: LATCH_CLOUD_URL overrides config, empty is unset, invalid is an error', () => {
  const config: LatchConfig = { cloud_url: 'https://from-file.example' };
  assert.equal(effectiveCloudUrl(config, {}), 'https://from-file.example');
  assert.equal(effectiveCloudUrl(config, { LATCH_CLOUD_URL: '' }), 'https://from-file.example');
  assert.equal(effectiveCloudUrl(config, { LATCH_CLOUD_URL: 'http://127.0.0.1:9/' }), 'http://127.0.0.1:9');
  assert.equal(effectiveCloudUrl({}, {}), undefined);
  assert.throws(() => effectiveCloudUrl(config, { LATCH_CLOUD_URL: 'http://evil.example' }), (error: unknown) => {
    assert.ok(error instanceof DataDirError);
    assert.equal(error.code, 'invalid_value');
    assert.equal(error.file, 'LATCH_CLOUD_URL');
    return true;
  });
});
