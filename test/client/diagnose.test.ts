import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LatchClientError } from '../../src/client/client-errors.js';
import { diagnose, type DiagnosableClient } from '../../src/client/diagnose.js';
import type { CardList, Health } from '../../src/client/types.js';
import { ensureHome } from '../../src/datadir/home.js';
import { ensureToken, tokenPath } from '../../src/datadir/token.js';

let root: string;
let home: string;
before(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'latch-diagnose-'));
  home = path.join(root, 'home');
  ensureHome(home);
  ensureToken(home);
});
after(() => rmSync(root, { recursive: true, force: true }));

const HEALTHY: Health = { status: 'ok', version: '0.1.0', uptime_seconds: 3, signing_key: { key_id: 'k'.repeat(43), algorithm: 'Ed25519', public_key: 'p' } };

function fake(health: Health | LatchClientError, cards: CardList | LatchClientError, calls: string[] = []): DiagnosableClient {
  const settle = <T>(value: T | LatchClientError): Promise<T> => (value instanceof LatchClientError ? Promise.reject(value) : Promise.resolve(value));
  return {
    baseUrl: 'http://127.0.0.1:7723',
    home,
    health: () => {
      calls.push('health');
      return settle(health);
    },
    cards: () => {
      calls.push('cards');
      return settle(cards);
    },
    approvals: () => Promise.resolve({ approvals: [], has_more: false }),
    // The peer proves it is the daemon; the squatter cases are in test/adversarial/token-squatter.test.ts.
    verifyDaemon: () => Promise.resolve(),
  } as DiagnosableClient;
}

const refusal = (code: string, status: number | null = 401) => new LatchClientError({ code, status });

describe('diagnose classifies a failed server-backed call after a good /health (docs/decisions.md §7 rule 2)', () => {
  const cases: Array<[string, number | null, string, string]> = [
    ['upstream_unavailable', 502, 'cloud', 'Upstream API unavailable'],
    ['upstream_unavailable', 504, 'cloud', 'Upstream API unavailable'],
    ['local_key_not_recognized', 401, 'device_key', 'Local key not recognized'],
    ['invalid_signature', 401, 'device_key', 'Local key not recognized'],
    ['signature_expired', 401, 'device_key', 'Local key not recognized'],
    ['device_not_enrolled', 409, 'enrollment', 'Not enrolled'],
    ['invalid_bearer_token', 401, 'token', 'Missing bearer token'],
    ['token_unreadable', null, 'token', 'Missing bearer token'],
    ['daemon_unreachable', null, 'cloud', 'Local daemon unavailable'],
    ['internal_error', 500, 'cloud', 'A bug'],
  ];
  for (const [code, status, check, specClass] of cases) {
    test(`${code} → ${check}: ${specClass}`, async () => {
      const result = await diagnose(fake(HEALTHY, refusal(code, status)));
      assert.equal(result.ok, false);
      assert.equal(result.problem?.check, check);
      assert.equal(result.problem?.code, code);
      assert.equal(result.problem?.spec_class, specClass);
      assert.ok((result.problem?.remedy ?? '').length > 0);
      assert.equal(result.checks.find((c) => c.name === 'daemon')?.status, 'ok');
    });
  }
});

describe('diagnose stops at the first problem, in the spec\'s order', () => {
  test('health fails: nothing else is asked', async () => {
    const calls: string[] = [];
    const result = await diagnose(fake(refusal('daemon_unreachable', null), { cards: [] }, calls));
    assert.deepEqual(calls, ['health']);
    assert.equal(result.problem?.check, 'daemon');
    // The payment checks that read the data directory still run; the one that asks the daemon is skipped.
    assert.deepEqual(result.checks.map((c) => c.status), ['failed', 'skipped', 'skipped', 'skipped', 'skipped', 'ok', 'ok', 'skipped', 'ok']);
  });

  test('no signing key: not enrolled, and the cloud is not asked', async () => {
    const calls: string[] = [];
    const result = await diagnose(fake({ ...HEALTHY, signing_key: null }, { cards: [] }, calls));
    assert.deepEqual(calls, ['health']);
    assert.equal(result.problem?.code, 'device_not_enrolled');
  });

  test('an unsafe token file is found before the cloud is asked', async () => {
    const calls: string[] = [];
    chmodSync(tokenPath(home), 0o640);
    try {
      const result = await diagnose(fake(HEALTHY, { cards: [] }, calls));
      assert.deepEqual(calls, ['health']);
      assert.equal(result.problem?.check, 'token');
      assert.match(result.problem?.remedy ?? '', /chmod 600/);
    } finally {
      chmodSync(tokenPath(home), 0o600);
    }
  });

  test('all good', async () => {
    const result = await diagnose(fake(HEALTHY, { cards: [] }));
    assert.equal(result.ok, true);
    assert.equal(result.problem, null);
    assert.ok(result.checks.every((c) => c.status === 'ok'));
  });
});
