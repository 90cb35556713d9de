/**
 * Builds one test bundle for bundled-script.ts (not a test itself), exactly as the release build
 * bundles the CLI, and renames it into place so that concurrent builders never expose half a file:
 *
 *     node --import tsx test/support/build-bundled-script.ts ENTRY OUT_FILE
 */
import { renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { bundleScript, REPO_ROOT } from '../../scripts/build-bundles.js';

const [entry, outFile] = process.argv.slice(2);
if (entry === undefined || outFile === undefined) throw new Error('usage: build-bundled-script.ts ENTRY OUT_FILE');
const temporary = `${outFile}.${process.pid}.tmp`;
try {
  await bundleScript(path.join(REPO_ROOT, entry), temporary);
  renameSync(temporary, outFile);
} finally {
  rmSync(temporary, { force: true });
}
