/**
 * The audited core (SECURITY.md, "The audited core"; docs/decisions.md §28.7): the paths a
 * reviewer reads to trust "nothing signs beyond the policy" and "nothing acknowledged is lost".
 * The table in SECURITY.md is the list; this test computes every line count it states, so the
 * figures cannot drift from the tree, and keeps the sandbox, the CLI, the service files, the
 * console, MCP, the quickstart, the client, the bench and the parts that left the core out of its import closure.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { SRC, srcImportGraph } from '../support/import-graph.js';
import { REPO_ROOT } from '../support/paths.js';

/** The goal, 8,000 lines, is the ceiling: the core may not grow past it without a decision (docs/decisions.md §28.12). */
const TRUSTED_CORE_LINES_MAX = 8_000;
/**
 * What the core must never reach, even through another file: presentation, tools and the test cloud,
 * and the parts that left it (docs/decisions.md §28.8, §28.12): who the owner is, the reads and
 * bindings, the verifiers, the policy's texts and reads.
 */
const OUTSIDE = ['sandbox/', 'cli/', 'service/', 'console/', 'mcp/', 'quickstart/', 'client/', 'variant-a/', 'variant-b/', 'variant-common/', 'requests/', 'owner/', 'operations/', 'verify/', 'policy-text/'];

const securityMd = readFileSync(path.join(REPO_ROOT, 'SECURITY.md'), 'utf8');
const section = /## The audited core\n([\s\S]*?)\n## /.exec(securityMd)?.[1] ?? '';
const rows = [...section.matchAll(/^\| `(src\/[^`]+)` \| ([\d,]+) \|/gm)].map((match) => ({ pattern: match[1] as string, stated: Number((match[2] as string).replace(/,/g, '')) }));
const number = (text: string | undefined): number => Number((text ?? 'NaN').replace(/,/g, ''));

/** filesOf expands a row: a folder (every .ts under it), a file, or a `name-*.ts` pattern in one folder. */
function filesOf(pattern: string): string[] {
  const full = path.join(REPO_ROOT, pattern);
  if (pattern.endsWith('/')) return readdirSync(full, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts')).map((name) => path.join(full, name));
  if (!pattern.includes('*')) return statSync(full).isFile() ? [full] : [];
  const [prefix, suffix] = path.basename(pattern).split('*') as [string, string];
  const folder = path.dirname(full);
  return readdirSync(folder).filter((name) => name.startsWith(prefix) && name.endsWith(suffix)).map((name) => path.join(folder, name));
}

const lineCount = (files: readonly string[]): number => files.reduce((total, file) => total + readFileSync(file, 'utf8').split('\n').length - 1, 0);
const coreFiles = [...new Set(rows.flatMap((row) => filesOf(row.pattern)))];

function closure(): string[] {
  const graph = srcImportGraph();
  const seen = new Set<string>();
  const stack = [...coreFiles];
  while (stack.length > 0) {
    const file = stack.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    stack.push(...(graph.get(file) ?? []));
  }
  return [...seen];
}

test('SECURITY.md names the audited core, and every line count it states is the tree\'s', () => {
  assert.ok(rows.length >= 5, 'SECURITY.md has the table of the audited core');
  const computed = rows.map((row) => ({ pattern: row.pattern, stated: lineCount(filesOf(row.pattern)) }));
  assert.deepEqual(rows, computed, 'update the table in SECURITY.md to these counts');
  const total = lineCount(coreFiles);
  assert.equal(number(/\*\*Total\*\* \| \*\*([\d,]+)\*\*/.exec(section)?.[1]), total, 'the table\'s total');
  const code = coreFiles.reduce((count, file) => count + readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '' && !/^\s*(\/\/|\/\*|\*)/.test(line)).length, 0);
  assert.equal(number(/([\d,]+) are code \(without blank lines and comments\)/.exec(section)?.[1]), code, 'the code lines SECURITY.md states');
  assert.ok(total <= TRUSTED_CORE_LINES_MAX, `the audited core is ${total} lines, over its ceiling of ${TRUSTED_CORE_LINES_MAX}`);
});

test('the lines the core imports from outside its paths are counted too, as SECURITY.md says', () => {
  const outsideFiles = closure().filter((file) => !coreFiles.includes(file));
  assert.equal(number(/its import closure adds ([\d,]+) lines/.exec(section)?.[1]), lineCount(outsideFiles), outsideFiles.map((file) => path.relative(SRC, file)).sort().join('\n'));
});

test('the audited core reaches none of the sandbox, the CLI, service files, the console, MCP, the quickstart, the client, owner presence, the operations, the verifiers or the policy texts', () => {
  const reached = closure().map((file) => path.relative(SRC, file)).filter((file) => OUTSIDE.some((folder) => file.startsWith(folder)));
  assert.deepEqual(reached, []);
  // The bench is outside src/ altogether; nothing in src/ imports it.
  assert.ok(coreFiles.every((file) => !/from '(\.\.\/)+bench\//.test(readFileSync(file, 'utf8'))));
});
