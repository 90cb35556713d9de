/**
 * SECURITY.md names the test that proves each defense. This keeps the citations honest: every test
 * file it cites exists, and every quoted test name is the title of a test in that file that runs
 * (not skipped, not a todo), not merely text somewhere in it (a `*` or a number in a name stands
 * for a value filled in at run time, so only the fixed text between them is matched). And what
 * SECURITY.md claims that the code can be asked directly is checked against the code: which routes
 * an agent's token can never reach.
 */
import type { X402Operations } from '../../src/variant-a/x402-routes.js';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { ApprovalOperations } from '../../src/operations/approval-operations.js';
import type { AuthorizationListOperations } from '../../src/operations/authorization-list.js';
import type { CoreOperations } from '../../src/operations/operations.js';
import { LatchError } from '../../src/errors/latch-error.js';
import type { EvidenceOperations } from '../../src/variant-a/evidence-routes.js';
import type { IdentityOperations } from '../../src/identity/identity-operations.js';
import type { AuditOperations } from '../../src/variant-a/audit-routes.js';
import type { Ap2Operations } from '../../src/variant-a/ap2-routes.js';
import type { PolicyOperations } from '../../src/variant-a/policy-routes.js';
import { variantARoutes } from '../../src/variant-a/routes.js';
import { signingProxyRoutes } from '../../src/proxy/signing-proxy.js';
import { REPO_ROOT } from '../support/paths.js';
import type { OwnerOperations } from '../../src/variant-a/owner-routes.js';

const TEST_FILE = /^[\w/.-]+\.test\.ts$/;
/** Spans of fixed text shorter than this are too generic to prove anything. */
const FRAGMENT_CHARS_MIN = 12;

interface Citation {
  file: string;
  name: string;
}

/**
 * citations reads every `file.test.ts` span and the list of quoted names right after it: spans
 * separated from it, and from each other, only by commas, colons, semicolons and white space.
 */
function citations(markdown: string): { files: string[]; names: Citation[] } {
  const files: string[] = [];
  const names: Citation[] = [];
  let current: string | undefined;
  let previousEnd = 0;
  for (const match of markdown.matchAll(/`([^`]+)`/g)) {
    const span = match[1] as string;
    const start = match.index ?? 0;
    const gap = markdown.slice(previousEnd, start);
    previousEnd = start + match[0].length;
    if (TEST_FILE.test(span)) {
      current = span;
      files.push(span);
      continue;
    }
    if (current !== undefined && /^[\s,:;]*$/.test(gap)) names.push({ file: current, name: span });
    else current = undefined;
  }
  return { files, names };
}

/** fragments splits a cited name into the fixed text a source title must contain. */
function fragments(name: string): string[] {
  return name
    .split(/\*|…|→|\b[ab]: |\d[\d,.]*(?: KiB| s)?/)
    .map((piece) => piece.trim())
    .filter((piece) => piece.length >= FRAGMENT_CHARS_MIN);
}

/** A test, describe or it call with a literal title: its modifier (skip, todo, only), the title, and what follows it. */
const TITLE = /\b(?:test|it|describe)(?:\.(skip|todo|only))?\(\s*(['"`])((?:\\.|(?!\2)[^\\])*)\2(\s*,\s*\{[^}]*\})?/g;

interface Title {
  text: string;
  /** Whether the test is always skipped or a todo (modifier, or a constant option), so it proves nothing; a skip computed at run time (needs root) counts as running. */
  inactive: boolean;
  /** A template title (`${name} → …`): the name comes from a table in the file. */
  generated: boolean;
}

