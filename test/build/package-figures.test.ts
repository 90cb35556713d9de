/**
 * The tarball's figures in docs/packaging.md are npm's, not typed (issue 43 item 6): the number of
 * files exactly, and the packed and unpacked sizes within 3% (the package carries docs/, so every
 * edit of a document moves them a little). The figures come from `npm pack --dry-run --json`, which
 * runs the prepack build first, as a real pack does.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../../scripts/build-bundles.js';

/** What npm reports of a pack. */
interface PackReport {
  size: number;
  unpackedSize: number;
  files: Array<{ path: string }>;
}

/** statedFigures reads docs/packaging.md's sentence "The npm tarball is N kB (M MB unpacked, F files". */
export function statedFigures(text: string): { packedKb: number; unpackedMb: number; files: number } {
  const match = /The npm tarball is ([0-9]+) kB \(([0-9.]+) MB unpacked, ([0-9]+) files/.exec(text);
  assert.ok(match !== null, 'docs/packaging.md states the tarball: "The npm tarball is N kB (M MB unpacked, F files"');
  return { packedKb: Number(match[1]), unpackedMb: Number(match[2]), files: Number(match[3]) };
}

test("docs/packaging.md states the tarball's file count exactly and its sizes within 3%, as npm pack --dry-run --json reports them", () => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 300_000 });
  // The prepack build's own lines come first on stdout; npm's JSON report starts at a line '['.
  const [report] = JSON.parse(out.slice(out.search(/^\[$/m))) as PackReport[];
  assert.ok(report !== undefined, 'npm pack report');
  const stated = statedFigures(readFileSync(path.join(REPO_ROOT, 'docs', 'packaging.md'), 'utf8'));
  const measured = `${Math.round(report.size / 1000)} kB (${(report.unpackedSize / 1e6).toFixed(2)} MB unpacked, ${report.files.length} files`;
  assert.equal(stated.files, report.files.length, `measured: ${measured}`);
  const near = (actual: number, figure: number) => Math.abs(actual - figure) <= figure * 0.03;
  assert.ok(near(report.size / 1000, stated.packedKb), `packed size; measured: ${measured}`);
  assert.ok(near(report.unpackedSize / 1e6, stated.unpackedMb), `unpacked size; measured: ${measured}`);
});
