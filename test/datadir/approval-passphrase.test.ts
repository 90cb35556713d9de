import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  APPROVAL_PASSPHRASE_CHARS_MAX,
  APPROVAL_SCRYPT,
  approvalPassphrasePath,
  approvalPassphraseProblem,
  clearApprovalPassphrase,
  readApprovalPassphrase,
  setApprovalPassphrase,
  verifyApprovalPassphraseAsync,
} from '../../src/datadir/approval-passphrase.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { tempHome } from './temp-home.js';

const PASSPHRASE = 'correct horse battery';

test('setApprovalPassphrase stores only an scrypt hash at 0600, atomically, and it verifies', async () => {
  const home = tempHome();
  const stored = setApprovalPassphrase(home, PASSPHRASE);
  const file = approvalPassphrasePath(home);
  assert.equal(path.basename(file), 'approval_passphrase');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(home), ['approval_passphrase']);
  const text = readFileSync(file, 'utf8');
  assert.ok(!text.includes(PASSPHRASE));
  const json = JSON.parse(text) as Record<string, unknown>;
  assert.deepEqual(Object.keys(json).sort(), ['alg', 'hash', 'n', 'p', 'r', 'salt', 'v']);
  assert.equal(json['alg'], 'scrypt');
  assert.equal(json['n'], APPROVAL_SCRYPT.n);
  assert.equal(Buffer.from(json['salt'] as string, 'base64url').length, 16);
  assert.equal(Buffer.from(json['hash'] as string, 'base64url').length, 32);
  assert.deepEqual(readApprovalPassphrase(home), stored);
  assert.equal(await verifyApprovalPassphraseAsync(stored, PASSPHRASE), true);
});

test('verification refuses every other candidate', async () => {
  const stored = setApprovalPassphrase(tempHome(), PASSPHRASE);
  const wrong = ['', 'correct horse batter', `${PASSPHRASE} `, PASSPHRASE.toUpperCase(), 'x'.repeat(APPROVAL_PASSPHRASE_CHARS_MAX * 4 + 1), '\u0000'];
  for (const candidate of wrong) {
    assert.equal(await verifyApprovalPassphraseAsync(stored, candidate), false, JSON.stringify(candidate.slice(0, 30)));
  }
});

test('the same passphrase in another Unicode normalization verifies (NFC)', async () => {
  const stored = setApprovalPassphrase(tempHome(), 'caf\u00e9 au lait');
  assert.equal(await verifyApprovalPassphraseAsync(stored, 'cafe\u0301 au lait'), true);
});

test('each set uses a fresh salt, so equal passphrases give different hashes', () => {
  const home = tempHome();
  const first = setApprovalPassphrase(home, PASSPHRASE);
  const second = setApprovalPassphrase(home, PASSPHRASE);
  assert.notEqual(first.salt, second.salt);
  assert.notEqual(first.hash, second.hash);
  assert.deepEqual(readdirSync(home), ['approval_passphrase']);
});

test('passphrase bounds: too short, too long, or with control characters is refused and nothing is written', () => {
  const cases: Array<[string, RegExp]> = [
    ['', /at least 8/],
    ['1234567', /at least 8/],
    ['x'.repeat(APPROVAL_PASSPHRASE_CHARS_MAX + 1), /at most 1024/],
    ['passphrase\n', /control characters/],
    ['pass\u0000phrase', /control characters/],
  ];
  for (const [passphrase, message] of cases) {
    assert.match(approvalPassphraseProblem(passphrase) ?? '', message);
    const home = tempHome();
    assert.throws(() => setApprovalPassphrase(home, passphrase), (error: unknown) => {
      assert.ok(error instanceof DataDirError);
      assert.equal(error.code, 'invalid_value');
      if (passphrase.length > 0) assert.ok(!error.message.includes(passphrase));
      return true;
    });
    assert.deepEqual(readdirSync(home), []);
  }
  assert.equal(approvalPassphraseProblem('12345678'), undefined);
  assert.equal(approvalPassphraseProblem('x'.repeat(APPROVAL_PASSPHRASE_CHARS_MAX)), undefined);
});

test('clearApprovalPassphrase removes it and reports whether one was set', () => {
  const home = tempHome();
  assert.equal(clearApprovalPassphrase(home), false);
  setApprovalPassphrase(home, PASSPHRASE);
  assert.equal(clearApprovalPassphrase(home), true);
  assert.equal(readApprovalPassphrase(home), undefined);
  assert.equal(clearApprovalPassphrase(home), false);
});

test('readApprovalPassphrase refuses unsafe files like every data file', () => {
  const loose = tempHome();
  setApprovalPassphrase(loose, PASSPHRASE);
  chmodSync(approvalPassphrasePath(loose), 0o644);
  assert.throws(() => readApprovalPassphrase(loose), (error: unknown) => error instanceof DataDirError && error.code === 'insecure_permissions');

  const linked = tempHome();
  const target = path.join(path.dirname(linked), 'elsewhere');
  writeFileSync(target, '{}', { mode: 0o600 });
  symlinkSync(target, approvalPassphrasePath(linked));
  assert.throws(() => readApprovalPassphrase(linked), (error: unknown) => error instanceof DataDirError && error.code === 'symlink');
});

test('a damaged or weakened file is corrupt (approvals then fail closed), never "no passphrase"', () => {
  const good = setApprovalPassphrase(tempHome(), PASSPHRASE);
  const damaged: unknown[] = [
    'not json',
    [],
    { ...good, v: 2 },
    { ...good, alg: 'pbkdf2' },
    { ...good, n: 1024 },
    { ...good, n: 2 ** 15 + 1 },
    { ...good, n: 2 ** 30 },
    { ...good, r: 0 },
    { ...good, p: 99 },
    { ...good, salt: 'AAAA' },
    { ...good, hash: 'not base64url!' },
    { ...good, extra: true },
  ];
  for (const contents of damaged) {
    const home = tempHome();
    writeFileSync(approvalPassphrasePath(home), typeof contents === 'string' ? contents : JSON.stringify(contents), { mode: 0o600 });
    assert.throws(() => readApprovalPassphrase(home), (error: unknown) => error instanceof DataDirError && error.code === 'corrupt', JSON.stringify(contents));
  }
});
