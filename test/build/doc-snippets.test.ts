/**
 * Every documented code snippet compiles under strict TypeScript, as an embedder would write it:
 * the ```ts blocks of README.md and docs/*.md, and the @example blocks of the package's entries
 * and the client, with 'latch' and 'latch/sandbox' resolved to this tree's entries.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { REPO_ROOT } from '../../scripts/build-bundles.js';

interface Snippet {
  where: string;
  code: string;
}

/** The fenced ```ts blocks of one Markdown file. */
function markdownSnippets(file: string): Snippet[] {
  const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
  return [...text.matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```$/gm)].map((match, i) => ({ where: `${file} block ${i + 1}`, code: match[1] as string }));
}

/** The @example blocks of one source file's doc comments. */
function exampleSnippets(file: string): Snippet[] {
  const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
  return [...text.matchAll(/^\s*\* @example\n((?:\s*\*(?! @|\/).*\n)+)/gm)].map((match, i) => ({
    where: `${file} @example ${i + 1}`,
    code: (match[1] as string).replace(/^\s*\* ?/gm, ''),
  }));
}

const snippets: Snippet[] = [
  ...['README.md', ...readdirSync(path.join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)].flatMap(markdownSnippets),
  ...['src/index.ts', 'src/sandbox/index.ts', ...readdirSync(path.join(REPO_ROOT, 'src/client')).map((name) => `src/client/${name}`)].flatMap(exampleSnippets),
];

test('the documented snippets are found: the embedding and client examples', () => {
  const where = snippets.map((s) => s.where);
  for (const expected of ['docs/packaging.md', 'docs/cli.md', 'src/index.ts @example', 'src/sandbox/index.ts @example', 'src/client/latch-client.ts @example']) {
    assert.ok(where.some((w) => w.startsWith(expected)), `${expected} has a snippet (found: ${where.join(', ')})`);
  }
});

test('every documented snippet compiles under strict TypeScript', () => {
  // Each snippet is a module of its own beside this file (ES module: top-level await is allowed).
  const files = new Map(snippets.map((snippet, i) => [path.join(REPO_ROOT, 'test', 'build', `snippet-${i}.ts`), snippet]));
  const options: ts.CompilerOptions = {
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
    types: ['node'],
    baseUrl: REPO_ROOT,
    paths: { latch: ['src/index.ts'], 'latch/sandbox': ['src/sandbox/index.ts'], 'latch/x402': ['src/x402-guard/index.ts'] },
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (file) => files.get(path.resolve(file))?.code ?? readFile(file);
  host.fileExists = (file) => files.has(path.resolve(file)) || fileExists(file);
  const program = ts.createProgram([...files.keys()], options, host);
  // Only the snippets' own diagnostics are asked for: the checker then checks of src/ just what the
  // snippets use, where getPreEmitDiagnostics(program) checked all of src/ to keep the snippets' part
  // (about half this file's CPU time). A snippet's diagnostics are the same either way.
  const snippetFiles = program.getSourceFiles().filter((file) => files.has(path.resolve(file.fileName)));
  assert.equal(snippetFiles.length, files.size, 'every snippet is in the program');
  const diagnostics = snippetFiles.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]);
  const problems = diagnostics.map((d) => `${files.get(path.resolve((d.file as ts.SourceFile).fileName))?.where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  assert.deepEqual(problems, []);
});
