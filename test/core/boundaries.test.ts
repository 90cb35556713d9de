import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { SRC, srcImportGraph } from '../support/import-graph.js';

// The core knows no HTTP, no daemon and no data directory, and reaches the cloud only through
// its CloudGateway interface: it may import only these folders besides its own.
const CORE_MAY_IMPORT = ['core', 'crypto', 'errors', 'ids', 'money'];

test('src/core imports only core, crypto, errors, ids and money', () => {
  const outside: string[] = [];
  for (const [file, imports] of srcImportGraph()) {
    if (!path.relative(SRC, file).startsWith('core/')) continue;
    for (const imported of imports) {
      const folder = path.relative(SRC, imported).split('/')[0] as string;
      if (!CORE_MAY_IMPORT.includes(folder)) outside.push(`${path.relative(SRC, file)} → ${path.relative(SRC, imported)}`);
    }
  }
  assert.deepEqual(outside, []);
});
