/**
 * The JavaScript builds of Latch, made with esbuild (a dev-only tool, decisions §0):
 *
 * - the CLI bundle (dist/latch.cjs): src/cli/bin-entry.ts and everything it imports, the noble
 *   packages included, as one CommonJS file that needs only Node's built-in modules. It is the npm
 *   package's `bin` and the script inside the single binary.
 * - the library bundle (dist/index.js): src/index.ts as one ES module for embedding, importing the
 *   noble packages from the package's declared dependencies.
 * - type declarations (dist/types/) for the library, emitted by the TypeScript compiler.
 */
import { readFileSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Message, type Metafile, type Plugin } from 'esbuild';
import ts from 'typescript';

/** The repository root (this file is in scripts/). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The Node version the bundles are compiled for (package.json's engines). */
const NODE_TARGET = 'node20';

/**
 * Warnings known to be harmless, each with its reason; any other esbuild warning fails the build.
 * All are `import.meta` in code that the bundle never relies on.
 */
const ALLOWED_WARNINGS: ReadonlyArray<{ id: string; file: string; why: string }> = [
  { id: 'empty-import-meta', file: 'src/cli/main.ts', why: 'isEntryPoint() is false in a bundle; bin-entry.ts runs the CLI instead' },
  { id: 'empty-import-meta', file: 'src/version.ts', why: 'the package.json fallback is unreachable once LATCH_BUILD_VERSION is defined' },
  { id: 'empty-import-meta', file: 'src/sandbox/sandbox-thread.ts', why: 'the worker module beside it is for sources; a bundle loads itself as the worker (bin-entry.ts)' },
];

/** A third-party package whose code a bundle contains. */
export interface BundledPackage {
  name: string;
  version: string;
  license: string;
}

/** What one bundle build produced. */
export interface BundleReport {
  file: string;
  bytes: number;
  /** Third-party packages inlined into the bundle (empty when they stay imports). */
  bundled: BundledPackage[];
}

/** packageVersion returns package.json's version, which the bundles carry as LATCH_BUILD_VERSION. */
export function packageVersion(): string {
  const version: unknown = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version?: unknown }).version;
  if (typeof version !== 'string') throw new Error('package.json has no version');
  return version;
}

/**
 * runtimeDependencyVersions returns package.json's dependencies with the versions installed in
 * root's node_modules (npm ci installs the lockfile's), which `latch --version --json` reports.
 */
export function runtimeDependencyVersions(root = REPO_ROOT): Record<string, string> {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  const found: Record<string, string> = {};
  for (const name of Object.keys(manifest.dependencies ?? {}).sort()) {
    const version: unknown = (JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version?: unknown }).version;
    if (typeof version !== 'string') throw new Error(`node_modules/${name} has no version (run npm ci)`);
    found[name] = version;
  }
  return found;
}

/**
 * bundleCli writes the self-contained CommonJS CLI bundle to outFile; root is the checkout whose
 * sources it bundles (this one by default; the benchmark's --compare bundles another).
 */
export async function bundleCli(outFile: string, root = REPO_ROOT): Promise<BundleReport> {
  return bundleScript(path.join(root, 'src/cli/bin-entry.ts'), outFile, root);
}

/**
 * bundleScript writes entry and everything it imports as one self-contained CommonJS file, built
 * exactly as the CLI bundle is: the benchmark bundles its bare baseline server with it, so that
 * both start the same way.
 */
export async function bundleScript(entry: string, outFile: string, root = REPO_ROOT): Promise<BundleReport> {
  return bundle(
    outFile,
    {
      entryPoints: [entry],
      format: 'cjs',
      // import() of a built-in module (loaded when first needed) becomes a require() in a promise:
      // a Node 20 single executable has no dynamic import callback for its script.
      supported: { 'dynamic-import': false },
    },
    root,
  );
}

/** bundleLibrary writes the embedding entry (src/index.ts) as one ES module to outFile. */
export async function bundleLibrary(outFile: string): Promise<BundleReport> {
  return bundleModule(path.join(REPO_ROOT, 'src/index.ts'), outFile);
}

/**
 * bundleSandbox writes the sandbox entry for embedders' tests (src/sandbox/index.ts, the package's
 * `latch/sandbox`) as one ES module to outFile.
 */
