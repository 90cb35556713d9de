/**
 * The release's SBOM (docs/decisions.md §38.3): valid against the official CycloneDX JSON schema
 * of its specVersion (bundled in test/release/cyclonedx/, validated with ajv: no network), every
 * package the lockfile ships with its SHA-512 and purl, no devDependency, the Node.js runtime, and
 * the same versions `latch --version --json` names. What it must list is read from package.json
 * and package-lock.json, not written here.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { REPO_ROOT } from '../../scripts/build-bundles.js';
import { releaseSbom } from '../../scripts/release/release-kit.js';
import { buildSbom, npmPurl, SPEC_VERSION } from '../../scripts/release/sbom.js';
import { runCli } from '../../src/cli/main.js';
import { captureIo } from '../cli/cli-io.js';

const SCHEMAS = path.join(import.meta.dirname, 'cyclonedx');
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
const manifest = read(path.join(REPO_ROOT, 'package.json')) as { name: string; version: string; dependencies: Record<string, string>; devDependencies: Record<string, string> };
const lockfile = read(path.join(REPO_ROOT, 'package-lock.json')) as { lockfileVersion: number; packages: Record<string, { version?: string; integrity?: string; dev?: boolean }> };

interface Component {
  type: string;
  name: string;
  group?: string;
  version: string;
  purl: string;
  hashes: Array<{ alg: string; content: string }>;
}
interface Bom {
  specVersion: string;
  serialNumber: string;
  metadata: { timestamp: string; component: Component };
  components: Component[];
}

const validate = validator();

function validator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;
  (addFormats as unknown as (ajv: Ajv) => void)(ajv);
  // The two formats of the schema that ajv-formats lacks (the SBOM uses neither): an IRI
  // reference is a URI reference that may hold non-ASCII; an internationalized address has an @.
  ajv.addFormat('iri-reference', /^[^\s<>"{}|\\^`]*$/u);
  ajv.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/u);
  for (const name of ['spdx.schema.json', 'jsf-0.82.schema.json']) ajv.addSchema(read(path.join(SCHEMAS, name)));
  return ajv.compile(read(path.join(SCHEMAS, `bom-${SPEC_VERSION}.schema.json`)));
}

const text = releaseSbom(1764000000);
const bom = JSON.parse(text) as Bom;
const fullName = (component: Component) => (component.group === undefined ? component.name : `${component.group}/${component.name}`);

test('the SBOM validates against the official CycloneDX schema of its specVersion', () => {
  assert.equal(bom.specVersion, SPEC_VERSION);
  assert.equal(validate(bom), true, JSON.stringify(validate.errors, null, 2));
});

test('the schema check can fail: a component without a name, or a malformed hash, is refused', () => {
  const broken = structuredClone(bom) as unknown as { components: Array<Record<string, unknown>> };
  delete broken.components[0]?.['name'];
  assert.equal(validate(broken), false);
  const badHash = structuredClone(bom);
  (badHash.components[0] as Component).hashes = [{ alg: 'SHA-512', content: 'not hex' }];
  assert.equal(validate(badHash), false);
});

test("every package the lockfile ships is listed with the lockfile's SHA-512 and its purl, and nothing else of npm's", () => {
  const shipped = Object.entries(lockfile.packages).filter(([where, entry]) => where !== '' && entry.dev !== true);
  assert.ok(shipped.length >= Object.keys(manifest.dependencies).length, 'the lockfile ships at least the runtime dependencies');
  const libraries = bom.components.filter((component) => component.purl.startsWith('pkg:npm/'));
  assert.equal(libraries.length, shipped.length);
  for (const [where, entry] of shipped) {
    const name = where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const listed = libraries.find((component) => fullName(component) === name);
    assert.ok(listed !== undefined, `${name} is in the SBOM`);
    assert.equal(listed.version, entry.version);
    assert.equal(listed.purl, npmPurl(name, entry.version as string));
    assert.deepEqual(listed.hashes, [{ alg: 'SHA-512', content: Buffer.from((entry.integrity as string).replace(/^sha512-/, ''), 'base64').toString('hex') }]);
  }
  for (const name of Object.keys(manifest.dependencies)) assert.ok(libraries.some((component) => fullName(component) === name), `${name} (a runtime dependency) is listed`);
});

test('no devDependency appears anywhere in the SBOM', () => {
  for (const name of Object.keys(manifest.devDependencies)) {
    assert.ok(!text.includes(`"${name}"`) && !text.includes(npmPurl(name, '').slice(0, -1)), `${name} is a devDependency, yet it is in the SBOM`);
  }
});

test('the Node.js runtime is listed with its version, its purl and the SHA-256 of the node binary', () => {
  const node = bom.components.find((component) => component.purl.startsWith('pkg:generic/nodejs@'));
  assert.ok(node !== undefined);
  assert.equal(node.version, process.versions.node);
  assert.equal(node.purl, `pkg:generic/nodejs@${process.versions.node}`);
  assert.deepEqual(node.hashes, [{ alg: 'SHA-256', content: createHash('sha256').update(readFileSync(process.execPath)).digest('hex') }]);
});

test('latch --version --json names the same versions as the SBOM', async () => {
  const io = captureIo({});
  assert.equal(await runCli(['--version', '--json'], io), 0);
  const report = JSON.parse(io.stdout.text) as { latch: string; node: string; dependencies: Record<string, string> };
  assert.equal(report.latch, bom.metadata.component.version);
  assert.equal(report.node, bom.components.find((component) => component.name === 'nodejs')?.version);
  for (const [name, version] of Object.entries(report.dependencies)) assert.equal(bom.components.find((component) => fullName(component) === name)?.version, version, name);
  assert.deepEqual(Object.keys(report.dependencies).sort(), Object.keys(manifest.dependencies).sort());
});

test('the same inputs give the same bytes; the time is SOURCE_DATE_EPOCH', () => {
  assert.equal(releaseSbom(1764000000), text);
  assert.equal(bom.metadata.timestamp, '2025-11-24T16:00:00Z');
  assert.notEqual(releaseSbom(1764000001), text);
  assert.match(bom.serialNumber, /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('a lockfile without a SHA-512 for a shipped package, or a linked one, stops the SBOM', () => {
  const node = { version: '20.0.0', sha256: '0'.repeat(64) };
  const lock = (entry: Record<string, unknown>) => ({ lockfileVersion: 3, packages: { '': {}, 'node_modules/x': { version: '1.0.0', ...entry } } });
  assert.throws(() => buildSbom({ lockfile: lock({ integrity: 'sha1-AAAA' }), manifest, node, epoch: 0 }), /SHA-512/);
  assert.throws(() => buildSbom({ lockfile: lock({ link: true }), manifest, node, epoch: 0 }), /linked/);
  assert.throws(() => buildSbom({ lockfile: { lockfileVersion: 1 }, manifest, node, epoch: 0 }), /lockfileVersion 2/);
});
