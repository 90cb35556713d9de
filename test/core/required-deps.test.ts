/**
 * No safety step is optional (docs/decisions.md §18.3, §44): every dependency the core is given is
 * a required member, so a wiring that forgets one is a type error rather than a daemon that skips
 * it. Read from the syntax tree: every interface in src/core whose name ends in `Deps` (CoreDeps,
 * ApprovalDeps, X402Deps, MandateDeps, ...), each member checked for a `?`.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { REPO_ROOT } from '../support/paths.js';

const CORE = path.join(REPO_ROOT, 'src', 'core');

/** depsInterfaces lists every `…Deps` interface declared in src/core with its file and its optional members. */
function depsInterfaces(): { name: string; file: string; optional: string[] }[] {
  const found: { name: string; file: string; optional: string[] }[] = [];
  for (const file of readdirSync(CORE).filter((name) => name.endsWith('.ts')).sort()) {
    const source = ts.createSourceFile(file, readFileSync(path.join(CORE, file), 'utf8'), ts.ScriptTarget.ES2022, true);
    const visit = (node: ts.Node): void => {
      if (ts.isInterfaceDeclaration(node) && node.name.text.endsWith('Deps')) {
        const optional = node.members.filter((member) => member.questionToken !== undefined).map((member) => member.name?.getText(source) ?? '(unnamed)');
        found.push({ name: node.name.text, file, optional });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

test('the core\'s dependency interfaces have no optional member: each safety step, recorder and clock is required', () => {
  const interfaces = depsInterfaces();
  assert.ok(interfaces.some((found) => found.name === 'CoreDeps'), 'CoreDeps is among the interfaces read');
  const optional = interfaces.flatMap(({ name, file, optional: members }) => members.map((member) => `${file}: ${name}.${member}`));
  assert.deepEqual(optional, [], 'make these required; a test that leaves one out passes a named no-op or fake (test/support/core-deps.ts)');
});
