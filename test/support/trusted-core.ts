/**
 * The audited core's rule and its closure (SECURITY.md, "The audited core"; docs/decisions.md
 * §28.7, §34.6, §43), shared by test/build/trusted-core.test.ts, which checks SECURITY.md's table
 * against it, and scripts/trusted-core.ts, which lists every file with the import chain that
 * reaches it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from './paths.js';

export const SRC = path.join(REPO_ROOT, 'src');

/**
 * The rule: what decides, records or signs. The signer (every key and every signature); the one
 * pipeline and the core's operations; the spending policy's decision; owner presence, its sessions
 * and WebAuthn, whose answer the core trusts as `ownerPresent`; the stores (the journal, state.journal,
 * the audit log and its anchor); the /v1 proxy, which signs upstream and forwards held windows;
 * and the cloud client, which writes each request's audit line before it is sent. In the daemon's
 * wiring, the files that decide or record rather than bind (docs/decisions.md §43): which policy is
 * in force (`policy-source.ts`, `policy-in-force.ts`), what each audit line says
 * (`audit-records.ts`, `refusal-audit.ts`) and how the daemon writes and anchors audit.log
 * (`audit-recorder.ts`, `audit-anchor-keeper.ts`). The AP2 formats the mandate key signs, the
 * card-data guard and the rest are in the count because these reach them.
 */
export const SEEDS: readonly RegExp[] = [
  /^signer\//, /^core\//, /^policy\//, /^owner\//, /^webauthn\//, /^store\//, /^proxy\//, /^datadir\/(audit-[\w-]+|state-store|atomic-file)\.ts$/, /^cloud\/cloud-client\.ts$/,
  /^daemon\/(policy-source|policy-in-force|audit-records|refusal-audit|audit-recorder|audit-anchor-keeper)\.ts$/];
/**
 * What the core must never reach, even through another file: presentation, tools, the test cloud,
 * the reads and bindings, the verifiers. The daemon files the rule names are counted, and what
 * they reach of daemon/ with them (policy-source.ts re-reads policy.json through
 * reload-on-change.ts); nothing else of the core reaches daemon/.
 */
export const OUTSIDE = ['sandbox/', 'cli/', 'service/', 'console/', 'mcp/', 'quickstart/', 'client/', 'variant-a/', 'variant-b/', 'variant-common/', 'requests/', 'operations/', 'verify/', 'policy-text/', 'daemon/'];

export const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts')).map((name) => name.split(path.sep).join('/')).sort();
export const lineCount = (names: readonly string[]): number => names.reduce((total, name) => total + readFileSync(path.join(SRC, name), 'utf8').split('\n').length - 1, 0);
export const codeCount = (names: readonly string[]): number =>
  names.reduce((count, name) => count + readFileSync(path.join(SRC, name), 'utf8').split('\n').filter((line) => line.trim() !== '' && !/^\s*(\/\/|\/\*|\*)/.test(line)).length, 0);

/** valueImports lists the src files a file imports for their values (not `import type`, not type-only names). */
export function valueImports(name: string): string[] {
  const full = path.join(SRC, name);
  const source = ts.createSourceFile(full, readFileSync(full, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const add = (specifier: ts.Expression | undefined): void => {
    if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) return;
    found.push(path.relative(SRC, path.resolve(path.dirname(full), specifier.text).replace(/\.js$/, '.ts')).split(path.sep).join('/'));
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const onlyTypes = clause?.isTypeOnly === true || (clause?.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly));
      if (!onlyTypes) add(node.moduleSpecifier);
    } else if (ts.isExportDeclaration(node)) {
      if (!node.isTypeOnly) add(node.moduleSpecifier);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

export const seeds = files.filter((name) => SEEDS.some((seed) => seed.test(name)));

/**
 * closureFrom maps each file the given seeds reach to the file whose value import first reaches it,
 * walking breadth first (null for a seed): following it back gives the shortest import chain that
 * puts a file in the count.
 */
export function closureFrom(start: readonly string[]): Map<string, string | null> {
  const from = new Map<string, string | null>(start.map((seed) => [seed, null]));
  const queue = [...start];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const imported of valueImports(next)) {
      if (from.has(imported)) continue;
      from.set(imported, next);
      queue.push(imported);
    }
  }
  return from;
}

/** reachedFrom is the closure of the rule's seeds (see closureFrom). */
export const reachedFrom: ReadonlyMap<string, string | null> = closureFrom(seeds);

/** core is the audited core: the seeds and every file their value imports reach, sorted. */
export const core: readonly string[] = [...reachedFrom.keys()].sort();

/** importChain is the chain of value imports from a seed to name (`core/a.ts > ids/b.ts`). */
export function importChain(name: string): string {
  const from = reachedFrom.get(name);
  return from === null || from === undefined ? name : `${importChain(from)} > ${name}`;
}
/** rowOf is the table row a core file is counted in: its top-level folder (`src/signer/`), or the file at src/'s top. */
export const rowOf = (name: string): string => (name.includes('/') ? `src/${name.split('/')[0]}/` : `src/${name}`);
