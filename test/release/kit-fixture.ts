/**
 * The kit test/release/release-kit.check.ts checks, built once: the single binary once, then the
 * rest of the kit twice (release-a/, release-b/) with the same SOURCE_DATE_EPOCH and a throwaway
 * minisign key made by `minisign -G -W` in a temporary directory, never kept.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleCli, packageVersion } from '../../scripts/build-bundles.js';
import { buildSea } from '../../scripts/build-sea.js';
import { readSecretKey, type ReleaseKey } from '../../scripts/release/minisign.js';
import { buildRelease } from '../../scripts/release/release-kit.js';

/**
 * A single binary just built from this checkout (CI's dist/latch, from `npm run build:sea` a step
 * before), so CI builds it once; without it the fixture builds its own.
 */
export const KIT_BINARY_ENV = 'LATCH_KIT_BINARY';

/** The SOURCE_DATE_EPOCH of both runs (2025-11-24T16:00:00Z). */
export const KIT_EPOCH = 1764000000;

const has = (program: string, args: string[]) => spawnSync(program, args, { stdio: 'ignore' }).status === 0;

/** Why the kit cannot be built here, or false. */
export const KIT_SKIP: string | false =
  process.platform !== 'linux' ? 'the release is built on Linux'
  : !has('strip', ['--version']) ? 'needs binutils strip (the single binary)'
  : !has('dpkg-deb', ['--version']) ? 'needs dpkg-deb (the Debian package)'
  : !has('minisign', ['-v']) ? 'needs minisign, for the throwaway key (Debian package minisign; .ci/run installs it)'
  : false;

/** Two runs' kits, the key that signed them, and a scratch folder, all removed by cleanUp. */
export interface BuiltKit {
  first: string;
  second: string;
  key: ReleaseKey;
  scratch: string;
  cleanUp(): void;
}

/** buildKitOnce builds the binary, the key and the two kits. */
export async function buildKitOnce(): Promise<BuiltKit> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'latch-release-kit-'));
  // Others may read the kit: the install test runs the packaged binary as other users.
  chmodSync(root, 0o755);
  const cleanUp = () => rmSync(root, { recursive: true, force: true });
  try {
    const version = packageVersion();
    const binary = process.env[KIT_BINARY_ENV] ?? path.join(root, 'latch');
    if (process.env[KIT_BINARY_ENV] === undefined) {
      const cli = await bundleCli(path.join(root, 'cli', 'latch.cjs'));
      mkdirSync(path.join(root, 'sea'));
      buildSea({ script: cli.file, outFile: binary, workDir: path.join(root, 'sea') });
    }
    const keyDir = path.join(root, 'key');
    mkdirSync(keyDir, { mode: 0o700 });
    const made = spawnSync('minisign', ['-G', '-W', '-p', 'release.pub', '-s', 'release.key'], { cwd: keyDir, encoding: 'utf8', input: '' });
    if (made.status !== 0) throw new Error(`minisign -G: ${made.stdout}${made.stderr}`);
    const key = await readSecretKey(readFileSync(path.join(keyDir, 'release.key'), 'utf8'));
    rmSync(path.join(keyDir, 'release.key'));
    const kits: string[] = [];
    for (const run of ['release-a', 'release-b']) {
      const workDir = mkdtempSync(path.join(root, `${run}-work-`));
      const outDir = path.join(root, run, version);
      await buildRelease({ version, epoch: KIT_EPOCH, key, outDir, workDir, binary });
      rmSync(workDir, { recursive: true, force: true });
      kits.push(outDir);
    }
    const scratch = path.join(root, 'scratch');
    mkdirSync(scratch);
    return { first: kits[0] as string, second: kits[1] as string, key, scratch, cleanUp };
  } catch (error) {
    cleanUp();
    throw error;
  }
}
