/**
 * The JavaScript builds (scripts/build-bundles.ts), made into a temporary directory: the CLI
 * bundle runs with nothing but node and Node's built-in modules, the library bundle embeds a
 * daemon, and the declarations describe the library and nothing else.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import ts from 'typescript';
import { asciiOnly, bundleCli, bundleLibrary, bundleX402, emitTypes, packageVersion, REPO_ROOT, type BundleReport } from '../../scripts/build-bundles.js';
import { bundleProgram, killAll, runLatch, startLatch, type LatchProgram } from '../../scripts/latch-process.js';

let root: string;
let cli: BundleReport;
let library: BundleReport;

before(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'latch-build-test-'));
  cli = await bundleCli(path.join(root, 'cli', 'latch.cjs'));
  library = await bundleLibrary(path.join(root, 'lib', 'index.js'));
});

after(() => {
  killAll();
  rmSync(root, { recursive: true, force: true });
});

/** A minimal environment: no NODE_OPTIONS, no tsx loader, a data directory of the test's own. */
function bareEnv(home: string): NodeJS.ProcessEnv {
  return { PATH: path.dirname(process.execPath), HOME: root, LATCH_HOME: home };
}

function declaredDependencies(): Record<string, string> {
  return (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies;
}

/** requiredModules lists every module name the bundle passes to require(). */
function requiredModules(text: string): string[] {
  return [...text.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1] as string);
}

describe('the CLI bundle', () => {
  let latch: LatchProgram;
  before(() => {
    latch = bundleProgram(cli.file);
  });

  test('inlines exactly the declared runtime dependencies, at their declared versions', () => {
    const inlined = Object.fromEntries(cli.bundled.map((p) => [p.name, p.version]));
    assert.deepEqual(inlined, declaredDependencies());
    assert.ok(cli.bundled.every((p) => p.license === 'MIT'));
    const text = readFileSync(cli.file, 'utf8');
    for (const p of cli.bundled) assert.ok(text.includes(`License of ${p.name} ${p.version}`), `${p.name}'s license text is kept`);
  });

  test('is ASCII only, so that V8 keeps the script as a one-byte string', () => {
    for (const file of [cli.file, library.file]) assert.doesNotMatch(readFileSync(file, 'utf8'), /[^\x00-\x7f]/, file);
  });

  test("requires only Node's built-in modules, as a single executable demands", () => {
    // A Node 20 single executable cannot run import(): a module loaded late must be a require().
    assert.doesNotMatch(readFileSync(cli.file, 'utf8'), /\bimport\(/);
    const required = requiredModules(readFileSync(cli.file, 'utf8'));
    assert.ok(required.length > 0, 'the scan finds the require calls');
    assert.deepEqual(
      required.filter((name) => !isBuiltin(name)),
      [],
    );
  });

  test('runs the CLI exactly once: --version prints the version on one line', async () => {
    const run = await runLatch(latch, ['--version'], { env: bareEnv(path.join(root, 'unused')), cwd: path.dirname(cli.file) });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${packageVersion()}\n`);
  });

  test('an unknown command exits 2 with the help (the bundle keeps the exit codes)', async () => {
    const run = await runLatch(latch, ['no-such-command'], { env: bareEnv(path.join(root, 'unused')), cwd: path.dirname(cli.file) });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /unknown command/);
    assert.match(run.stderr, /daemon/);
  });

  test('latch daemon serves /health with the built-in version, the console files as their bytes, and stops on SIGTERM', async () => {
    const home = path.join(root, 'daemon-home');
    const daemon = startLatch(latch, ['daemon', '--port-a', '0', '--no-variant-b'], { env: bareEnv(home), cwd: path.dirname(cli.file) });
    try {
      const ready = await daemon.ready;
      assert.equal(ready['event'], 'daemon_listening');
      const response = await fetch(`http://127.0.0.1:${String(ready['port_a'])}/health`, { signal: AbortSignal.timeout(5_000) });
      assert.equal(response.status, 200);
      const health = (await response.json()) as Record<string, unknown>;
      assert.equal(health['version'], packageVersion());
      assert.equal(health['signing_key'], null);
      // The console's browser files travel inlined in the bundle and are served as their bytes (docs/decisions.md §29.5).
      for (const name of ['console.js', 'console.css', 'icon.svg']) {
        const asset = await fetch(`http://127.0.0.1:${String(ready['port_console'])}/assets/${name}`, { headers: { host: `localhost:${String(ready['port_console'])}` }, signal: AbortSignal.timeout(5_000) });
        assert.equal(asset.status, 200, name);
        assert.deepEqual(Buffer.from(await asset.arrayBuffer()), readFileSync(path.join(REPO_ROOT, 'src/console/assets', name)), name);
      }
    } finally {
      assert.deepEqual(await daemon.stop(), { code: 0, signal: null }, daemon.stderr());
    }
  });
});

