/**
 * The signing boundary, read from the syntax tree (docs/decisions.md §34.4): TypeScript's own
 * parser reads every file of a source tree, so every way a module can be reached counts — import
 * declarations with either quote (default, namespace, named, side effect), `import x = require()`,
 * `export … from` re-exports, `import()` and `require()` calls, `createRequire`, and the global
 * WebCrypto (`globalThis.crypto`, `crypto.subtle`). boundaryOffences takes the tree's root, so a
 * test can run it on a scratch copy with a planted file and see it fail.
 *
 * Outside src/signer/, a file may reach the signer only through key-admin.ts (key files, nothing
 * signed), ed25519-verify.ts (public verification), the types of index.ts, and createSigner — the
 * last from the daemon's wiring alone. It may not import a signing primitive (node:crypto's sign,
 * createSign, createPrivateKey, generateKeyPair*, createECDH, webcrypto or subtle; any of
 * node:crypto as a whole; @noble/ed25519 or @noble/curves), nor read a key file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** node:crypto's names that sign, make a private key or reach WebCrypto. */
const SIGNING_CRYPTO_NAMES = new Set(['sign', 'createSign', 'Sign', 'createPrivateKey', 'generateKeyPair', 'generateKeyPairSync', 'generateKey', 'generateKeySync', 'createECDH', 'ECDH', 'diffieHellman', 'privateEncrypt', 'privateDecrypt', 'webcrypto', 'subtle']);
/** The modules that hold signing primitives outright. */
const SIGNING_MODULES = [/^@noble\/ed25519(\/|$)/, /^@noble\/curves(\/|$)/, /^@noble\/secp256k1(\/|$)/];
const CRYPTO_MODULES = new Set(['crypto', 'node:crypto']);
/** The signer's modules the rest of src/ may import, and what of index.ts. */
const OPEN_SIGNER_MODULES = new Set(['key-admin.ts', 'ed25519-verify.ts']);
const FACTORY = 'createSigner';
/** The one file that may build the signer (relative to the tree's root). */
export const SIGNER_WIRING = path.join('daemon', 'core-binding.ts');
/** Calls that read a file, and the names that make their argument a key file. */
const READS = new Set(['readFileSync', 'readFile', 'createReadStream', 'openSync', 'open', 'readPrivateFile']);
const KEY_FILE_WORDS = /device\.key|mandate\.key|\.identity\b|deviceKey|mandateKey|identityKey(File|Path)|DATA_FILES\.(deviceKey|deviceKeyNext|mandateKey)\b/;
/** The members of DATA_FILES that name a key file: only the signer (and datadir/data-files.ts, which defines them) may name them. */
const KEY_FILE_MEMBERS = new Set(['deviceKey', 'deviceKeyNext', 'mandateKey']);

/** One way a file reaches a module. */
interface Reach {
  specifier: string | undefined;
  /** The names taken; `*` for the whole module (namespace, default, require, import(), export *). */
  names: string[];
  typeOnly: boolean;
  form: string;
}

function sourceFiles(root: string): string[] {
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.join(root, name))
    .sort();
}

