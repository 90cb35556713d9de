import { readFileSync } from 'node:fs';

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

let cached: string | undefined;

/**
 * latchVersion returns package.json's version (decisions §14), read once. /health and
 * `latch --version` both report it, so the two can never disagree.
 */
export function latchVersion(): string {
  if (cached !== undefined) return cached;
  const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  const version: unknown = (JSON.parse(text) as { version?: unknown }).version;
  if (typeof version !== 'string' || !SEMVER.test(version)) throw new Error('package.json has no semver version');
  cached = version;
  return version;
}