export async function bundleSandbox(outFile: string): Promise<BundleReport> {
  return bundleModule(path.join(REPO_ROOT, 'src/sandbox/index.ts'), outFile);
}

/**
 * bundleX402 writes the x402 guard (src/x402-guard/index.ts, the package's `latch/x402`) as one ES
 * module to outFile: the agent's adapter, with no @x402/* package in it (docs/x402.md).
 */
export async function bundleX402(outFile: string): Promise<BundleReport> {
  return bundleModule(path.join(REPO_ROOT, 'src/x402-guard/index.ts'), outFile);
}

async function bundleModule(entry: string, outFile: string): Promise<BundleReport> {
  return bundle(outFile, {
    entryPoints: [entry],
    format: 'esm',
    // Embedders get the noble packages through npm, where they are deduplicated and audited.
    external: ['@noble/ed25519', '@noble/hashes', '@noble/hashes/*'],
  });
}

/** The package's entries whose declarations ship: 'latch', 'latch/sandbox' and 'latch/x402'. */
export const TYPED_ENTRIES = ['src/index.ts', 'src/sandbox/index.ts', 'src/x402-guard/index.ts'] as const;

/**
 * emitTypes writes the declaration files of the package's entries under outDir (index.d.ts,
 * sandbox/index.d.ts and the files their declarations import), with the same compiler settings
 * as tsconfig.json, and returns their paths. The compiler emits a declaration for every module
 * the entries import; those that no public type refers to (the front door, the router ...) are
 * left out.
 */
export function emitTypes(outDir: string): string[] {
  const configFile = ts.readConfigFile(path.join(REPO_ROOT, 'tsconfig.json'), (file) => ts.sys.readFile(file));
  if (configFile.error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(configFile.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, REPO_ROOT);
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: path.join(REPO_ROOT, 'src'),
    outDir,
  };
  const program = ts.createProgram(
    TYPED_ENTRIES.map((entry) => path.join(REPO_ROOT, entry)),
    options,
  );
  const emitted = new Map<string, string>();
  const result = program.emit(undefined, (file, text) => emitted.set(path.resolve(file), text));
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...result.diagnostics];
  if (diagnostics.length > 0) {
    throw new Error(ts.formatDiagnostics(diagnostics, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => REPO_ROOT, getNewLine: () => '\n' }));
  }
  const written: string[] = [];
  for (const file of reachableDeclarations(emitted, TYPED_ENTRIES.map((entry) => path.join(outDir, path.relative('src', entry).replace(/\.ts$/, '.d.ts'))))) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, emitted.get(file) as string);
    written.push(file);
  }
  return written.sort();
}

/** reachableDeclarations lists the declaration files the roots import, directly or not. */
function reachableDeclarations(emitted: ReadonlyMap<string, string>, roots: readonly string[]): string[] {
  const seen = new Set<string>();
  const queue = roots.map((root) => path.resolve(root));
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    const text = emitted.get(file);
    if (text === undefined) throw new Error(`emitTypes: no declaration emitted for ${file}`);
    seen.add(file);
    // import/export ... from '...' and import('...') types; only relative specifiers are ours.
    for (const match of text.matchAll(/(?:from\s+|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      queue.push(path.resolve(path.dirname(file), (match[1] as string).replace(/\.js$/, '.d.ts')));
    }
  }
  return [...seen];
}

async function bundle(outFile: string, options: Pick<BuildOptions, 'entryPoints' | 'format' | 'external' | 'supported'>, root = REPO_ROOT): Promise<BundleReport> {
  const version = packageVersion();
  const result = await build({
    ...options,
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    target: NODE_TARGET,
    outfile: outFile,
    write: false,
    metafile: true,
    // Readable output: a reviewer can read the bundle against the sources.
    minify: false,
    legalComments: 'none',
    define: { LATCH_BUILD_VERSION: JSON.stringify(version), LATCH_BUILD_DEPENDENCIES: JSON.stringify(runtimeDependencyVersions(root)) },
    logLevel: 'silent',
    plugins: [consoleFilesInlined()],
  });
  const unexpected = result.warnings.filter((warning) => !isAllowedWarning(warning));
  if (unexpected.length > 0) throw new Error(`esbuild warnings:\n${unexpected.map(describeMessage).join('\n')}`);
  const output = result.outputFiles[0];
  if (output === undefined || result.outputFiles.length !== 1) throw new Error('esbuild wrote no single output file');
  const bundled = bundledPackages(result.metafile);
  const text = asciiOnly(`${header(version, options.format ?? 'cjs', bundled)}${output.text}${licenseTexts(bundled)}`);
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, text);
  return { file: outFile, bytes: Buffer.byteLength(text), bundled };
}

