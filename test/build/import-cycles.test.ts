/**
 * No import circle in src/: a module graph with a cycle has no order in which each module is
 * complete when it is used, and it hides which layer depends on which. Type-only imports count
 * too, since they describe the same dependency.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { findCycle, localImports, SRC, srcImportGraph } from '../support/import-graph.js';

test('the walker finds a circle in a small graph, and none in a tree', () => {
  const circle = new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]);
  assert.deepEqual(findCycle(circle), ['a', 'b', 'c', 'a']);
  assert.equal(findCycle(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]])), undefined);
  assert.deepEqual(findCycle(new Map([['a', ['a']]])), ['a', 'a']);
});

test('the walker reads every kind of relative import', () => {
  const text = [
    "import { x } from './x.js';",
    "import type { Y } from '../y/y.js';",
    "export { z } from './z.js';",
    "export type { W } from './w.js';",
    "import './side-effect.js';",
    'import {\n  a,\n  b,\n} from "./multi.js";',
    "import { readFileSync } from 'node:fs';",
  ].join('\n');
  const names = localImports('/src/dir/file.ts', text).map((file) => path.relative('/src', file));
  assert.deepEqual(names, ['dir/x.ts', 'y/y.ts', 'dir/z.ts', 'dir/w.ts', 'dir/side-effect.ts', 'dir/multi.ts']);
});

test('src/ has no import circle', () => {
  const graph = srcImportGraph();
  assert.ok(graph.size > 50, 'the walker sees the source tree');
  const cycle = findCycle(graph);
  assert.equal(cycle?.map((file) => path.relative(SRC, file)).join(' → '), undefined);
});

/** folderGraph is the import graph between src/'s top-level folders (a file's own folder left out). */
function folderGraph(): Map<string, string[]> {
  const folder = (file: string) => path.relative(SRC, file).split('/')[0] as string;
  const graph = new Map<string, Set<string>>();
  for (const [file, imports] of srcImportGraph()) {
    const from = folder(file);
    const edges = graph.get(from) ?? new Set<string>();
    for (const imported of imports) if (folder(imported) !== from) edges.add(folder(imported));
    graph.set(from, edges);
  }
  return new Map([...graph].map(([from, edges]) => [from, [...edges]]));
}

test('src/ folders import each other without a circle (variant-a ↔ variant-common was one)', () => {
  const graph = folderGraph();
  assert.ok(graph.size > 10, 'the walker sees the folders');
  assert.equal(findCycle(graph)?.join(' → '), undefined);
});

test('the MCP bridge reaches the daemon through the client and the shared request rules, never a route table', () => {
  const reached = folderGraph().get('mcp') ?? [];
  for (const routes of ['variant-a', 'variant-b', 'variant-common', 'http', 'daemon']) assert.ok(!reached.includes(routes), `mcp imports ${routes}`);
});
