/**
 * The single binary (Node single executable application, Node 20): a copy of the running `node`
 * with the CLI bundle injected as a preparation blob by postject (a dev-only tool, decisions §0).
 * The binary runs the bundle instead of a script named on its command line, and needs no
 * node_modules: the bundle requires only Node's built-in modules.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './build-bundles.js';

/**
 * The fuse postject flips so that the binary looks for the injected blob. It is a constant of
 * Node's own build, quoted from the Node 20 documentation of single executable applications.
 */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** A single binary build's inputs. */
export interface SeaOptions {
  /** The CommonJS bundle to inject (dist/latch.cjs). */
  script: string;
  /** Where the binary goes (dist/latch). */
  outFile: string;
  /** A directory for the configuration and the blob, which are removed afterwards. */
  workDir: string;
  /**
   * Whether the blob carries V8's compiled code (default true). It is made with V8's
   * --predictable, which makes it the same bytes on every build (docs/decisions.md §24.2).
   */
  useCodeCache?: boolean;
  /**
   * Whether to remove the copied node's symbol tables and debug information with binutils'
   * `strip` before injecting (default true): about 12 MB less, and nothing Latch uses needs them.
   */
  strip?: boolean;
}

/** What one binary build produced. */
export interface SeaReport {
  bytes: number;
  /** The binary's SHA-256 (hex): what a reviewer who rebuilds the same commit compares. */
  sha256: string;
}

/**
 * buildSea makes the binary. The build is reproducible (docs/decisions.md §24.2): the blob names
 * its script by a relative name, not the checkout's path, and V8 writes the code cache
 * deterministically, so two checkouts of one commit in different directories, built with the same
 * node, give byte-identical binaries (test/build/reproducible-sea.test.ts).
 */
export function buildSea(options: SeaOptions): SeaReport {
  // macOS and Windows also need the signature removed and re-applied around the injection.
  if (process.platform !== 'linux') throw new Error('build:sea is set up for Linux only (macOS and Windows need code signing steps)');
  const config = path.join(options.workDir, 'sea-config.json');
  const blob = path.join(options.workDir, 'latch.blob');
  // The blob stores the script's name as the config gives it, so it is given relative to workDir.
  const script = path.join(options.workDir, SCRIPT_NAME);
  copyFileSync(options.script, script);
  writeFileSync(
    config,
    JSON.stringify({
      main: SCRIPT_NAME,
      output: 'latch.blob',
      // The warning would be printed on every start of `latch`, and to users it is noise.
      disableExperimentalSEAWarning: true,
      useSnapshot: false,
      useCodeCache: options.useCodeCache ?? true,
    }),
  );
  try {
    // The blob must come from the very node binary it is injected into; both are process.execPath.
    // --predictable: without it the code cache differs from build to build (hash seeds, threads).
    run(process.execPath, ['--predictable', '--experimental-sea-config', config], options.workDir);
    rmSync(options.outFile, { force: true });
    copyFileSync(process.execPath, options.outFile);
    chmodSync(options.outFile, 0o755);
    if (options.strip ?? true) run('strip', [options.outFile]);
    const postject = path.join(REPO_ROOT, 'node_modules', 'postject', 'dist', 'cli.js');
    run(process.execPath, [postject, options.outFile, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', SEA_FUSE]);
  } finally {
    rmSync(config, { force: true });
    rmSync(blob, { force: true });
    rmSync(script, { force: true });
  }
  return { bytes: statSync(options.outFile).size, sha256: createHash('sha256').update(readFileSync(options.outFile)).digest('hex') };
}

/** The script's name inside the blob: the same in every checkout. */
const SCRIPT_NAME = 'latch.cjs';

/**
 * run runs one build tool and keeps its chatter (postject prints progress and harmless warnings
 * about ELF note names) unless it fails, when its output becomes the error.
 */
function run(program: string, args: string[], cwd?: string): void {
  const result = spawnSync(program, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...(cwd !== undefined && { cwd }) });
  if (result.error !== undefined) {
    const missing = (result.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(missing ? `${program} was not found${program === 'strip' ? ' (install binutils, or build with --no-strip)' : ''}` : result.error.message);
  }
  if (result.status !== 0) throw new Error(`${path.basename(program)} ${path.basename(args[0] ?? '')} failed (${result.status ?? result.signal}):\n${result.stdout}${result.stderr}`);
}
