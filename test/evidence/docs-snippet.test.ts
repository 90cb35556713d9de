/**
 * docs/evidence.md's `jose` snippet, run exactly as printed: it is copied out of the page into a
 * directory of its own where `jose` is the only package, then run by node against a real pack
 * (OK, exit 0) and against tampered ones (NOT OK, exit 1). A pack comes from the real daemon and
 * sandbox on ephemeral ports.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { startStack, type Stack } from '../support/stack.js';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../..');

let stack: Stack;
let dir: string;
let packText: string;

/** snippet returns the code between the page's markers, as printed. */
function snippet(): string {
  const page = readFileSync(path.join(REPO, 'docs/evidence.md'), 'utf8');
  const match = /<!-- evidence-jose-snippet:start -->\n```js\n([\s\S]*?)```\n<!-- evidence-jose-snippet:end -->/.exec(page);
  assert.ok(match !== null, 'docs/evidence.md has the marked jose snippet');
  return match[1] as string;
}

before(async () => {
  stack = await startStack();
  const created = await stack.a.post('/authorize', { card_id: stack.cards[0].card_id, amount: '4.20', merchant_name: 'shop.example.com' });
  assert.equal(created.status, 200, created.text);
  assert.equal((await stack.charge(stack.cards[0].card_id, 'shop.example.com', '4.20')).body.decision, 'approved');
  const pack = await stack.a.get(`/authorizations/${created.body.policy_id}/evidence`);
  assert.equal(pack.status, 200, pack.text);
  packText = pack.text;
  // A directory with nothing of Latch in it: the snippet and jose only.
  dir = mkdtempSync(path.join(tmpdir(), 'latch-evidence-snippet-'));
  mkdirSync(path.join(dir, 'node_modules'));
  symlinkSync(path.join(REPO, 'node_modules', 'jose'), path.join(dir, 'node_modules', 'jose'), 'dir');
  writeFileSync(path.join(dir, 'check-pack.mjs'), snippet());
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await stack.close();
});

async function check(text: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = path.join(dir, 'pack.json');
  writeFileSync(file, text);
  try {
    const { stdout, stderr } = await run(process.execPath, ['check-pack.mjs', file], { cwd: dir, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

test('the snippet passes a real pack', async () => {
  const result = await check(packText);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^OK: pw_[a-z0-9]+, 4\.20 USD at shop\.example\.com, signed by device key /);
});

test('the snippet refuses a changed amount, a changed audit line and an approval for another request', async () => {
  const amount = await check(packText.replace('"amount":"4.20"', '"amount":"0.42"'));
  assert.equal(amount.code, 1);
  assert.match(amount.stderr, /NOT OK: the signed payload is not the pack/);

  const pack = JSON.parse(packText);
  pack.audit.lines[0] = `${pack.audit.lines[0].slice(0, -1)},"x":1}`;
  const line = await check(JSON.stringify(pack));
  assert.equal(line.code, 1);
  assert.match(line.stderr, /NOT OK: the signed payload is not the pack/);

  const otherKey = JSON.parse(packText);
  otherKey.jwks.keys[0].kid = 'A'.repeat(43);
  const kid = await check(JSON.stringify(otherKey));
  assert.equal(kid.code, 1);
  assert.match(kid.stderr, /NOT OK: the key id is not the key thumbprint/);
});
