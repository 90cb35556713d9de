/**
 * The release's CycloneDX 1.5 SBOM (docs/decisions.md §38.3): Latch, every package the lockfile
 * marks as shipped (not `dev`) with its version, purl and the lockfile's SHA-512, and the Node.js
 * runtime the single binary embeds. It is derived from package-lock.json, not from a list: a
 * runtime dependency added later appears by itself, and a devDependency cannot.
 */
import { createHash } from 'node:crypto';

/** The SBOM's format version; test/release/cyclonedx/ holds this version's official schema. */
export const SPEC_VERSION = '1.5';

interface LockedPackage {
  name?: string;
  version?: string;
  integrity?: string;
  license?: string;
  resolved?: string;
  dev?: boolean;
  devOptional?: boolean;
  link?: boolean;
}

/** What the SBOM is made from. */
export interface SbomInputs {
  /** package-lock.json, parsed. */
  lockfile: { lockfileVersion?: number; packages?: Record<string, LockedPackage> };
  /** package.json, parsed. */
  manifest: { name?: string; version?: string; license?: string; description?: string };
  /** The Node.js the binary embeds: its version (without "v") and the SHA-256 of its executable. */
  node: { version: string; sha256: string };
  /** SOURCE_DATE_EPOCH: the document's timestamp. */
  epoch: number;
}

/** A shipped package as the lockfile records it. */
export interface RuntimePackage {
  name: string;
  version: string;
  /** The lockfile's SHA-512, hex. */
  sha512: string;
  license: string | undefined;
}

/** runtimePackages lists the lockfile's non-dev packages (the root excepted), sorted by name. */
export function runtimePackages(lockfile: SbomInputs['lockfile']): RuntimePackage[] {
  if (lockfile.lockfileVersion === undefined || lockfile.lockfileVersion < 2 || lockfile.packages === undefined) throw new Error('package-lock.json must be lockfileVersion 2 or later (run npm install with npm 7+)');
  const found: RuntimePackage[] = [];
  for (const [where, entry] of Object.entries(lockfile.packages)) {
    if (where === '' || entry.dev === true || entry.devOptional === true) continue;
    if (entry.link === true) throw new Error(`${where} is a linked package; a release ships only registry packages`);
    const name = where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const integrity = /^sha512-([A-Za-z0-9+/]+={0,2})$/.exec(entry.integrity ?? '')?.[1];
    if (entry.version === undefined || integrity === undefined) throw new Error(`${where} has no version or SHA-512 integrity in package-lock.json`);
    found.push({ name, version: entry.version, sha512: Buffer.from(integrity, 'base64').toString('hex'), license: entry.license });
  }
  return found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** npmPurl is the package URL of an npm package (the scope's @ percent-encoded, as purl-spec says). */
export function npmPurl(name: string, version: string): string {
  const [scope, bare] = name.startsWith('@') ? [name.slice(0, name.indexOf('/')), name.slice(name.indexOf('/') + 1)] : [undefined, name];
  return `pkg:npm/${scope === undefined ? '' : `${encodeURIComponent(scope)}/`}${encodeURIComponent(bare)}@${encodeURIComponent(version)}`;
}

/** nodePurl is the Node.js runtime's package URL. */
export function nodePurl(version: string): string {
  return `pkg:generic/nodejs@${version}`;
}

/** buildSbom returns the SBOM as the bytes written to sbom.cdx.json (sorted, two-space JSON, newline). */
export function buildSbom(inputs: SbomInputs): string {
  const { manifest, node } = inputs;
  if (manifest.name === undefined || manifest.version === undefined) throw new Error('package.json has no name or version');
  const latchRef = npmPurl(manifest.name, manifest.version);
  const licenses = (id: string | undefined) => (id === undefined ? {} : { licenses: [{ license: { id } }] });
  const packages = runtimePackages(inputs.lockfile).map((pkg) => {
    const scoped = pkg.name.startsWith('@');
    return {
      type: 'library',
      'bom-ref': npmPurl(pkg.name, pkg.version),
      ...(scoped && { group: pkg.name.slice(0, pkg.name.indexOf('/')) }),
      name: scoped ? pkg.name.slice(pkg.name.indexOf('/') + 1) : pkg.name,
      version: pkg.version,
      scope: 'required',
      hashes: [{ alg: 'SHA-512', content: pkg.sha512 }],
      ...licenses(pkg.license),
      purl: npmPurl(pkg.name, pkg.version),
    };
  });
  const runtime = {
    type: 'platform',
    'bom-ref': nodePurl(node.version),
    name: 'nodejs',
    version: node.version,
    description: 'The Node.js runtime embedded in the single binary (stripped of its symbols before the CLI is injected)',
    scope: 'required',
    hashes: [{ alg: 'SHA-256', content: node.sha256 }],
    purl: nodePurl(node.version),
  };
  const bom = {
    bomFormat: 'CycloneDX',
    specVersion: SPEC_VERSION,
    version: 1,
    metadata: {
      timestamp: new Date(inputs.epoch * 1000).toISOString().replace(/\.000Z$/, 'Z'),
      tools: { components: [{ type: 'application', name: 'latch-release', version: manifest.version, description: 'scripts/release.ts' }] },
      component: {
        type: 'application',
        'bom-ref': latchRef,
        name: manifest.name,
        version: manifest.version,
        ...(manifest.description !== undefined && { description: manifest.description }),
        ...licenses(manifest.license),
        purl: latchRef,
      },
    },
    components: [...packages, runtime],
    dependencies: [
      { ref: latchRef, dependsOn: [...packages.map((pkg) => pkg['bom-ref']), runtime['bom-ref']] },
      ...packages.map((pkg) => ({ ref: pkg['bom-ref'], dependsOn: [] })),
      { ref: runtime['bom-ref'], dependsOn: [] },
    ],
  };
  // The serial number is derived from the content, so the same release gives the same document.
  const digest = createHash('sha256').update(JSON.stringify(bom)).digest('hex');
  const serialNumber = `urn:uuid:${digest.slice(0, 8)}-${digest.slice(8, 12)}-8${digest.slice(13, 16)}-${((parseInt(digest.slice(16, 17), 16) & 0x3) | 0x8).toString(16)}${digest.slice(17, 20)}-${digest.slice(20, 32)}`;
  const { bomFormat, specVersion, ...rest } = bom;
  return `${JSON.stringify({ bomFormat, specVersion, serialNumber, ...rest }, null, 2)}\n`;
}
