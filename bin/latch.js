#!/usr/bin/env node
// The `latch` command. In the npm package and the release bundle it runs the bundled CLI
// (dist/latch.cjs), which needs neither tsx nor the TypeScript sources. In a source checkout
// with no bundle built, it runs the sources through tsx (a dev dependency), so the README's
// `latch ...` commands work from a fresh clone after `npm ci` as `npx latch ...`, printing
// nothing of its own: `npx latch mcp` speaks only the protocol on stdout.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/latch.cjs', import.meta.url);
const sources = new URL('../src/cli/bin-entry.ts', import.meta.url);
if (existsSync(bundle)) {
  await import(bundle.href);
} else if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(sources.href);
} else {
  process.stderr.write('latch: dist/latch.cjs is missing; reinstall the package.\n');
  process.exitCode = 1;
}
