/**
 * Invariants (src/errors/invariant.ts, docs/decisions.md §33): a broken one stops the process with
 * one line naming it and exit status 70, not an exception a handler could answer 500 to and go
 * on; the stores assert theirs where they must hold; and the docs list every one by name.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { ApprovalBook } from '../../src/core/approval-book.js';
import { INVARIANTS, INVARIANT_EXIT_CODE, InvariantBroken, invariant, onInvariantBroken, throwBroken } from '../../src/errors/invariant.js';
import { REPO_ROOT } from '../support/paths.js';
import { PENDING_APPROVAL } from '../support/pending-approval.js';

const PENDING = PENDING_APPROVAL;

test('a broken invariant stops the process with one line naming it, and status 70', () => {
  const code = "import { invariant } from './src/errors/invariant.ts'; invariant(false, 'approval_decided_once', 'ap_1'); console.log('went on');";
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.equal(child.status, INVARIANT_EXIT_CODE, child.stderr);
  assert.equal(child.stdout, '', 'nothing runs after it');
  const line = JSON.parse(child.stderr.trim().split('\n').at(-1) as string) as Record<string, string>;
  assert.deepEqual([line['level'], line['event'], line['invariant'], line['detail']], ['fatal', 'invariant_broken', 'approval_decided_once', 'ap_1']);
});

test('a handler replaces stopping (for tests) and is restored', () => {
  const restore = onInvariantBroken(throwBroken);
  try {
    assert.doesNotThrow(() => invariant(true, 'approval_decided_once'));
    assert.throws(() => invariant(false, 'approval_decided_once', 'ap_2'), (error: unknown) => error instanceof InvariantBroken && error.invariant === 'approval_decided_once');
  } finally {
    restore();
  }
});

test('deciding an approval that is not pending breaks approval_decided_once', async () => {
  const restore = onInvariantBroken(throwBroken);
  try {
    const book = new ApprovalBook();
    const pending = PENDING;
    await book.add(pending);
    await book.update({ ...pending, status: 'denied' });
    await assert.rejects(book.update({ ...pending, status: 'approved' }), (error: unknown) => error instanceof InvariantBroken && error.invariant === 'approval_decided_once');
    assert.equal(book.get('ap_1')?.status, 'denied', 'and the decision stays');
  } finally {
    restore();
  }
});

/** assertedNames reads src/ with TypeScript's parser: the name (second argument, a string literal) of every call of invariant(). */
function assertedNames(): Map<string, string[]> {
  const names = new Map<string, string[]>();
  const src = path.join(REPO_ROOT, 'src');
  for (const relative of readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts')).sort()) {
    const file = ts.createSourceFile(relative, readFileSync(path.join(src, relative), 'utf8'), ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'invariant') {
        const name = node.arguments[1];
        assert.ok(name !== undefined && ts.isStringLiteral(name), `src/${relative}: invariant() names its invariant with a string literal`);
        names.set(name.text, [...(names.get(name.text) ?? []), `src/${relative}`]);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return names;
}

test('every invariant of INVARIANTS is asserted somewhere in src/, and nothing else is', () => {
  const asserted = assertedNames();
  for (const name of Object.keys(INVARIANTS)) assert.ok(asserted.has(name), `${name} is asserted in src/ (found: ${[...asserted.keys()].join(', ')})`);
  for (const [name, files] of asserted) assert.ok(name in INVARIANTS, `${files.join(', ')} asserts ${name}, which INVARIANTS does not list`);
});

test('docs/decisions.md §33 and SECURITY.md list every invariant by name', () => {
  const decisions = readFileSync(path.join(REPO_ROOT, 'docs/decisions.md'), 'utf8');
  const section = decisions.slice(decisions.indexOf('## 33.'));
  const security = readFileSync(path.join(REPO_ROOT, 'SECURITY.md'), 'utf8');
  for (const name of Object.keys(INVARIANTS)) {
    assert.ok(section.includes(`\`${name}\``), `docs/decisions.md §33 lists ${name}`);
    assert.ok(security.includes(`\`${name}\``), `SECURITY.md lists ${name}`);
  }
});
