/**
 * "Every signature is in audit.log" holds with named exceptions (issue 43 item 6, docs/decisions.md
 * §28.4): the key proof, the key directory's entries and the registration proof are signatures
 * with no audit line. The exceptions are read from §28.4 and checked against the signer's own
 * purposes (each must be a purpose of a real signer, docs/decisions.md §34.1), and every sentence of the user-facing documents that
 * says every signature is audited must name each of them, so neither can change alone.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { testSigner } from '../support/test-signer.js';

const ROOT = new URL('../../', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, ROOT), 'utf8');

/** The signer the daemon builds, over a throwaway key: its purposes are its methods. */
const signer = testSigner(new Uint8Array(32).fill(7)).signer as unknown as Record<string, unknown>;

/** The purposes §28.4 says are not audit lines: the backticked names in its section that are signer purposes. */
function exceptionsOfDecision(): string[] {
  const text = read('docs/decisions.md');
  const start = text.indexOf('### 28.4 ');
  const section = text.slice(start, text.indexOf('\n### ', start + 1));
  return [...new Set([...section.matchAll(/`([a-z][A-Za-z]*)`/g)].map((m) => m[1] as string))].filter((name) => typeof signer[name] === 'function').sort();
}

/** Every paragraph of README.md, SECURITY.md and docs/ (decisions aside) claiming every signature is audited. */
function claims(): { file: string; paragraph: string }[] {
  const files = ['README.md', 'SECURITY.md', ...readdirSync(new URL('docs/', ROOT)).filter((name) => name.endsWith('.md') && name !== 'decisions.md').map((name) => `docs/${name}`)];
  return files.flatMap((file) =>
    read(file)
      .split(/\n\s*\n/)
      .flatMap((block) => block.split(/\n(?=\s*(?:\d+\.|-) )/))
      .filter((paragraph) => /every signature (the daemon makes|is in|is an audit line|is in the hash-chained audit log)/i.test(paragraph.replace(/\s+/g, ' ')))
      .map((paragraph) => ({ file, paragraph })),
  );
}

test("§28.4's exceptions are signer purposes: each one it names is a purpose of a real signer, and no audited purpose is among them", () => {
  const exceptions = exceptionsOfDecision();
  assert.deepEqual(exceptions, ['directoryEntry', 'keyProof', 'registrationProof']);
  for (const name of ['window', 'revocation', 'evidencePack']) assert.ok(!exceptions.includes(name), `${name} is audited, no exception`);
});

test('every claim that every signature is audited names each exception, in README.md, SECURITY.md and docs/', () => {
  const exceptions = exceptionsOfDecision();
  const found = claims();
  assert.ok(found.length >= 3, `only ${found.length} claims found`);
  for (const { file, paragraph } of found) {
    // A claim about the Web Bot Auth signatures alone (each is one line) is true as it stands.
    if (/web_bot_auth_signed/.test(paragraph) && !/policy window/.test(paragraph)) continue;
    for (const name of exceptions) assert.ok(paragraph.includes(`\`${name}\``), `${file} claims every signature is audited without naming ${name}: ${paragraph.slice(0, 140).replace(/\s+/g, ' ')}…`);
  }
});
