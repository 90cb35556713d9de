/**
 * The forms section 5 starts, each for the daemon and for the bare baseline server alike: the CLI
 * bundle under plain node, the single binary (Node SEA), and the sources under tsx (for
 * developers only; no user runs it). The bundles and binaries are built fresh into the run
 * directory with the release build's own functions (scripts/build-bundles.ts, scripts/build-sea.ts),
 * so that the figures are of the tree being measured and never of a stale dist/.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { bundleCli, bundleScript } from '../scripts/build-bundles.js';
import { buildSea } from '../scripts/build-sea.js';
import { bundleProgram, binaryProgram, type LatchProgram } from '../scripts/latch-process.js';
import type { LatchUnderTest } from './bench-stack.js';
import { REPO_ROOT } from './child-process.js';

/** One way of starting both the daemon and the bare server. */
export interface ColdForm {
  name: 'bundle' | 'binary' | 'sources';
  /** Sources under tsx: measured for developers, with no goal, because users never run them. */
  developerOnly: boolean;
  bare: LatchProgram;
  /** The daemon of each Latch under test, in the order of the latches given to buildColdForms. */
  latches: LatchProgram[];
}

/** What buildColdForms made, and why the single binary is missing when it is. */
export interface ColdForms {
  forms: ColdForm[];
  /** Set when the single binaries could not be built; the section reports it in its rows. */
  binaryMissing?: string;
}

const BARE_ENTRY = path.join(REPO_ROOT, 'bench', 'bare-server.ts');

function sourcesOf(entry: string): LatchProgram {
  return { name: 'sources', program: process.execPath, prefix: ['--import', 'tsx', entry] };
}

/**
 * buildColdForms bundles the bare server and each Latch's CLI into dir, then makes a single
 * binary of each bundle with the same node and the same SEA settings. A failed binary build
 * (not Linux, no `strip`, ...) leaves the bundle and sources forms and says why.
 */
export async function buildColdForms(dir: string, latches: readonly LatchUnderTest[]): Promise<ColdForms> {
  mkdirSync(dir, { recursive: true });
  const bareBundle = (await bundleScript(BARE_ENTRY, path.join(dir, 'bare-server.cjs'))).file;
  const latchBundles: string[] = [];
  for (const [index, latch] of latches.entries()) latchBundles.push((await bundleCli(path.join(dir, `latch-${index}.cjs`), latch.root)).file);
  const forms: ColdForm[] = [
    { name: 'bundle', developerOnly: false, bare: bundleProgram(bareBundle), latches: latchBundles.map((file) => bundleProgram(file)) },
  ];
  let binaryMissing: string | undefined;
  try {
    const seaWork = path.join(dir, 'sea-work');
    mkdirSync(seaWork, { recursive: true });
    const binary = (script: string, name: string): LatchProgram => {
      const outFile = path.join(dir, name);
      buildSea({ script, outFile, workDir: seaWork });
      return binaryProgram(outFile);
    };
    const bare = binary(bareBundle, 'bare-server');
    forms.push({ name: 'binary', developerOnly: false, bare, latches: latchBundles.map((file, index) => binary(file, `latch-${index}`)) });
    rmSync(seaWork, { recursive: true, force: true });
  } catch (error) {
    binaryMissing = error instanceof Error ? error.message.split('\n')[0] : String(error);
  }
  forms.push({ name: 'sources', developerOnly: true, bare: sourcesOf(BARE_ENTRY), latches: latches.map((latch) => sourcesOf(path.join(latch.root, 'src', 'cli', 'main.ts'))) });
  return binaryMissing === undefined ? { forms } : { forms, binaryMissing };
}
