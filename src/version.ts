import { readFileSync } from 'node:fs';

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

/**
 * The version the build wrote in (scripts/build.ts replaces this identifier with package.json's
 * version through esbuild's `define`). It is undeclared when running from sources with tsx, where
 * `typeof` answers 'undefined' and the version is read from package.json instead.
 */
declare const LATCH_BUILD_VERSION: string | undefined;

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
