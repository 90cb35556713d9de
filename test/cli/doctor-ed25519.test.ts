/**
 * `latch doctor` reports which Ed25519 verifier this build chose at start (docs/decisions.md §39.1):
 * node:crypto on this platform, noble when the platform's is refused (forced here with
 * LATCH_ED25519_ENGINE=noble, as a FIPS-mode OpenSSL would refuse it). A real process each time,
 * since the choice is made once, when the verifier loads.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

const MAIN = path.resolve(import.meta.dirname, '../../src/cli/main.ts');

function doctorJson(extraEnv: NodeJS.ProcessEnv): Promise<{ ed25519_verify: { engine: string; reason: string }; human: string }> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'latch-doctor-ed-'));
  const env = { PATH: process.env['PATH'], HOME: home, LATCH_HOME: path.join(home, 'latch'), LATCH_URL: 'http://127.0.0.1:9', ...extraEnv };
  const run = (args: string[]) =>
    new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--import', 'tsx', MAIN, ...args], { env, timeout: 60_000 }, (error, stdout) => {
        if (error !== null && error.killed) reject(new Error(`latch ${args.join(' ')} did not finish within 60 s`));
        else resolve(stdout);
      });
    });
  return Promise.all([run(['doctor', '--json']), run(['doctor'])])
    .then(([json, human]) => ({ ...JSON.parse(json), human }))
    .finally(() => rmSync(home, { recursive: true, force: true }));
}

test('doctor reports node:crypto on this platform, and noble when the platform engine is refused', async () => {
  const platform = await doctorJson({});
  assert.equal(platform.ed25519_verify.engine, 'node:crypto');
  assert.match(platform.human, /Ed25519 verification: node:crypto \(/);
  const fallback = await doctorJson({ LATCH_ED25519_ENGINE: 'noble' });
  assert.equal(fallback.ed25519_verify.engine, 'noble');
  assert.match(fallback.human, /Ed25519 verification: noble \(LATCH_ED25519_ENGINE=noble\)/);
});