/** reaches lists every module a file reaches, in every form. */
function reaches(file: ts.SourceFile): { reaches: Reach[]; other: string[] } {
  const found: Reach[] = [];
  const other: string[] = [];
  const literal = (node: ts.Node | undefined): string | undefined => (node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const names: string[] = [];
      if (clause === undefined) names.push('*');
      else {
        if (clause.name !== undefined) names.push('*');
        const bindings = clause.namedBindings;
        if (bindings !== undefined && ts.isNamespaceImport(bindings)) names.push('*');
        if (bindings !== undefined && ts.isNamedImports(bindings)) {
          for (const element of bindings.elements) if (!element.isTypeOnly || clause.isTypeOnly) names.push((element.propertyName ?? element.name).text);
          if (!clause.isTypeOnly && bindings.elements.every((element) => element.isTypeOnly) && clause.name === undefined) {
            found.push({ specifier: literal(node.moduleSpecifier), names: bindings.elements.map((element) => (element.propertyName ?? element.name).text), typeOnly: true, form: 'import' });
            return;
          }
        }
      }
      found.push({ specifier: literal(node.moduleSpecifier), names, typeOnly: clause?.isTypeOnly === true, form: 'import' });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined) {
      const clause = node.exportClause;
      const names = clause === undefined || ts.isNamespaceExport(clause) ? ['*'] : clause.elements.map((element) => (element.propertyName ?? element.name).text);
      found.push({ specifier: literal(node.moduleSpecifier), names, typeOnly: node.isTypeOnly, form: 're-export' });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      found.push({ specifier: literal(node.moduleReference.expression), names: ['*'], typeOnly: node.isTypeOnly, form: 'import = require' });
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      found.push({ specifier: ts.isLiteralTypeNode(argument) ? literal(argument.literal) : undefined, names: ['*'], typeOnly: true, form: 'import type' });
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const first = node.arguments[0];
      if (callee.kind === ts.SyntaxKind.ImportKeyword) found.push({ specifier: literal(first), names: ['*'], typeOnly: false, form: 'import()' });
      else if (ts.isIdentifier(callee) && callee.text === 'require') found.push({ specifier: literal(first), names: ['*'], typeOnly: false, form: 'require()' });
      const calleeName = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : undefined;
      if (calleeName !== undefined && READS.has(calleeName) && first !== undefined && KEY_FILE_WORDS.test(first.getText(file))) other.push(`reads a key file (${calleeName}(${first.getText(file)}))`);
    }
    if (ts.isIdentifier(node) && node.text === 'createRequire') other.push('uses createRequire');
    if (ts.isPropertyAccessExpression(node)) {
      const name = node.name.text;
      const object = node.expression.getText(file);
      if (name === 'subtle' || name === 'webcrypto') other.push(`reaches WebCrypto (${node.getText(file)})`);
      if (name === 'crypto' && /^(globalThis|global|self|window)$/.test(object)) other.push(`reaches the global crypto (${node.getText(file)})`);
      if (object === 'DATA_FILES' && KEY_FILE_MEMBERS.has(name)) other.push(`names a key file (${node.getText(file)})`);
    }
    if (ts.isElementAccessExpression(node)) {
      const key = literal(node.argumentExpression);
      if (key === 'crypto' || key === 'subtle' || key === 'webcrypto') other.push(`reaches WebCrypto (${node.getText(file)})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { reaches: found, other };
}

/** globalCrypto reports a use of the global `crypto` in a file that imports no binding of that name. */
function globalCryptoUses(file: ts.SourceFile): string[] {
  const bound = new Set<string>();
  const uses: string[] = [];
  const collect = (node: ts.Node): void => {
    if ((ts.isImportSpecifier(node) || ts.isNamespaceImport(node) || ts.isImportClause(node) || ts.isVariableDeclaration(node) || ts.isParameter(node) || ts.isImportEqualsDeclaration(node)) && node.name !== undefined && ts.isIdentifier(node.name)) bound.add(node.name.text);
    ts.forEachChild(node, collect);
  };
  collect(file);
  if (bound.has('crypto')) return [];
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'crypto') uses.push(`reaches the global crypto (${node.getText(file)})`);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return uses;
}

/** boundaryOffences lists every way a file under root, outside root/signer/, reaches a key or a signing primitive. */
export function boundaryOffences(root: string): string[] {
  const signer = path.join(root, 'signer');
  const offences: string[] = [];
  for (const full of sourceFiles(root)) {
    if (full.startsWith(signer + path.sep)) continue;
    const relative = path.relative(root, full);
    const text = readFileSync(full, 'utf8');
    const file = ts.createSourceFile(full, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
    const found = reaches(file);
    const offend = (why: string): void => void offences.push(`${relative} ${why}`);
    for (const why of found.other) if (!(relative === path.join('datadir', 'data-files.ts') && why.startsWith('names a key file'))) offend(why);
    for (const why of globalCryptoUses(file)) offend(why);
    for (const reach of found.reaches) {
      const { specifier, names, typeOnly, form } = reach;
      if (specifier === undefined) {
        if (!typeOnly) offend(`${form} of a module it does not name`);
        continue;
      }
      if (typeOnly) continue;
      if (SIGNING_MODULES.some((module) => module.test(specifier))) offend(`${form} ${specifier}`);
      if (CRYPTO_MODULES.has(specifier)) {
        for (const name of names) if (name === '*' || SIGNING_CRYPTO_NAMES.has(name)) offend(`${form} ${name === '*' ? 'all of' : name + ' from'} ${specifier}`);
      }
      if (specifier.startsWith('.')) {
        const target = path.resolve(path.dirname(full), specifier).replace(/\.js$/, '.ts');
        const inSigner = target === signer || target.startsWith(signer + path.sep);
        if (!inSigner) continue;
        const module = target === signer ? 'index.ts' : path.relative(signer, target);
        if (OPEN_SIGNER_MODULES.has(module)) continue;
        if (module === 'index.ts' && names.every((name) => name === FACTORY) && relative === SIGNER_WIRING && form === 'import') continue;
        offend(`${form} ${names.join(', ')} from signer/${module}`);
      }
    }
  }
  return offences;
}
