/**
 * One vocabulary (docs/decisions.md §29.6): each enum of the wire is written once — card status,
 * amount type, authorization kind and status, approval status, transaction status, the loopback
 * host names — and everything else derives from it. This test finds any other place that spells a
 * list out again, and holds what derives from each list to it: the MCP schemas, the CLI's choices,
 * the routes' validators, the sandbox's checks and the Host rules.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { APPROVAL_STATUSES, type ApprovalStatus as CoreApprovalStatus } from '../../src/core/approval.js';
import { AUTHORIZATION_KINDS, AUTHORIZATION_STATUSES, AUTHORIZATION_TYPES, RECURRING_INTERVALS, type AuthorizationType as CoreAuthorizationType } from '../../src/core/model.js';
import { CARD_STATUSES, TRANSACTION_STATUSES, type CardStatus as CoreCardStatus } from '../../src/operations/read-model.js';
import { LOOPBACK_HOSTS } from '../../src/http/loopback.js';
import { validHost } from '../../src/http/host-check.js';
import { daemonOrigin } from '../../src/client/base-url.js';
import { cloudOrigin } from '../../src/cloud/cloud-origin.js';
import { OUTPUT_SCHEMAS } from '../../src/mcp/output-schemas.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { authorizeCommand } from '../../src/cli/commands/authorize.js';
import { recurringCommand } from '../../src/cli/commands/recurring.js';
import { policyCheckCommand } from '../../src/cli/commands/policy-check.js';
import { transactionsCommand } from '../../src/cli/commands/transactions.js';
import { readWindowPayload } from '../../src/sandbox/ops/window-payload.js';
import type { ApprovalStatus as ClientApprovalStatus, Authorization as ClientAuthorization } from '../../src/client/types.js';
import type { AuthorizationType as SandboxAuthorizationType, CardStatus as SandboxCardStatus } from '../../src/sandbox/ledger/state.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { X402_SCHEMES } from '../../src/x402/requirements.js';
import { X402_STATES } from '../../src/core/model.js';
import { REPO_ROOT } from '../support/paths.js';

/** Each vocabulary, the file that writes it, and its words. */
const VOCABULARIES: ReadonlyArray<{ name: string; home: string; words: readonly string[] }> = [
  { name: 'CARD_STATUSES', home: 'src/operations/read-model.ts', words: CARD_STATUSES },
  { name: 'AUTHORIZATION_TYPES', home: 'src/core/model.ts', words: AUTHORIZATION_TYPES },
  { name: 'AUTHORIZATION_KINDS', home: 'src/core/model.ts', words: AUTHORIZATION_KINDS },
  { name: 'AUTHORIZATION_STATUSES', home: 'src/core/model.ts', words: AUTHORIZATION_STATUSES },
  { name: 'TRANSACTION_STATUSES', home: 'src/operations/read-model.ts', words: TRANSACTION_STATUSES },
  { name: 'RECURRING_INTERVALS', home: 'src/core/model.ts', words: RECURRING_INTERVALS },
  { name: 'APPROVAL_STATUSES', home: 'src/core/approval.ts', words: APPROVAL_STATUSES },
  { name: 'LOOPBACK_HOSTS', home: 'src/http/loopback.ts', words: LOOPBACK_HOSTS },
  { name: 'X402_SCHEMES', home: 'src/x402/requirements.ts', words: X402_SCHEMES },
  { name: 'X402_STATES', home: 'src/core/model.ts', words: X402_STATES },
];

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|js)$/.test(entry.name) ? [full] : [];
  });
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * spelledOut finds a vocabulary's whole list written out: every one of its words, quoted, one
 * after the other with a comma or a `|` between (an array, a Set, a union type). A part of a list
 * (`'expired' | 'revoked'`, the states a window can end in) is a concept of its own and passes.
 */
