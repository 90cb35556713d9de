/**
 * The single binary's smoke test (CI runs it after `npm run build:sea`):
 *
 *     tsx scripts/sea-smoke.ts [--binary dist/latch] [--node-options '--disable-wasm-trap-handler']
 *
 * The binary is copied alone into an empty temporary directory and run there with an empty PATH
 * and no NODE_OPTIONS, so it can use no node_modules, no tsx and no other node. The sandbox cloud
 * and the daemon are both the binary. A watchdog ends everything after two minutes.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from './build-bundles.js';
import { binaryProgram } from './latch-process.js';
import { smokeFlow } from './smoke-flow.js';
import { Checklist, watchdog } from './smoke-kit.js';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { binary: { type: 'string', default: path.join(REPO_ROOT, 'dist', 'latch') }, 'node-options': { type: 'string' } },
    strict: true,
  });
  const disarm = watchdog(120_000, 'sea smoke');
  const root = mkdtempSync(path.join(tmpdir(), 'latch-sea-smoke-'));
  chmodSync(root, 0o700);
  const checks = new Checklist('sea');
  try {
    mkdirSync(path.join(root, 'bin'));
    const binary = path.join(root, 'bin', 'latch');
    copyFileSync(path.resolve(values.binary ?? ''), binary);
    chmodSync(binary, 0o755);
    // --node-options sets NODE_OPTIONS for the binary only (docs/packaging.md, locked-down deployment).
    const nodeOptions = values['node-options'] === undefined ? {} : { NODE_OPTIONS: values['node-options'] };
    await smokeFlow(checks, { latch: binaryProgram(binary), root, env: { HOME: root, PATH: '', ...nodeOptions } });
  } catch (error) {
    checks.settle(error);
  } finally {
    rmSync(root, { recursive: true, force: true });
    disarm();
  }
  return checks.summary();
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
