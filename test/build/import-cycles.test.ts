/**
 * No import circle in src/: a module graph with a cycle has no order in which each module is
 * complete when it is used, and it hides which layer depends on which. Type-only imports count
 * too, since they describe the same dependency.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../support/paths.js';

const SRC = path.join(REPO_ROOT, 'src');
const SPECIFIER = /^\s*(?:import|export)\b[^'";]*?\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]|^\s*import\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** localImports lists the src files a file imports by relative path (`./x.js` is `./x.ts`). */
export function localImports(file: string, text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(SPECIFIER)) {
    const specifier = (match[1] ?? match[2]) as string;
    found.push(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
  }
  return found;
}

/** findCycle returns one import circle as a list of files, or undefined when the graph has none. */
export function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle !== undefined) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of [...graph.keys()].sort()) {
    const cycle = visit(node);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

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
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) graph.set(file, localImports(file, readFileSync(file, 'utf8')));
  assert.ok(graph.size > 50, 'the walker sees the source tree');
  const cycle = findCycle(graph);
  assert.equal(cycle?.map((file) => path.relative(SRC, file)).join(' → '), undefined);
});