function spelledOut(text: string, words: readonly string[]): string | undefined {
  const word = `(?:${words.map((w) => `['"]${escape(w)}['"]`).join('|')})`;
  for (const match of text.matchAll(new RegExp(`${word}(?:\\s*[,|]\\s*${word})+`, 'g'))) {
    const quoted = new Set((match[0].match(/['"][^'"]+['"]/g) ?? []).map((q) => q.slice(1, -1)));
    if (words.every((w) => quoted.has(w))) return match[0];
  }
  return undefined;
}

const sameSet = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((x) => b.includes(x));

describe('one vocabulary', () => {
  test('each list is written out once, in its home, and nowhere else under src/', () => {
    const problems: string[] = [];
    for (const file of sourceFiles(path.join(REPO_ROOT, 'src'))) {
      const relative = path.relative(REPO_ROOT, file);
      const text = readFileSync(file, 'utf8');
      for (const vocabulary of VOCABULARIES) {
        if (relative === vocabulary.home) continue;
        const found = spelledOut(text, vocabulary.words);
        if (found !== undefined) problems.push(`${relative} spells out ${vocabulary.name}: ${found}`);
      }
    }
    assert.deepEqual(problems, []);
    // The detector works: each home does spell its list out.
    for (const vocabulary of VOCABULARIES) assert.ok(spelledOut(readFileSync(path.join(REPO_ROOT, vocabulary.home), 'utf8'), vocabulary.words) !== undefined, vocabulary.name);
  });

  test('every enum of every MCP input and output schema is one of the vocabularies, exactly', () => {
    const enums: Array<{ where: string; values: unknown[] }> = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((child, i) => walk(child, `${where}[${i}]`));
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'enum' && Array.isArray(value)) enums.push({ where, values: value });
        else walk(value, `${where}.${key}`);
      }
    };
    walk(OUTPUT_SCHEMAS, 'output');
    for (const tool of TOOLS) walk(tool.inputSchema, `${tool.name}.input`);
    const wire = VOCABULARIES.filter((vocabulary) => vocabulary.name !== 'LOOPBACK_HOSTS');
    const statusLike = enums.filter(({ values }) => values.some((value) => wire.some((vocabulary) => vocabulary.words.includes(value as string))));
    assert.ok(statusLike.length >= 5, `found ${statusLike.length} enums`);
    for (const { where, values } of statusLike) {
      assert.ok(wire.some((vocabulary) => sameSet(vocabulary.words, values)), `${where}: ${JSON.stringify(values)} is not a whole vocabulary`);
    }
  });

  test("the CLI's choices are the vocabularies: --type, --kind and --status say and take exactly their words", () => {
    const choice = (usage: string, flag: string) => new RegExp(`--${flag} ([a-z_|]+)`).exec(usage)?.[1]?.split('|');
    for (const command of [authorizeCommand, recurringCommand, policyCheckCommand]) assert.deepEqual(choice(command.usage, 'type'), [...AUTHORIZATION_TYPES], command.name);
    assert.deepEqual(choice(policyCheckCommand.usage, 'kind'), [...AUTHORIZATION_KINDS]);
    assert.deepEqual(choice(transactionsCommand.usage, 'status'), [...TRANSACTION_STATUSES]);
    for (const command of [recurringCommand, policyCheckCommand]) assert.deepEqual(choice(command.usage, 'interval'), [...RECURRING_INTERVALS], command.name);
  });

  test("the sandbox's window check takes every amount type and kind of the vocabulary and nothing else", () => {
    const payload = (fields: Record<string, unknown>) => ({
      v: 1, typ: 'card_policy_window', policy_id: `pw_${'a'.repeat(24)}`, device_id: `dev_${'a'.repeat(24)}`, card_id: `card_${'a'.repeat(24)}`, merchant: 'shop.example.com', amount: '1.00', currency: 'USD',
      authorization_type: 'exact', kind: 'one_time', not_before: 1_800_000_000, not_after: 1_800_000_600, nonce: 'nonce-0001', iat: 1_800_000_000, ...fields,
    });
    const param = (fields: Record<string, unknown>) => {
      try {
        readWindowPayload(payload(fields), 'card_policy_window');
        return undefined;
      } catch (error) {
        return error instanceof LatchError ? error.param : String(error);
      }
    };
    for (const type of AUTHORIZATION_TYPES) assert.notEqual(param({ authorization_type: type }), 'authorization_type', type);
    assert.equal(param({ authorization_type: 'Exact' }), 'authorization_type');
    assert.notEqual(param({ kind: 'merchant_verification', authorization_type: 'ceiling' }), 'kind');
    assert.equal(param({ kind: 'one-time' }), 'kind');
  });

  test('the Host rule, the daemon URL and the cloud origin take exactly the loopback names', () => {
    for (const host of LOOPBACK_HOSTS) {
      assert.ok(validHost(['Host', `${host}:7723`], 7723), host);
      assert.ok(daemonOrigin(`http://${host}:7723`) !== undefined, host);
      assert.ok(cloudOrigin(`http://${host}:7780`) !== undefined, host);
    }
    for (const host of ['127.0.0.2', '::1', '0.0.0.0', 'localhost.', 'example.com']) {
      assert.ok(!validHost(['Host', `${host}:7723`], 7723), host);
    }
  });

  test('the types derive from the lists (compile time): the client, the sandbox and the core name the same words', () => {
    type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
    const checks: [
      Same<CoreCardStatus, SandboxCardStatus>,
      Same<CoreAuthorizationType, SandboxAuthorizationType>,
      Same<CoreAuthorizationType, ClientAuthorization['authorization_type']>,
      Same<CoreApprovalStatus, ClientApprovalStatus>,
      Same<CoreCardStatus, (typeof CARD_STATUSES)[number]>,
    ] = [true, true, true, true, true];
    assert.deepEqual(checks, [true, true, true, true, true]);
  });
});
