import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { SRC, srcImportGraph } from '../support/import-graph.js';

// The core knows no HTTP, no daemon and no data directory, and reaches the cloud only through
// its CloudGateway interface: it may import only these folders besides its own (time: the ISO
// formatting of clocks in messages, docs/decisions.md §18.4; signer: the one place a signature
// is asked for, docs/decisions.md §28; ap2: AP2's mandate shapes and SD-JWT assembly, pure like
// crypto, with no key and no I/O, docs/decisions.md §32; x402: x402's shapes, the assets table,
// the counting rule and the receipt's payload, as pure, docs/decisions.md §40 — the agent's
// adapter lives apart, in x402-guard).
const CORE_MAY_IMPORT = ['ap2', 'core', 'crypto', 'errors', 'ids', 'money', 'signer', 'time', 'x402'];

test('src/core imports only ap2, core, crypto, errors, ids, money, signer, time and x402', () => {
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
