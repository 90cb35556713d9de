/**
 * `npm run test:release` (CI runs it after the single binary's build, with LATCH_KIT_BINARY=dist/latch;
 * it takes minutes, so it is not one of npm test's files, whose limit is three minutes each).
 * The release kit, checked with the real tools (shared/spec/release-kit.md §5): two runs with the
 * same SOURCE_DATE_EPOCH give byte-identical files, every one; `sha256sum -c` passes; the
 * `minisign` program verifies SHA256SUMS.minisig; `lintian --fail-on error,warning` passes on the
 * package, whose contents are as stated; a run that fails leaves no partial kit. The single binary
 * is built once and given to both runs (its own reproducibility is test/build/reproducible-sea's);
 * everything else is built twice. The install, remove and purge of the package, as root, are
 * deb-install.ts's tests, run here on the kit built here.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { packageVersion } from '../../scripts/build-bundles.js';
import { packagedUnit } from '../../scripts/release/deb.js';
import { kitFiles } from '../../scripts/release/release-kit.js';
import { publicKeyBase64 } from '../../scripts/release/minisign.js';
import { installTests } from './deb-install.js';
import { buildKitOnce, KIT_EPOCH, KIT_SKIP, type BuiltKit } from './kit-fixture.js';

const has = (program: string, args: string[]) => spawnSync(program, args, { stdio: 'ignore' }).status === 0;
const version = packageVersion();
const names = kitFiles(version);

describe('npm run release: the kit', { skip: KIT_SKIP }, () => {
  let kit: BuiltKit;
  before(async () => {
    kit = await buildKitOnce();
  }, { timeout: 1_200_000 });
  after(() => kit?.cleanUp());

  test('the kit has exactly the six files the spec names', () => {
    assert.deepEqual(readdirSync(kit.first).sort(), Object.values(names).sort());
  });

  test('two runs with the same SOURCE_DATE_EPOCH give byte-identical files, every one', () => {
    for (const name of Object.values(names)) {
      assert.ok(readFileSync(path.join(kit.first, name)).equals(readFileSync(path.join(kit.second, name))), `${name} differs between the two runs`);
    }
  });

  test('sha256sum -c checks every file against SHA256SUMS, one line each, and fails on a changed file', () => {
    const checked = spawnSync('sha256sum', ['-c', names.sums], { cwd: kit.first, encoding: 'utf8' });
    assert.equal(checked.status, 0, checked.stdout + checked.stderr);
    const listed = readFileSync(path.join(kit.first, names.sums), 'utf8').trimEnd().split('\n').map((line) => line.split('  ')[1]);
    assert.deepEqual(listed.sort(), [names.binary, names.tarball, names.deb, names.sbom].sort());
    const sbomLine = readFileSync(path.join(kit.first, names.sums), 'utf8').split('\n').filter((line) => line.endsWith(names.sbom)).join('\n');
    const tampered = spawnSync('sh', ['-c', `printf ' ' >> ${names.sbom} && printf '%s\\n' "$0" | sha256sum -c -`, sbomLine], { cwd: kit.second, encoding: 'utf8' });
    assert.notEqual(tampered.status, 0, 'sha256sum accepted a changed SBOM');
  });

  test('minisign verifies SHA256SUMS.minisig with the public key, and refuses SHA256SUMS with a byte changed', { skip: has('minisign', ['-v']) ? false : 'needs minisign' }, () => {
    const verified = spawnSync('minisign', ['-Vm', names.sums, '-P', publicKeyBase64(kit.key)], { cwd: kit.first, encoding: 'utf8' });
    assert.equal(verified.status, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, new RegExp(`Trusted comment: timestamp:${KIT_EPOCH}\tfile:SHA256SUMS\thashed`));
    const sums = readFileSync(path.join(kit.first, names.sums));
    const changed = path.join(kit.scratch, 'SHA256SUMS');
    sums[0] = (sums[0] as number) ^ 0x01;
    writeFileSync(changed, sums);
    const refused = spawnSync('minisign', ['-Vm', changed, '-x', path.join(kit.first, names.signature), '-P', publicKeyBase64(kit.key)], { encoding: 'utf8' });
    assert.notEqual(refused.status, 0, refused.stdout);
  });

  test('lintian --fail-on error,warning passes on the package', { skip: has('lintian', ['--version']) ? false : 'needs lintian (Debian package lintian; .ci/run installs it)', timeout: 600_000 }, () => {
    const linted = spawnSync('lintian', ['--fail-on', 'error,warning', path.join(kit.first, names.deb)], { encoding: 'utf8', timeout: 540_000 });
    assert.equal(linted.status, 0, `${linted.stdout}${linted.stderr}`);
  });

  test('the package holds /usr/bin/latch, the separate-user unit, the man page, the docs and the overrides, all root\'s', () => {
    const listed = spawnSync('dpkg-deb', ['--contents', path.join(kit.first, names.deb)], { encoding: 'utf8' });
    assert.equal(listed.status, 0, listed.stderr);
    const files = listed.stdout.trim().split('\n').filter((line) => line.startsWith('-'));
    const paths = files.map((line) => (line.split(/\s+/)[5] as string).replace(/^\./, '')).sort();
    assert.deepEqual(paths, ['/lib/systemd/system/latch.service', '/usr/bin/latch', '/usr/share/doc/latch/changelog.gz', '/usr/share/doc/latch/copyright', '/usr/share/lintian/overrides/latch', '/usr/share/man/man1/latch.1.gz']);
    for (const line of listed.stdout.trim().split('\n')) assert.match(line, /^\S+ root\/root /, line);
    const unit = spawnSync('dpkg-deb', ['--fsys-tarfile', path.join(kit.first, names.deb)], { encoding: 'buffer', maxBuffer: 512 * 1024 * 1024 });
    const extracted = spawnSync('tar', ['-xOf', '-', './lib/systemd/system/latch.service'], { input: unit.stdout, encoding: 'utf8' });
    assert.equal(extracted.stdout, packagedUnit(), 'the unit is the one src/service writes');
    assert.match(extracted.stdout, /^ExecStart=\/usr\/bin\/latch daemon$/m);
    assert.match(extracted.stdout, /^User=latch$/m);
    const control = spawnSync('dpkg-deb', ['--field', path.join(kit.first, names.deb), 'Package', 'Version', 'Architecture', 'Depends'], { encoding: 'utf8' });
    assert.match(control.stdout, /^Package: latch$/m);
    assert.match(control.stdout, /^Architecture: amd64$/m);
    assert.match(control.stdout, /^Depends: .*libc6/m);
  });

  test('the binary names the versions the SBOM lists (latch --version --json)', () => {
    const ran = spawnSync(path.join(kit.first, names.binary), ['--version', '--json'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(ran.status, 0, ran.stderr);
    const report = JSON.parse(ran.stdout) as { latch: string; node: string; dependencies: Record<string, string> };
    const sbom = JSON.parse(readFileSync(path.join(kit.first, names.sbom), 'utf8')) as { metadata: { component: { version: string } }; components: Array<{ purl: string; version: string }> };
    assert.equal(report.latch, sbom.metadata.component.version);
    assert.equal(sbom.components.find((component) => component.purl.startsWith('pkg:generic/nodejs@'))?.version, report.node);
    for (const [name, pinned] of Object.entries(report.dependencies)) {
      assert.equal(sbom.components.find((component) => component.purl.startsWith(`pkg:npm/${name.replace('@', '%40')}@`))?.version, pinned, name);
    }
  });

  test('a run that cannot make a file fails with the reason and leaves no partial kit, and the last kit as it was', async () => {
    const { buildRelease } = await import('../../scripts/release/release-kit.js');
    const work = mkdtempSync(path.join(kit.scratch, 'failing-'));
    const outDir = path.join(kit.scratch, 'failing-release', version);
    await assert.rejects(buildRelease({ version, epoch: KIT_EPOCH, key: kit.key, outDir, workDir: work, binary: path.join(kit.scratch, 'no-such-binary') }), /ENOENT|no such file/);
    assert.ok(!existsSync(outDir), 'no kit');
    assert.deepEqual(readdirSync(path.dirname(outDir)), [], 'no partial directory either');
    // Over an existing kit: it stays as it was.
    mkdirSync(outDir, { recursive: true });
    writeFileSync(path.join(outDir, 'SHA256SUMS'), 'previous\n');
    await assert.rejects(buildRelease({ version, epoch: KIT_EPOCH, key: kit.key, outDir, workDir: mkdtempSync(path.join(kit.scratch, 'failing-')), binary: path.join(kit.scratch, 'no-such-binary') }));
    assert.equal(readFileSync(path.join(outDir, 'SHA256SUMS'), 'utf8'), 'previous\n');
    rmSync(path.dirname(outDir), { recursive: true, force: true });
  });

  installTests(() => kit);
});
