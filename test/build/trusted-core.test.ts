/**
 * The audited core, counted honestly (SECURITY.md, "The audited core"; docs/decisions.md §28.7,
 * §34.6, §43): every file whose output decides, records or signs, and every file those reach. The
 * count is derived from the code, not listed by hand: the rule names the concerns that decide,
 * record or sign (SEEDS in test/support/trusted-core.ts, each a folder or a file pattern), and the
 * core is the closure of their value imports, read with TypeScript's parser (a type-only import
 * runs nothing). SECURITY.md's table states the closure folder by folder; this test computes each
 * figure and fails when the table and the tree disagree, when a folder the core reaches has no
 * row, or when the total passes the ceiling. `npx tsx scripts/trusted-core.ts` lists the files.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../support/paths.js';
import { closureFrom, codeCount, core, files, lineCount, OUTSIDE, rowOf, seeds, SRC } from '../support/trusted-core.js';

/**
 * The ceiling: the honest count as it stands, rounded up to the next hundred (issue 42 set a goal
 * of 9,000; docs/decisions.md §43 moved out what decides nothing, counted the daemon's files that
 * decide or record, and names, folder by folder, what decides and so stays: the folders and files
 * the rule names are about 11,200 lines by themselves). The core may not grow past it without a
 * decision.
 */
const TRUSTED_CORE_LINES_MAX = 15_200;

const securityMd = readFileSync(path.join(REPO_ROOT, 'SECURITY.md'), 'utf8');
const section = /## The audited core\n([\s\S]*?)\n## /.exec(securityMd)?.[1] ?? '';
const number = (text: string | undefined): number => Number((text ?? 'NaN').replace(/,/g, ''));
const stated = [...section.matchAll(/^\| `(src\/[^`]+)` \| ([\d,]+) \|/gm)].map((match) => ({ row: match[1] as string, lines: number(match[2]) }));

test('the rule reaches what decides, records or signs: the signer, the pipeline, owner presence, WebAuthn and the signed AP2 formats', () => {
  for (const name of ['signer/index.ts', 'core/sign-window.ts', 'owner/owner-presence.ts', 'webauthn/verify.ts', 'ap2/sd-jwt.ts', 'ap2/open-mandates.ts', 'validate/card-data-guard.ts', 'store/journal.ts', 'daemon/policy-source.ts', 'daemon/audit-records.ts']) {
    if (files.includes(name)) assert.ok(core.includes(name), `${name} is in the core`);
  }
});

test('SECURITY.md states the core folder by folder, each figure the tree\'s, and the total within the ceiling', () => {
  const rows = new Map<string, string[]>();
  for (const name of core) rows.set(rowOf(name), [...(rows.get(rowOf(name)) ?? []), name]);
  const computed = [...rows].map(([row, names]) => ({ row, lines: lineCount(names) })).sort((a, b) => b.lines - a.lines || a.row.localeCompare(b.row));
  assert.deepEqual(stated, computed, 'update the table in SECURITY.md to these rows and counts');
  const total = lineCount(core);
  assert.equal(number(/\*\*Total\*\* \| \*\*([\d,]+)\*\*/.exec(section)?.[1]), total, 'the table\'s total');
  assert.equal(number(/([\d,]+) are code \(without blank lines and comments\)/.exec(section)?.[1]), codeCount(core), 'the code lines SECURITY.md states');
  assert.equal(number(/in (\d+) files/.exec(section)?.[1]), core.length, 'the number of files SECURITY.md states');
  assert.ok(total <= TRUSTED_CORE_LINES_MAX, `the audited core is ${total} lines, over its ceiling of ${TRUSTED_CORE_LINES_MAX}`);
});

test('the audited core reaches none of the sandbox, the CLI, service files, the console, MCP, the quickstart, the client, the route tables, the reads, the verifiers, the policy texts or the daemon\'s bindings', () => {
  const daemonSeeds = seeds.filter((name) => name.startsWith('daemon/'));
  assert.deepEqual(core.filter((name) => OUTSIDE.some((folder) => name.startsWith(folder)) && !name.startsWith('daemon/')), []);
  // The pipeline, the signer, the stores and the rest reach no daemon file: only the daemon's own counted files do.
  assert.deepEqual([...closureFrom(seeds.filter((name) => !daemonSeeds.includes(name))).keys()].filter((name) => name.startsWith('daemon/')), []);
  // The bench is outside src/ altogether; nothing in src/ imports it.
  assert.ok(core.every((name) => !/from '(\.\.\/)+bench\//.test(readFileSync(path.join(SRC, name), 'utf8'))));
});
