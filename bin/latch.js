#!/usr/bin/env node
// The `latch` command. In the npm package and the release bundle it runs the bundled CLI
// (dist/latch.cjs), which needs neither tsx nor the TypeScript sources. In a source checkout it
// runs the sources through tsx (a dev dependency), even when a dist/latch.cjs was built there: a
// bundle left from an earlier build would otherwise run old code silently after a `git pull` or
// an edit (docs/decisions.md §19). Without tsx it runs the bundle only when no source file is
// newer, and otherwise says how to rebuild. It prints nothing of its own when it runs Latch:
// `npx latch mcp` speaks only the protocol on stdout.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundle = new URL('../dist/latch.cjs', import.meta.url);
const sources = new URL('../src/cli/bin-entry.ts', import.meta.url);

/** newestMtimeMs is the latest modification time of any file under a folder. */
function newestMtimeMs(folder) {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(`${entry.parentPath ?? entry.path}/${entry.name}`).mtimeMs);
  }
  return newest;
}

async function loadTsx() {
  try {
    return await import('tsx/esm/api');
  } catch {
    return undefined;
  }
}

if (existsSync(sources)) {
  const tsx = await loadTsx();
  if (tsx !== undefined) {
    tsx.register();
    await import(sources.href);
  } else if (existsSync(bundle) && statSync(bundle).mtimeMs >= newestMtimeMs(fileURLToPath(new URL('../src/', import.meta.url)))) {
    await import(bundle.href);
  } else {
    const why = existsSync(bundle) ? 'dist/latch.cjs is older than the sources in src/' : 'dist/latch.cjs is missing';
    process.stderr.write(`latch: this is a source checkout without tsx, and ${why}. Install the dev dependencies (npm ci) to run the sources, or rebuild the bundle: npm run build:js\n`);
    process.exitCode = 1;
  }
} else if (existsSync(bundle)) {
  await import(bundle.href);
} else {
  process.stderr.write('latch: dist/latch.cjs is missing; reinstall the package.\n');
  process.exitCode = 1;
}
