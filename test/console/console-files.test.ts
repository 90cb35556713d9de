/**
 * The console's browser code is real files (docs/decisions.md §29.5): console.js is type-checked
 * as JavaScript against the DOM, and what the daemon serves is exactly the bytes of each file.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { consoleAsset } from '../../src/console/assets/console-assets.js';
import { CONSOLE_FILES } from '../../src/console/assets/console-files.js';
import { REPO_ROOT } from '../support/paths.js';

const ASSETS = path.join(REPO_ROOT, 'src/console/assets');

test('the console script type-checks as JavaScript against the DOM (its own tsconfig, checkJs)', () => {
  const configPath = path.join(ASSETS, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  assert.equal(config.error, undefined);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ASSETS);
  assert.deepEqual(parsed.errors, []);
  assert.deepEqual(parsed.fileNames.map((file) => path.basename(file)), ['console.js']);
  assert.equal(parsed.options.checkJs, true);
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  const diagnostics = ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  assert.deepEqual(diagnostics, []);
  assert.match(readFileSync(path.join(ASSETS, 'console.js'), 'utf8'), /^\/\/ @ts-check\n/);
});

test('every console asset is served as the bytes of its file, and every file there is served', () => {
  const served = new Set<string>();
  for (const [route, file] of [['/assets/console.js', 'console.js'], ['/assets/console.css', 'console.css'], ['/assets/icon.svg', 'icon.svg']] as const) {
    const asset = consoleAsset(route);
    assert.ok(asset !== undefined, route);
    assert.deepEqual(Buffer.from(asset.body), readFileSync(path.join(ASSETS, file)), route);
    served.add(file);
  }
  const onDisk = readdirSync(ASSETS).filter((name) => /\.(js|css|svg)$/.test(name)).sort();
  assert.deepEqual(onDisk, [...served].sort());
  assert.deepEqual([...CONSOLE_FILES].sort(), onDisk);
});

test('no browser code hides in a TypeScript string: no module under src/console holds a script or a stylesheet', () => {
  const modules = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? modules(path.join(folder, entry.name)) : entry.name.endsWith('.ts') ? [path.join(folder, entry.name)] : []));
  for (const file of modules(path.join(REPO_ROOT, 'src/console'))) {
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /String\.raw`|'use strict';\s*\(function|addEventListener\(|:root\s*\{|\{\s*box-sizing/, path.relative(REPO_ROOT, file));
  }
});
