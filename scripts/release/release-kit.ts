/**
 * The release kit (shared/spec/release-kit.md, docs/decisions.md §38): into one directory, the
 * single binary, the npm tarball, the Debian package, the SBOM, SHA256SUMS and its minisign
 * signature. Everything is built from this checkout's sources into a work directory (dist/ is not
 * touched), with the times fixed by SOURCE_DATE_EPOCH, so two runs give the same bytes.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleCli, bundleLibrary, bundleSandbox, emitTypes, REPO_ROOT } from '../build-bundles.js';
import { buildSea } from '../build-sea.js';
import { buildDeb, debFileName } from './deb.js';
import { defaultTrustedComment, signPrehashed, type ReleaseKey } from './minisign.js';
import { buildSbom } from './sbom.js';

/** The kit's file names for a version (spec §1). */
export function kitFiles(version: string): { binary: string; tarball: string; deb: string; sbom: string; sums: string; signature: string } {
  return {
    binary: `latch-${version}-linux-x64`,
    tarball: `latch-${version}.tgz`,
    deb: debFileName(version),
    sbom: 'sbom.cdx.json',
    sums: 'SHA256SUMS',
    signature: 'SHA256SUMS.minisig',
  };
}

/** What one release run needs. */
export interface ReleaseInputs {
  version: string;
  epoch: number;
  /** The signing key; without one the kit is complete but for SHA256SUMS.minisig. */
  key: ReleaseKey | undefined;
  /** Where the kit goes (release/<version>); replaced whole, and only once every file is made. */
  outDir: string;
  /** A scratch directory, emptied by the caller. */
  workDir: string;
  /** A single binary already built from this checkout (tests build it once); else it is built. */
  binary?: string;
  /** Progress lines. */
  log?: (line: string) => void;
}

/**
 * buildRelease makes the kit in a directory beside outDir and renames it into place at the end:
 * a run that fails leaves no partial kit (and the previous one, if any, as it was).
 */
export async function buildRelease(inputs: ReleaseInputs): Promise<string[]> {
  const log = inputs.log ?? (() => undefined);
  const names = kitFiles(inputs.version);
  mkdirSync(path.dirname(inputs.outDir), { recursive: true });
  const staging = `${inputs.outDir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  try {
    const packageDir = path.join(inputs.workDir, 'package');
    log('bundles: dist/latch.cjs, dist/index.js, dist/sandbox.js, dist/types/');
    const cli = await stagePackage(packageDir);
    const binary = path.join(staging, names.binary);
    if (inputs.binary === undefined) {
      log('single binary (Node SEA)');
      const seaWork = path.join(inputs.workDir, 'sea');
      mkdirSync(seaWork);
      buildSea({ script: cli, outFile: binary, workDir: seaWork });
    } else {
      copyFileSync(inputs.binary, binary);
    }
    log('npm tarball');
    npmPack(packageDir, staging, names.tarball);
    log('Debian package');
    const debWork = path.join(inputs.workDir, 'deb');
    mkdirSync(debWork);
    buildDeb({ version: inputs.version, binary, epoch: inputs.epoch, workDir: debWork, outFile: path.join(staging, names.deb) });
    log('SBOM');
    writeFileSync(path.join(staging, names.sbom), releaseSbom(inputs.epoch));
    const listed = [names.binary, names.tarball, names.deb, names.sbom];
    const sums = listed.map((name) => `${sha256(readFileSync(path.join(staging, name)))}  ${name}\n`).join('');
    writeFileSync(path.join(staging, names.sums), sums);
    if (inputs.key !== undefined) {
      writeFileSync(path.join(staging, names.signature), await signPrehashed(Buffer.from(sums), inputs.key, { trusted: defaultTrustedComment(inputs.epoch, names.sums) }));
    }
    rmSync(inputs.outDir, { recursive: true, force: true });
    renameSync(staging, inputs.outDir);
    return [...listed, names.sums, ...(inputs.key === undefined ? [] : [names.signature])];
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

/**
 * stagePackage lays out what `npm pack` packs: package.json's `files` that are sources (bin,
 * SECURITY.md, docs/), README and LICENSE, and dist/ built fresh. It returns the CLI bundle.
 */
async function stagePackage(dir: string): Promise<string> {
  const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { files: string[] };
  for (const entry of ['package.json', 'README.md', 'LICENSE', ...manifest.files.filter((file) => !file.startsWith('dist/'))]) {
    cpSync(path.join(REPO_ROOT, entry), path.join(dir, entry), { recursive: true });
  }
  const dist = path.join(dir, 'dist');
  const cli = await bundleCli(path.join(dist, 'latch.cjs'));
  await bundleLibrary(path.join(dist, 'index.js'));
  await bundleSandbox(path.join(dist, 'sandbox.js'));
  emitTypes(path.join(dist, 'types'));
  return cli.file;
}

/** npmPack packs dir (its prepack build is already done) into outDir as expected. */
function npmPack(dir: string, outDir: string, expected: string): void {
  const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', outDir], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (packed.error !== undefined || packed.status !== 0) throw new Error(`npm pack failed: ${packed.error?.message ?? packed.stderr}`);
  const [report] = JSON.parse(packed.stdout) as Array<{ filename?: string }>;
  if (report?.filename !== expected) throw new Error(`npm pack wrote ${report?.filename ?? 'nothing'}, not ${expected}`);
}

/** releaseSbom is the SBOM of this checkout, with the Node.js that builds (and is) the binary. */
export function releaseSbom(epoch: number): string {
  const read = (name: string) => JSON.parse(readFileSync(path.join(REPO_ROOT, name), 'utf8')) as Record<string, never>;
  return buildSbom({
    lockfile: read('package-lock.json'),
    manifest: read('package.json'),
    node: { version: process.versions.node, sha256: sha256(readFileSync(process.execPath)) },
    epoch,
  });
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