/** titles lists the literal titles of a test file's tests and suites. */
function titles(source: string): Title[] {
  return [...source.matchAll(TITLE)].map((match) => ({
    text: (match[3] as string).replace(/\\(.)/g, '$1'),
    inactive: match[1] === 'skip' || match[1] === 'todo' || /\b(skip|todo)\s*:\s*(true|['"`])/.test(match[4] ?? ''),
    generated: match[2] === '`' && (match[3] as string).includes('${'),
  }));
}

test('every test SECURITY.md cites exists, under the name it quotes, and runs', () => {
  const markdown = readFileSync(path.join(REPO_ROOT, 'SECURITY.md'), 'utf8');
  const { files, names } = citations(markdown);
  assert.ok(files.length >= 15 && names.length >= 40, `found ${files.length} files and ${names.length} names`);
  const missingFiles = [...new Set(files)].filter((file) => !existsSync(path.join(REPO_ROOT, 'test', file)));
  assert.deepEqual(missingFiles, [], 'cited test files that do not exist');
  const problems: string[] = [];
  for (const { file, name } of names) {
    const full = path.join(REPO_ROOT, 'test', file);
    if (!existsSync(full)) continue;
    const source = readFileSync(full, 'utf8');
    const wanted = fragments(name);
    const inFile = titles(source);
    const titled = inFile.find((title) => wanted.every((fragment) => title.text.includes(fragment)));
    if (titled !== undefined) {
      if (titled.inactive) problems.push(`${file}: \`${name}\` is skipped or a todo`);
      continue;
    }
    // A title made from a table (`${name} → 401 …`): the name's text must be in the file, as the table's row.
    const fromTable = inFile.some((title) => title.generated && !title.inactive) && wanted.every((fragment) => source.includes(fragment));
    if (!fromTable) problems.push(`${file}: no test is titled \`${name}\``);
  }
  assert.deepEqual(problems, [], 'quoted test names that are not the title of a test that runs');
});

/** What the actor table's words for the owner's routes mean, route by route. */
const OWNER_ONLY_WORDS: ReadonlyArray<[string, readonly string[]]> = [
  ['signing primitives', ['POST /sign-card-policy-window', 'POST /sign-policy-window', 'POST /sign-revocation']],
  ['`/v1/*`', signingProxyRoutes(() => { throw new Error('not called'); }).map((route) => `${route.method} ${route.pattern}`)],
  ['`/wallet/allocate`', ['POST /wallet/allocate']],
  ['policy', ['GET /policy', 'PUT /policy']],
  ['approval decisions', ['POST /approvals/:approval_id/approve', 'POST /approvals/:approval_id/deny']],
  ['agents', ['GET /agents', 'POST /agents', 'DELETE /agents/:name', 'POST /agents/:name/rotate']],
  ['the brake', ['POST /pause', 'POST /resume']],
  ['owner sessions', ['DELETE /owner/sessions/current']],
  ['console login links', ['POST /console/login-code']],
  ['the audit log', ['GET /audit', 'GET /audit/verify']],
  ['identity keys by name', ['GET /web-bot-auth/keys/:name']],
];

test('the actor table names exactly the routes an agent\'s token can never reach', () => {
  const markdown = readFileSync(path.join(REPO_ROOT, 'SECURITY.md'), 'utf8');
  const row = markdown.split('\n').find((line) => line.startsWith('| An agent with its own token'));
  assert.ok(row !== undefined, 'SECURITY.md has the agent row in its actor table');
  const claimed = new Set<string>();
  for (const [words, routes] of OWNER_ONLY_WORDS) {
    assert.ok(row.includes(words), `the agent row names ${words}`);
    for (const route of routes) claimed.add(route);
  }
  const routes = variantARoutes({
    consoleLoginLink: () => ({ url: 'http://localhost:7724/login#code', expires_at: '2026-01-01T00:00:00Z' }),
    operations: {} as CoreOperations,
    authorizations: {} as AuthorizationListOperations,
    approvals: {} as ApprovalOperations,
    policy: {} as PolicyOperations,
    evidence: {} as EvidenceOperations,
    identity: {} as IdentityOperations,
    audit: {} as AuditOperations,
    ap2: {} as Ap2Operations,
    x402: {} as X402Operations,
    health: () => ({ version: '0', uptimeSeconds: 0, signingKey: null, paused: null, cloudClockSkewSeconds: null, approvalsLockedSeconds: 0, ownerPresence: 'none' }),
    owner: {} as OwnerOperations,
    proxyUpstream: () => {
      throw new LatchError('device_not_enrolled');
    },
  });
  // 'owner_present' routes are the owner's too (docs/decisions.md §21): an agent never reaches them.
  const ownerOnly = new Set(routes.filter((route) => route.access === 'owner' || route.access === 'owner_present').map((route) => `${route.method} ${route.pattern}`));
  assert.deepEqual([...ownerOnly].sort(), [...claimed].sort(), 'the owner-only routes are exactly what the agent row says an agent cannot reach');
});
