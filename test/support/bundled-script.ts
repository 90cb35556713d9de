/**
 * Test programs that start as plain `node`, without tsx. A child started with `node --import tsx`
 * spends about 0.8 s of CPU loading the CLI's modules through tsx's loader before it runs a line
 * of Latch; the same code bundled by the release build (scripts/build-bundles.ts) starts in about
 * 0.1 s. The crash and process tests start dozens of such children, so each script is bundled once
 * per change of the sources and shared by every test process of every run (docs/development.md,
 * "How long the suite takes").
 *
 * The cache is a file per key in the temporary directory. The key hashes everything a bundle can
 * contain or depend on (every file under src/ and test/, the build script, the manifests, the node
 * version), so a stale bundle is never used. Concurrent test processes may build the same key at
 * once: each writes its own temporary file and renames it into place, an atomic replace of equal
 * content, so a reader sees a whole bundle or none.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

/** Where bundles are kept between runs; one file per key, a few hundred KB each. */
const CACHE_DIR = path.join(os.tmpdir(), `latch-test-bundles-${process.getuid?.() ?? 'user'}`);
const BUILD_TIMEOUT_MS = 120_000;
const PRUNE_AFTER_MS = 24 * 60 * 60 * 1000;

/** What the key covers besides src/ and test/: how a bundle is made and what it inlines. */
const BUILD_INPUTS = ['scripts/build-bundles.ts', 'package.json', 'package-lock.json', 'node_modules/esbuild/package.json', 'tsconfig.json'];

let digestOfThisTree: string | undefined;

/** digestOfSources hashes the paths and contents of every file a bundle of root's may read. */
export function digestOfSources(root: string): string {
  const hash = createHash('sha256').update(process.version);
  const files = [...listFiles(root, 'src'), ...listFiles(root, 'test'), ...BUILD_INPUTS.filter((file) => existsSync(path.join(root, file)))].sort();
  for (const file of files) {
    const content = readIfPresent(path.join(root, file));
    if (content !== undefined) hash.update(`${file}\0`).update(content).update('\0');
  }
  return hash.digest('hex');
}

function listFiles(root: string, dir: string): string[] {
  if (!existsSync(path.join(root, dir))) return [];
  return readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(path.join(root, file), { throwIfNoEntry: false })?.isFile() === true);
}

/** readIfPresent reads a file, or returns undefined when a test removed it since it was listed. */
function readIfPresent(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * bundledScript returns a CommonJS bundle that runs `script` (a path from the repository root)
 * as `node --import tsx script` would. src/cli/main.ts runs only as its own entry point, which a
 * bundle is not, so it maps to src/cli/bin-entry.ts, the entry of the shipped CLI bundle.
 */
export function bundledScript(script: string): string {
  const entry = script === 'src/cli/main.ts' ? 'src/cli/bin-entry.ts' : script;
  digestOfThisTree ??= digestOfSources(REPO_ROOT);
  const key = createHash('sha256').update(digestOfThisTree).update(entry).digest('hex').slice(0, 32);
  const file = path.join(CACHE_DIR, `${path.basename(entry, '.ts')}-${key}.cjs`);
  if (existsSync(file)) return file;
  mkdirSync(CACHE_DIR, { recursive: true, mode: 0o700 });
  const build = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'test/support/build-bundled-script.ts'), entry, file], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: BUILD_TIMEOUT_MS,
  });
  if (build.status !== 0 || !existsSync(file)) throw new Error(`bundling ${entry} for the tests failed (status ${String(build.status)}): ${build.stderr}`);
  pruneOldBundles();
  return file;
}

/**
 * pruneOldBundles removes bundles (and temporaries a killed builder left) not written for a day.
 * Only old ones: another checkout's test run on this machine may be using a bundle of its own.
 */
function pruneOldBundles(): void {
  const oldest_ms = Date.now() - PRUNE_AFTER_MS;
  for (const name of readdirSync(CACHE_DIR)) {
    const file = path.join(CACHE_DIR, name);
    try {
      if (statSync(file).mtimeMs < oldest_ms) rmSync(file, { force: true });
    } catch {
      // Removed meanwhile by a concurrent pruner.
    }
  }
}