/**
 * consoleFilesInlined replaces src/console/assets/console-files.ts, which reads the console's
 * browser files from beside itself, with a module that holds their bytes (base64), so that a bundle
 * serves them without a file to read (docs/decisions.md §29.5). The files are those the module
 * names in CONSOLE_FILES; one missing fails the build.
 */
function consoleFilesInlined(): Plugin {
  return {
    name: 'latch-console-files',
    setup(build) {
      build.onLoad({ filter: /[\\/]src[\\/]console[\\/]assets[\\/]console-files\.ts$/ }, (args) => {
        const folder = path.dirname(args.path);
        const source = readFileSync(args.path, 'utf8');
        const listed = /CONSOLE_FILES = \[([^\]]*)\]/.exec(source)?.[1];
        if (listed === undefined) throw new Error(`${args.path} names no CONSOLE_FILES`);
        const names = [...listed.matchAll(/'([^']+)'/g)].map((match) => match[1] as string);
        const present = new Set(readdirSync(folder));
        const files: Record<string, string> = {};
        for (const name of names) {
          if (!present.has(name)) throw new Error(`console file ${name} is missing beside ${args.path}`);
          files[name] = readFileSync(path.join(folder, name)).toString('base64');
        }
        const contents = [
          `export const CONSOLE_FILES = ${JSON.stringify(names)};`,
          `const FILES = ${JSON.stringify(files)};`,
          'export function consoleFile(name) {',
          "  if (!Object.hasOwn(FILES, name)) throw new Error('consoleFile: ' + name + ' is not a console file');",
          "  return new Uint8Array(Buffer.from(FILES[name], 'base64'));",
          '}',
        ].join('\n');
        return { contents, loader: 'js' };
      });
    },
  };
}

/**
 * asciiOnly escapes every character outside ASCII as \uXXXX (UTF-16 code units). esbuild already
 * escapes them in strings and identifiers, so what is left is in comments (a "§" or a "—" in a
 * doc comment, the license texts' quotes), where the escape is plain text. One such character
 * makes V8 hold the whole script as a two-byte string: twice the bundle's size in memory for
 * every process that runs it, the daemon included (docs/decisions.md §15.10).
 */
export function asciiOnly(text: string): string {
  return text.replace(/[^\x00-\x7f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function isAllowedWarning(warning: Message): boolean {
  return ALLOWED_WARNINGS.some((allowed) => warning.id === allowed.id && warning.location?.file === allowed.file);
}

function describeMessage(message: Message): string {
  const where = message.location === null ? '' : `${message.location.file}:${message.location.line}: `;
  return `  ${where}${message.text} [${message.id}]`;
}

/** bundledPackages lists the node_modules packages the metafile shows inside the output. */
function bundledPackages(metafile: Metafile): BundledPackage[] {
  const roots = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match?.[1] !== undefined) roots.add(match[1]);
  }
  return [...roots].sort().map((name) => {
    const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string; license?: string };
    return { name, version: manifest.version, license: manifest.license ?? 'UNKNOWN' };
  });
}

function header(version: string, format: string, bundled: BundledPackage[]): string {
  const contents = bundled.length === 0 ? 'no third-party code' : bundled.map((p) => `${p.name} ${p.version} (${p.license})`).join(', ');
  return `/* latch ${version}: built by scripts/build.ts with esbuild (${format}, ${NODE_TARGET}). Third-party code inside: ${contents}; license texts at the end. */\n`;
}

/** licenseTexts appends each bundled package's LICENSE, which its MIT license asks copies to keep. */
function licenseTexts(bundled: BundledPackage[]): string {
  return bundled
    .map((p) => {
      const text = readFileSync(path.join(REPO_ROOT, 'node_modules', p.name, 'LICENSE'), 'utf8').replaceAll('*/', '* /');
      return `\n/* License of ${p.name} ${p.version}:\n\n${text.trimEnd()}\n*/\n`;
    })
    .join('');
}