describe('bin/latch.js', () => {
  test('runs dist/latch.cjs beside it, and explains a missing bundle when there are no sources either', async () => {
    const pkg = path.join(root, 'pkg');
    mkdirSync(path.join(pkg, 'bin'), { recursive: true });
    copyFileSync(path.join(REPO_ROOT, 'bin', 'latch.js'), path.join(pkg, 'bin', 'latch.js'));
    // bin/latch.js is an ES module because the package is "type": "module".
    copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(pkg, 'package.json'));
    const bin: LatchProgram = { name: 'bin', program: process.execPath, prefix: [path.join(pkg, 'bin', 'latch.js')] };
    const env = bareEnv(path.join(root, 'unused'));

    const missing = await runLatch(bin, ['--version'], { env, cwd: pkg });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /dist\/latch\.cjs is missing; reinstall the package/);

    mkdirSync(path.join(pkg, 'dist'));
    copyFileSync(cli.file, path.join(pkg, 'dist', 'latch.cjs'));
    const present = await runLatch(bin, ['--version'], { env, cwd: pkg });
    assert.equal(present.code, 0, present.stderr);
    assert.equal(present.stdout, `${packageVersion()}\n`);
  });
});

describe('the library bundle', () => {
  test('imports the noble packages instead of inlining them', () => {
    assert.deepEqual(library.bundled, []);
    const text = readFileSync(library.file, 'utf8');
    const imported = [...text.matchAll(/^import .* from ["']([^"']+)["'];?$/gm)].map((m) => m[1] as string).filter((name) => !isBuiltin(name));
    assert.ok(imported.length > 0);
    assert.ok(imported.every((name) => name.startsWith('@noble/')), imported.join(', '));
  });

  test('embeds a daemon: createDaemon, the client and latchVersion work from the bundle', async () => {
    // The bundle resolves @noble/* from a node_modules above it, as it would inside an install.
    symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'lib', 'node_modules'), 'dir');
    const latch = (await import(pathToFileURL(library.file).href)) as typeof import('../../src/index.js');
    assert.equal(latch.latchVersion(), packageVersion());
    const home = path.join(root, 'embedded-home');
    const daemon = latch.createDaemon({ home, portA: 0, variantB: false, env: {}, logStream: new PassThrough() });
    try {
      const { portA } = await daemon.listen();
      const client = new latch.LatchClient({ home, baseUrl: `http://127.0.0.1:${portA}`, env: {}, timeoutMs: 5_000 });
      try {
        assert.equal((await client.health()).version, packageVersion());
      } finally {
        client.close();
      }
    } finally {
      await daemon.close({ deadlineMs: 1_000 });
    }
  });
});

