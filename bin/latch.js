#!/usr/bin/env node
// The `latch` command of the npm package. It runs the bundled CLI (dist/latch.cjs, built by
// scripts/build.ts), which needs neither tsx nor the TypeScript sources; in a source checkout,
// `npm run build:js` makes the bundle and `npm run latch -- <args>` runs from sources instead.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/latch.cjs', import.meta.url);
if (existsSync(bundle)) {
  await import(bundle.href);
} else {
  process.stderr.write('latch: dist/latch.cjs is missing. In a source checkout, run `npm run build:js` first.\n');
  process.exitCode = 1;
}
