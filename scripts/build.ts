/**
 * The build:
 *
 *     tsx scripts/build.ts         dist/latch.cjs (CLI), dist/index.js + dist/sandbox.js + dist/x402.js + dist/types/ (library)
 *     tsx scripts/build.ts --sea   the same, then the single binary dist/latch
 *                                  (--no-strip keeps node's symbols; --no-code-cache for comparison)
 *
 * `npm run build:js` and `npm run build:sea` call it; `npm pack` runs the first via prepack.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { bundleCli, bundleLibrary, bundleSandbox, bundleX402, emitTypes, REPO_ROOT, type BundleReport } from './build-bundles.js';
import { buildSea } from './build-sea.js';

const DIST = path.join(REPO_ROOT, 'dist');

function describe(report: BundleReport): string {
  const inside = report.bundled.map((p) => `${p.name}@${p.version}`).join(', ');
  return `${path.relative(REPO_ROOT, report.file)}  ${report.bytes} bytes${inside === '' ? '' : `  (inlines ${inside})`}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { sea: { type: 'boolean', default: false }, 'no-strip': { type: 'boolean', default: false }, 'no-code-cache': { type: 'boolean', default: false } },
    strict: true,
  });
  // Only what this build writes is replaced; dist/latch stays until a --sea build replaces it.
  rmSync(path.join(DIST, 'types'), { recursive: true, force: true });
  const cli = await bundleCli(path.join(DIST, 'latch.cjs'));
  console.log(describe(cli));
  console.log(describe(await bundleLibrary(path.join(DIST, 'index.js'))));
  console.log(describe(await bundleSandbox(path.join(DIST, 'sandbox.js'))));
  console.log(describe(await bundleX402(path.join(DIST, 'x402.js'))));
  console.log(`dist/types/  ${emitTypes(path.join(DIST, 'types')).length} declaration files`);
  if (values.sea === true) {
    const workDir = mkdtempSync(path.join(tmpdir(), 'latch-sea-'));
    try {
      const sea = buildSea({ script: cli.file, outFile: path.join(DIST, 'latch'), workDir, strip: values['no-strip'] !== true, useCodeCache: values['no-code-cache'] !== true });
      console.log(`dist/latch  ${sea.bytes} bytes (Node ${process.version} single executable)`);
      console.log(`dist/latch  sha256 ${sea.sha256}`);
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  }
}

main().catch((error: unknown) => {
  console.error(`build failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