describe('the x402 guard bundle (latch/x402)', () => {
  let x402: BundleReport;
  before(async () => {
    x402 = await bundleX402(path.join(root, 'x402', 'x402.js'));
  });

  test('holds no @x402/* package and imports nothing but Node built-ins and the noble packages', () => {
    const text = readFileSync(x402.file, 'utf8');
    assert.doesNotMatch(text, /(?:from|import\(|require\()\s*["']@x402\//, 'no @x402/* package is imported');
    assert.doesNotMatch(text, /class x402Client|wrapFetchWithPayment/, 'nor bundled');
    const imported = [...text.matchAll(/^import .* from ["']([^"']+)["'];?$/gm)].map((m) => m[1] as string).filter((name) => !isBuiltin(name));
    assert.ok(imported.every((name) => name.startsWith('@noble/')), imported.join(', '));
    assert.ok(text.includes('latchX402Guard'));
  });

  test('the daemon never loads it: nothing the CLI or library bundle holds is the guard', () => {
    for (const file of [cli.file, library.file]) assert.doesNotMatch(readFileSync(file, 'utf8'), /latchX402Guard|onBeforePaymentCreation/, file);
  });
});

describe('the declarations', () => {
  let outDir: string;
  let files: string[];
  before(() => {
    outDir = path.join(root, 'types');
    files = emitTypes(outDir).map((file) => path.relative(outDir, file));
  });

  test("describe the three entries, 'latch' without the CLI or the sandbox, and ship only what their types import", () => {
    assert.ok(files.includes('index.d.ts'));
    assert.ok(files.includes(path.join('sandbox', 'index.d.ts')));
    assert.ok(files.includes(path.join('x402-guard', 'index.d.ts')));
    const index = readFileSync(path.join(outDir, 'index.d.ts'), 'utf8');
    for (const name of ['createDaemon', 'resolveHome', 'LatchError', 'latchVersion', "'./client/index.js'"]) assert.ok(index.includes(name), `index.d.ts mentions ${name}`);
    assert.doesNotMatch(index, /from '\.\/(sandbox|cli)\//);
    // Modules no public type refers to are not shipped (the proxy, the route tables, MCP ...).
    for (const internal of ['proxy', 'variant-a', 'variant-b', 'mcp', 'quickstart']) {
      assert.ok(!files.some((file) => file.startsWith(internal)), `${internal} is not shipped`);
    }
    // 59 before AP2 mandates; their six (ap2/ shapes and SD-JWT, ap2/p256, the mandate key file and
    // its signer) are reachable from DaemonServices and CoreDeps (docs/decisions.md §32).
    // The x402 guard adds its entry and guard, and the core's x402 steps and shapes reachable from
    // CoreDeps (docs/decisions.md §40).
    assert.ok(files.length < 82, `${files.length} declaration files`);
  });

  test('are complete: a strict consumer of both entries type-checks against them alone', () => {
    const consumer = path.join(outDir, 'consumer.ts');
    writeFileSync(
      consumer,
      `import { createDaemon, isPendingApproval, LatchClient, type DaemonOptions } from './index.js';
import { createSandbox, enrollThisDevice } from './sandbox/index.js';
import { latchX402Guard, type X402ClientLike } from './x402-guard/index.js';
export const guard = (client: X402ClientLike): X402ClientLike => latchX402Guard({ waitSeconds: 30 }).install(client);
const options: DaemonOptions = { home: '/tmp/h', portA: 0 };
export const run = async (): Promise<void> => {
  const sandbox = await createSandbox({ dataDir: '/tmp/s' });
  await enrollThisDevice({ home: options.home, env: {}, setupToken: 'x', cloudUrl: sandbox.url, reconnect: false });
  const daemon = createDaemon(options);
  await daemon.listen();
  const answer = await new LatchClient({ home: options.home }).authorize({ card_id: 'card_x', amount: '1.00', merchant_name: 'a.example' });
  if (!isPendingApproval(answer)) console.log(answer.policy_id, daemon.addresses().length);
};
`,
    );
    const program = ts.createProgram([consumer], {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      types: ['node'],
      typeRoots: [path.join(REPO_ROOT, 'node_modules', '@types')],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n') + (d.file === undefined ? '' : ` (${path.relative(outDir, d.file.fileName)})`));
    assert.deepEqual(problems, []);
  });
});

describe('asciiOnly', () => {
  test('escapes what is outside ASCII and leaves the meaning of code unchanged', () => {
    // Function bodies: comments, strings, templates, a Unicode regular expression, identifiers.
    const cases: Array<{ body: string; value: unknown }> = [
      { body: '/* § 7 — “quoted” */ return 1', value: 1 },
      { body: "return 'café § ' + 'é'", value: 'café § é' },
      { body: 'return `€${"😀"}`', value: '€😀' },
      { body: 'return /^[é😀]$/u.test("😀") && !/^[é😀]$/u.test("e")', value: true },
      { body: 'const été = 2; return été * 3', value: 6 },
    ];
    for (const { body, value } of cases) {
      const escaped = asciiOnly(body);
      assert.doesNotMatch(escaped, /[^\x00-\x7f]/, body);
      assert.notEqual(escaped, body, body);
      assert.deepEqual(new Function(escaped)(), value, body);
    }
  });
});
