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

/** reachedFolders lists the folders whose files the files of `from` reach by following imports. */
function reachedFolders(from: string): Set<string> {
  const graph = srcImportGraph();
  const folder = (file: string) => path.relative(SRC, file).split('/')[0] as string;
  const stack = [...graph.keys()].filter((file) => folder(file) === from);
  const seen = new Set<string>(stack);
  while (stack.length > 0) {
    for (const imported of graph.get(stack.pop() as string) ?? []) {
      if (seen.has(imported)) continue;
      seen.add(imported);
      stack.push(imported);
    }
  }
  return new Set([...seen].map(folder));
}

test('the shared folders reach no variant: variant-common and the request rules import neither route table, even through others (variant-a ↔ variant-common was a circle)', () => {
  for (const shared of ['variant-common', 'requests']) {
    const reached = reachedFolders(shared);
    assert.ok(reached.size > 3, `the walker follows ${shared}'s imports`);
    for (const variant of ['variant-a', 'variant-b']) assert.ok(!reached.has(variant), `${shared} reaches ${variant}`);
  }
});

test('the MCP bridge reaches the daemon through the client and the shared request rules, never a route table', () => {
  const reached = reachedFolders('mcp');
  assert.ok(reached.has('client') && reached.has('requests'), 'the walker follows mcp\'s imports');
  for (const routes of ['variant-a', 'variant-b', 'variant-common']) assert.ok(!reached.has(routes), `mcp reaches ${routes}`);
});
