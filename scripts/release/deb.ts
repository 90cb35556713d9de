/**
 * The Debian package (docs/decisions.md §38.4): the single binary as /usr/bin/latch, the hardened
 * unit `latch service install --system` writes (from src/service, not a copy of its text), the man
 * page, the docs, the lintian overrides and the maintainer scripts of scripts/release/debian/.
 * It is built by dpkg-deb from a tree whose every mode and time is set here, owned by root
 * (--root-owner-group) and with SOURCE_DATE_EPOCH for the archive's own times, so the same inputs
 * give the same bytes.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, lstatSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { SYSTEM_DATA_DIR, DEFAULT_SERVICE_USER } from '../../src/service/service-user.js';
import { systemdSystemUnit } from '../../src/service/system-service-files.js';

/** The packaging sources (control template, maintainer scripts, man page, overrides). */
export const DEBIAN_SOURCES = path.resolve(import.meta.dirname, 'debian');
/** Who the package names as its maintainer. */
export const MAINTAINER = 'The Latch authors <latch-maintainers@users.noreply.github.com>';
/** Where the package puts the binary; the unit runs it from there. */
export const PACKAGED_BINARY = '/usr/bin/latch';

/** What one package build needs. */
export interface DebInputs {
  version: string;
  /** The single binary to install as /usr/bin/latch. */
  binary: string;
  /** SOURCE_DATE_EPOCH. */
  epoch: number;
  /** An empty directory for the package tree. */
  workDir: string;
  outFile: string;
}

/** debFileName is the package's name in the release: latch_<version>_amd64.deb. */
export function debFileName(version: string): string {
  return `latch_${debianVersion(version)}_amd64.deb`;
}

/** debianVersion is the version as Debian orders it: a semver pre-release sorts before with "~". */
export function debianVersion(version: string): string {
  return version.replace('-', '~');
}

/** packagedUnit is the unit at /lib/systemd/system/latch.service: the separate-user setup's own. */
export function packagedUnit(): string {
  return systemdSystemUnit({ command: { program: PACKAGED_BINARY, args: [] }, user: DEFAULT_SERVICE_USER, home: SYSTEM_DATA_DIR });
}

/** buildDeb writes the package to inputs.outFile. */
export function buildDeb(inputs: DebInputs): void {
  if (process.platform !== 'linux') throw new Error('the Debian package is built on Linux (dpkg-deb)');
  const root = path.join(inputs.workDir, 'latch');
  const source = (name: string) => readFileSync(path.join(DEBIAN_SOURCES, name), 'utf8');
  const fill = (text: string) => text.replaceAll('@VERSION@', debianVersion(inputs.version)).replaceAll('@MAINTAINER@', MAINTAINER).replaceAll('@DATE@', new Date(inputs.epoch * 1000).toUTCString().replace('GMT', '+0000'));
  const put = (file: string, content: string | Buffer, mode = 0o644) => {
    const target = path.join(root, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, content);
    chmodSync(target, mode);
  };
  mkdirSync(path.join(root, 'usr', 'bin'), { recursive: true });
  copyFileSync(inputs.binary, path.join(root, 'usr', 'bin', 'latch'));
  chmodSync(path.join(root, 'usr', 'bin', 'latch'), 0o755);
  put('lib/systemd/system/latch.service', packagedUnit());
  put('usr/share/man/man1/latch.1.gz', gzipMax(source('latch.1')));
  put('usr/share/doc/latch/copyright', source('copyright'));
  put('usr/share/doc/latch/changelog.gz', gzipMax(fill(source('changelog'))));
  put('usr/share/lintian/overrides/latch', source('lintian-overrides'));
  const payload = filesUnder(root);
  for (const script of ['postinst', 'prerm', 'postrm']) put(`DEBIAN/${script}`, source(script), 0o755);
  put('DEBIAN/md5sums', payload.map((file) => `${createHash('md5').update(readFileSync(path.join(root, file))).digest('hex')}  ${file}\n`).join(''));
  put('DEBIAN/control', fill(source('control')).replace('@INSTALLED_SIZE@', String(installedSizeKiB(root, payload))));
  for (const entry of [...walk(root), root]) {
    if (lstatSync(entry).isDirectory()) chmodSync(entry, 0o755);
    utimesSync(entry, inputs.epoch, inputs.epoch);
  }
  const built = spawnSync('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z6', '--build', root, inputs.outFile], {
    encoding: 'utf8',
    env: { ...process.env, SOURCE_DATE_EPOCH: String(inputs.epoch) },
  });
  if (built.error !== undefined) throw new Error(`dpkg-deb: ${(built.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found (install dpkg)' : built.error.message}`);
  if (built.status !== 0) throw new Error(`dpkg-deb failed (${built.status ?? built.signal}): ${built.stderr}`);
}

/** gzipMax compresses as Debian wants docs: level 9, no name, no time (zlib writes mtime 0). */
function gzipMax(text: string): Buffer {
  return gzipSync(Buffer.from(text, 'utf8'), { level: 9 });
}

/** walk lists every path under dir, sorted. */
function walk(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(dir, name))
    .sort();
}

/** filesUnder lists the package's regular files (not DEBIAN/) relative to root, sorted. */
function filesUnder(root: string): string[] {
  return walk(root)
    .filter((file) => lstatSync(file).isFile())
    .map((file) => path.relative(root, file))
    .filter((file) => !file.startsWith('DEBIAN/'));
}

/** installedSizeKiB is what dpkg-gencontrol would write: each file and directory in whole KiB. */
function installedSizeKiB(root: string, files: string[]): number {
  const directories = walk(root).filter((entry) => lstatSync(entry).isDirectory() && !path.relative(root, entry).startsWith('DEBIAN'));
  return files.reduce((sum, file) => sum + Math.ceil(lstatSync(path.join(root, file)).size / 1024), directories.length);
}
