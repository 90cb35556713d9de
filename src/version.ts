import { readFileSync } from 'node:fs';

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/**
 * The version the build wrote in (scripts/build.ts replaces this identifier with package.json's
 * version through esbuild's `define`). It is undeclared when running from sources with tsx, where
 * `typeof` answers 'undefined' and the version is read from package.json instead.
 */
declare const LATCH_BUILD_VERSION: string | undefined;
/** The runtime dependencies' versions, written in by the build the same way (name → version). */
declare const LATCH_BUILD_DEPENDENCIES: Record<string, string> | undefined;

let cached: string | undefined;

/**
 * latchVersion returns package.json's version (docs/decisions.md §14), read once. /health and
 * `latch --version` both report it, so the two can never disagree. Bundles and the single binary
 * carry it from build time, because they have no package.json beside them.
 */
export function latchVersion(): string {
  if (cached !== undefined) return cached;
  const version: unknown = typeof LATCH_BUILD_VERSION === 'string' ? LATCH_BUILD_VERSION : versionFromPackageJson();
  if (typeof version !== 'string' || !SEMVER.test(version)) throw new Error('package.json has no semver version');
  cached = version;
  return version;
}

function versionFromPackageJson(): unknown {
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(text) as { version?: unknown }).version;
}

/** What `latch --version --json` reports: the versions the release's SBOM names (docs/packaging.md). */
export interface VersionReport {
  latch: string;
  /** The Node.js running Latch: inside the single binary, the one it embeds. */
  node: string;
  /** The runtime dependencies (package.json's `dependencies`) and their versions. */
  dependencies: Record<string, string>;
}

/** versionReport returns Latch's, Node.js's and the runtime dependencies' versions. */
export function versionReport(): VersionReport {
  const dependencies = typeof LATCH_BUILD_DEPENDENCIES === 'object' && LATCH_BUILD_DEPENDENCIES !== null ? LATCH_BUILD_DEPENDENCIES : dependenciesFromCheckout();
  return { latch: latchVersion(), node: process.versions.node, dependencies: { ...dependencies } };
}

/** dependenciesFromCheckout reads package.json's dependencies' installed versions (running from sources). */
function dependenciesFromCheckout(): Record<string, string> {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { dependencies?: Record<string, string> };
  const found: Record<string, string> = {};
  for (const name of Object.keys(manifest.dependencies ?? {}).sort()) {
    const installed = JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as { version?: unknown };
    if (typeof installed.version === 'string') found[name] = installed.version;
  }
  return found;
}
