/**
 * The npm package's smoke test (CI runs it after the binary's):
 *
 *     tsx scripts/pack-smoke.ts
 *
 * `npm pack` (whose prepack builds the bundles), then `npm install -g` of that tarball into a
 * temporary prefix, then the end-to-end flow with the installed `latch` on a PATH that holds node
 * and nothing of this repository, then an embedding program and a TypeScript consumer that import
 * the installed package by name. A watchdog ends everything after five minutes.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { packageVersion, REPO_ROOT } from './build-bundles.js';
import { smokeFlow } from './smoke-flow.js';
import { Checklist, expect, watchdog } from './smoke-kit.js';

/** run runs a tool to completion within timeoutMs and returns its stdout, throwing with its output on failure. */
function run(program: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): string {
  const result = spawnSync(program, args, { cwd: options.cwd, env: options.env ?? process.env, encoding: 'utf8', timeout: options.timeoutMs, stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.error !== undefined) throw result.error;
  if (result.status !== 0) throw new Error(`${path.basename(program)} ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

const EMBED_PROGRAM = `
import { createDaemon, LatchClient, latchVersion } from 'latch';
const home = process.argv[2];
const daemon = createDaemon({ home, portA: 0, variantB: false, env: {}, logStream: process.stderr });
const { portA } = await daemon.listen();
const client = new LatchClient({ home, baseUrl: 'http://127.0.0.1:' + portA, env: {}, timeoutMs: 5000 });
const health = await client.health();
client.close();
await daemon.close({ deadlineMs: 1000 });
console.log(JSON.stringify({ status: health.status, version: health.version, library: latchVersion() }));
`;

// CommonJS gets the ES-module entries through require(esm): unflagged from Node 20.19.
const COMMONJS_PROGRAM = `
const { createDaemon, latchVersion } = require('latch');
const { createSandbox } = require('latch/sandbox');
console.log(JSON.stringify({ createDaemon: typeof createDaemon, createSandbox: typeof createSandbox, version: latchVersion() }));
`;

/**
 * packedSizesInDocs reads the sentence in docs/packaging.md that states the tarball's size and its
 * unpacked size: "The npm tarball is N kB (M MB unpacked".
 */
function packedSizesInDocs(): { packedKb: number; unpackedMb: number } {
  const match = /The npm tarball is ([0-9]+) kB \(([0-9.]+) MB unpacked/.exec(readFileSync(path.join(REPO_ROOT, 'docs', 'packaging.md'), 'utf8'));
  if (match === null) throw new Error('docs/packaging.md does not state the tarball size');
  return { packedKb: Number(match[1]), unpackedMb: Number(match[2]) };
}

/** near reports whether actual is within 10% of stated. */
const near = (actual: number, stated: number): boolean => Math.abs(actual - stated) <= stated * 0.1;

const TYPESCRIPT_CONSUMER = `
import { createDaemon, LatchClient, LatchClientError, resolveHome, type DaemonOptions, type Health } from 'latch';
const options: DaemonOptions = { home: resolveHome(), portA: 0, variantB: false };
const daemon = createDaemon(options);
const health: Promise<Health> = new LatchClient().health();
const code: string | undefined = new Error() instanceof LatchClientError ? 'x' : undefined;
export { daemon, health, code };
`;

async function main(): Promise<number> {
  const disarm = watchdog(300_000, 'pack smoke');
  const root = mkdtempSync(path.join(tmpdir(), 'latch-pack-smoke-'));
  chmodSync(root, 0o700);
  const checks = new Checklist('pack');
  const nodeOnlyPath = path.dirname(process.execPath);
  try {
    const tarball = await checks.check('npm pack builds the bundles and packs them without sources or tests', () => {
      const out = run('npm', ['pack', '--json', '--pack-destination', root], { cwd: REPO_ROOT, timeoutMs: 180_000 });
      // The prepack build's own lines come first on stdout; npm's JSON report starts at a line '['.
      const [report] = JSON.parse(out.slice(out.search(/^\[$/m))) as Array<{ filename: string; size: number; unpackedSize: number; files: Array<{ path: string }> }>;
      expect(report !== undefined, 'npm pack report');
      const stated = packedSizesInDocs();
      const measured = `${Math.round(report.size / 1000)} kB packed, ${(report.unpackedSize / 1e6).toFixed(2)} MB unpacked`;
      expect(near(report.size / 1000, stated.packedKb) && near(report.unpackedSize / 1e6, stated.unpackedMb), `docs/packaging.md states the tarball's sizes (measured ${measured})`, stated);
      const files = report.files.map((f) => f.path);
      for (const needed of ['bin/latch.js', 'dist/latch.cjs', 'dist/index.js', 'dist/types/index.d.ts', 'package.json']) expect(files.includes(needed), `${needed} is packed`, files);
      expect(!files.some((f) => /^(src|test|scripts|bench)\//.test(f)), 'no sources, tests or scripts', files);
      return path.join(root, report.filename);
    });

    const prefix = path.join(root, 'prefix');
    const installed = path.join(prefix, 'lib', 'node_modules', 'latch');
    await checks.check('npm install -g of the tarball into a temporary prefix installs only the noble packages beside it', () => {
      run('npm', ['install', '--global', '--prefix', prefix, tarball, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: root, timeoutMs: 180_000 });
      expect(existsSync(path.join(prefix, 'bin', 'latch')), 'prefix/bin/latch exists');
      const deps = readdirSync(path.join(installed, 'node_modules', '@noble')).sort();
      expect(JSON.stringify(readdirSync(path.join(installed, 'node_modules'))) === '["@noble"]' && JSON.stringify(deps) === '["ed25519","hashes"]', 'dependencies', deps);
    });

    await smokeFlow(checks, { latch: { name: 'installed', program: path.join(prefix, 'bin', 'latch'), prefix: [] }, root, env: { HOME: root, PATH: nodeOnlyPath } });

    const app = path.join(root, 'app');
    mkdirSync(path.join(app, 'node_modules'), { recursive: true });
    symlinkSync(installed, path.join(app, 'node_modules', 'latch'), 'dir');
    writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'embedder', private: true, type: 'module' }));
    await checks.check("a program embeds a daemon with import { createDaemon, LatchClient } from 'latch'", () => {
      writeFileSync(path.join(app, 'embed.mjs'), EMBED_PROGRAM);
      const out = run(process.execPath, ['embed.mjs', path.join(root, 'embedded-home')], { cwd: app, env: { HOME: root, PATH: nodeOnlyPath }, timeoutMs: 30_000 });
      const version = packageVersion();
      expect(out.trim() === JSON.stringify({ status: 'ok', version, library: version }), 'embedding output', out);
    });
    await checks.check("a CommonJS program require()s 'latch' and 'latch/sandbox' (Node 20.19 or later)", () => {
      writeFileSync(path.join(app, 'embed.cjs'), COMMONJS_PROGRAM);
      const out = run(process.execPath, ['embed.cjs'], { cwd: app, env: { HOME: root, PATH: nodeOnlyPath }, timeoutMs: 30_000 });
      expect(out.trim() === JSON.stringify({ createDaemon: 'function', createSandbox: 'function', version: packageVersion() }), 'require output', out);
    });
    await checks.check("TypeScript type-checks a consumer against the package's declarations", () => {
      writeFileSync(path.join(app, 'consumer.ts'), TYPESCRIPT_CONSUMER);
      const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
      const flags = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--typeRoots', path.join(REPO_ROOT, 'node_modules', '@types')];
      run(process.execPath, [tsc, ...flags, 'consumer.ts'], { cwd: app, timeoutMs: 120_000 });
    });
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
