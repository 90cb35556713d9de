/**
 * `npm run release`: the release kit in release/<version>/ (shared/spec/release-kit.md,
 * docs/packaging.md "Checking a release"):
 *
 *     LATCH_RELEASE_KEY=/path/to/minisign.key npm run release     the maintainers' signed kit
 *     npm run release                                            a reviewer's rebuild (unsigned)
 *
 * The times inside every file come from SOURCE_DATE_EPOCH, by default HEAD's commit time, so a
 * rebuild of the same commit with the same Node.js gives the same bytes.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packageVersion, REPO_ROOT } from './build-bundles.js';
import { keyIdHex, readSecretKey, type ReleaseKey } from './release/minisign.js';
import { buildRelease } from './release/release-kit.js';

/** sourceDateEpoch is SOURCE_DATE_EPOCH (whole seconds), else HEAD's commit time. */
function sourceDateEpoch(): number {
  const given = process.env['SOURCE_DATE_EPOCH'];
  if (given !== undefined && given !== '') {
    if (!/^[0-9]{1,12}$/.test(given)) throw new Error(`SOURCE_DATE_EPOCH must be whole seconds since 1970 (got ${JSON.stringify(given)})`);
    return Number(given);
  }
  const head = spawnSync('git', ['log', '-1', '--format=%ct', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' });
  const seconds = head.stdout?.trim() ?? '';
  if (head.status !== 0 || !/^[0-9]+$/.test(seconds)) throw new Error('SOURCE_DATE_EPOCH is not set and HEAD has no commit time (not a git checkout?): set SOURCE_DATE_EPOCH');
  return Number(seconds);
}

/** releaseKey reads the key file LATCH_RELEASE_KEY names; undefined when it names none. */
async function releaseKey(): Promise<ReleaseKey | undefined> {
  const file = process.env['LATCH_RELEASE_KEY'];
  if (file === undefined || file === '') return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`LATCH_RELEASE_KEY names ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return readSecretKey(text);
}

async function main(): Promise<void> {
  // The key is read first: a bad key stops the run before anything is built.
  const key = await releaseKey();
  const epoch = sourceDateEpoch();
  const version = packageVersion();
  const outDir = path.join(REPO_ROOT, 'release', version);
  const workDir = mkdtempSync(path.join(tmpdir(), 'latch-release-'));
  try {
    const files = await buildRelease({ version, epoch, key, outDir, workDir, log: (line) => console.log(`release: ${line}`) });
    console.log(`release/${version}/ (SOURCE_DATE_EPOCH=${epoch}):`);
    for (const file of files) console.log(`  ${file}`);
    if (key === undefined) {
      console.error('SHA256SUMS.minisig was not written: LATCH_RELEASE_KEY is not set. This is a rebuild to compare with a published release:');
      console.error(`  (cd release/${version} && sha256sum -c /path/to/the/published/SHA256SUMS)`);
    } else {
      console.log(`signed with the minisign key ${keyIdHex(key.keyId)}`);
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`release failed: ${error instanceof Error ? error.message : String(error)}`);
  console.error('release/ has no partial kit from this run.');
  process.exitCode = 1;
});
