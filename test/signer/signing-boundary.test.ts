/**
 * Signing is a capability (docs/decisions.md §28): src/signer/ is the only code that signs or
 * holds a secret key. The rules are derived from the tree: every file of src/ outside the signer
 * is read, and what the signer keeps to itself is read from its own files (what they export that
 * signer/index.ts does not re-export).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { inspect } from 'node:util';

const SRC = path.resolve(import.meta.dirname, '../../src');
const SIGNER = path.join(SRC, 'signer');
/** The signer's modules others may import: the purposes, and the key files' loaders (handles only). */
const PUBLIC_SIGNER_MODULES = new Set(['index.ts', 'device-key.ts', 'identity-key-file.ts', 'mandate-key.ts', 'ed25519-verify.ts']);

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.join(folder, name));
}

/** withoutComments drops comments, so a sentence about a secret key is not the name of one. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

const outside = sourceFiles(SRC).filter((file) => !file.startsWith(SIGNER + path.sep));
const signerFiles = sourceFiles(SIGNER);
/** The signer's one public module that uses noble's Ed25519: verification, for anyone to import. */
const VERIFIER = path.join('signer', 'ed25519-verify.ts');

/** The names the signer's internal modules export: signing a byte string, the held secrets. */
const internalNames = signerFiles
  .filter((file) => !PUBLIC_SIGNER_MODULES.has(path.basename(file)))
  .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/^export (?:async )?(?:function|const|class) (\w+)/gm)].map((match) => match[1] as string));
const reexported = new Set([...readFileSync(path.join(SIGNER, 'index.ts'), 'utf8').matchAll(/\b(\w+)(?= *[,}])/g)].map((match) => match[1] as string));
// publicKeyOf is also the sandbox's name for its key lookup (a method, not this function); the
// import rule above already keeps the signer's own from being imported anywhere else.
const privateNames = internalNames.filter((name) => !reexported.has(name) && name !== 'publicKeyOf');

test('the signer keeps its signing primitive and its secrets to itself (derived from src/signer/)', () => {
  for (const name of ['signBytes', 'secretForKeyFile', 'holdSecret', 'signExpanded', 'expandKey', 'compactJws', 'openKeyFile', 'sealKeyFile']) {
    assert.ok(privateNames.includes(name), `${name} is found as one of the signer's own`);
  }
});

test('no file outside src/signer/ imports a signing function, noble, node:crypto signing or a signer internal', () => {
  const offences: string[] = [];
  for (const file of outside) {
    const text = readFileSync(file, 'utf8');
    const relative = path.relative(SRC, file);
    // Every way a module is named: import/export … from, import('…'), require('…'), either quote.
    for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g)) {
      const specifier = match[1] as string;
      if (specifier === '@noble/ed25519') offences.push(`${relative} imports @noble/ed25519`);
      if (specifier.startsWith('.')) {
        const target = path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts');
        if (target.startsWith(SIGNER + path.sep) && !PUBLIC_SIGNER_MODULES.has(path.basename(target))) offences.push(`${relative} imports ${path.relative(SRC, target)}`);
      }
    }
    for (const match of text.matchAll(/import \{([^}]*)\} from 'node:crypto'/g)) {
      const names = (match[1] as string).split(',').map((name) => name.trim().split(/\s+as\s+/)[0]);
      for (const name of names) if (['sign', 'createSign', 'createPrivateKey', 'generateKeyPair', 'generateKeyPairSync'].includes(name as string)) offences.push(`${relative} imports ${name} from node:crypto`);
    }
    if (/import \* as \w+ from 'node:crypto'|require\('node:crypto'\)/.test(text)) offences.push(`${relative} imports all of node:crypto`);
  }
  assert.deepEqual(offences, []);
});

test('the signer\'s verify module uses only noble\'s verify, and passes noble on to nobody', () => {
  const text = withoutComments(readFileSync(path.join(SRC, VERIFIER), 'utf8'));
  // Every use of the namespace is one of these three exact forms; anything else (ed['sign'], a
  // destructuring, an alias, a named import of sign) leaves an `ed` or a noble import not matched here.
  // The fallback engine computes the cofactorless equation with noble's public point arithmetic
  // (docs/decisions.md §39.1): decoding a public key and the base point, nothing secret.
  const allowed = [/import \* as ed from '@noble\/ed25519';/g, /\bed\.Point\.fromBytes\(/g, /\bed\.Point\.BASE\./g, /\bed\.hashes\.sha512 = sha512;/g];
  const rest = allowed.reduce((remaining, form) => remaining.replace(form, ''), text);
  assert.match(text, /\bed\.Point\.fromBytes\(/, `${VERIFIER} verifies with noble`);
  assert.doesNotMatch(rest, /\bed\b/, `${VERIFIER} names noble's namespace only to import it, decode points, and install its SHA-512`);
  assert.equal([...text.matchAll(/@noble\/ed25519/g)].length, 1, `${VERIFIER} imports noble once, as a namespace`);
  assert.match(text, /import \{ sha512 \} from '@noble\/hashes\/sha2\.js';/, 'the hash it installs is noble\'s own SHA-512');
  assert.doesNotMatch(text, /\bexport\s*(\*|\{[^}]*\bed\b)|\bexport\s+\{[^}]*\}\s*from/, `${VERIFIER} re-exports nothing`);
});

test('the signer derives and signs without noble\'s shared hash setting, which only its verify module assigns', () => {
  for (const file of signerFiles.filter((name) => path.relative(SRC, name) !== VERIFIER)) {
    const text = withoutComments(readFileSync(file, 'utf8'));
    assert.doesNotMatch(text, /\bed\.(hashes|sign|signAsync|getPublicKey|getPublicKeyAsync|utils\.getExtendedPublicKey)\b/, path.relative(SRC, file));
  }
});

test('no file outside src/signer/ names a secret key or a signer-private function', () => {
  const forbidden = new RegExp(`\\b(secret_?key|${privateNames.join('|')})\\b`, 'i');
  const offences = outside.flatMap((file) => {
    const found = forbidden.exec(withoutComments(readFileSync(file, 'utf8')));
    return found === null ? [] : [`${path.relative(SRC, file)} names ${found[1]}`];
  });
  assert.deepEqual(offences, []);
});

test('a key handle shows nothing secret, and a copy of it signs nothing', async () => {
  const { heldKey } = await import('../../src/signer/held-keys.js');
  const { signRevocation } = await import('../../src/signer/index.js');
  const secret = new Uint8Array(32).fill(9);
  const key = heldKey(secret);
  const hex = Buffer.from(secret).toString('hex');
  for (const view of [JSON.stringify(key), inspect(key, { showHidden: true, depth: 5 }), JSON.stringify({ ...key }), Object.keys(key).join(',')]) {
    assert.ok(!view.includes(hex) && !view.includes('9, 9, 9, 9'), view);
  }
  const payload = { v: 1 as const, typ: 'revocation' as const, policy_id: 'pw_x', device_id: 'dev_x', nonce: 'n', iat: 1 };
  assert.match(signRevocation(key, payload), /^[\w-]+\.[\w-]+\.[\w-]+$/);
  assert.throws(() => signRevocation({ ...key }, payload), /holds no key/);
});

test('the signer signs a window only as the ledger recorded it: active, every term the same', async () => {
  const { heldKey } = await import('../../src/signer/held-keys.js');
  const { signRecordedWindow } = await import('../../src/signer/index.js');
  const key = heldKey(new Uint8Array(32).fill(3));
  const payload = { v: 1 as const, typ: 'card_policy_window' as const, policy_id: 'pw_1', device_id: 'dev_1', card_id: 'card_1', merchant: 'shop.example', amount: '12.50', currency: 'USD', authorization_type: 'exact' as const, kind: 'one_time' as const, not_before: 10, not_after: 20, nonce: 'n', iat: 10 };
  const entry = { policyId: 'pw_1', agent: 'owner', cardId: 'card_1', merchant: 'shop.example', currency: 'USD', amountMinor: 1250, kind: 'one_time' as const, authorizationType: 'exact' as const, signedAtSeconds: 10, notAfterSeconds: 20, state: 'active' as const, usedMinor: null };
  const ledger = (found: object | undefined) => ({ get: () => found as never });
  assert.match(signRecordedWindow(key, ledger(entry), payload), /^[\w-]+\.[\w-]+\.[\w-]+$/);
  assert.throws(() => signRecordedWindow(key, ledger(undefined), payload), /no entry/);
  for (const state of ['failed', 'unregistered', 'used', 'revoked', 'expired']) assert.throws(() => signRecordedWindow(key, ledger({ ...entry, state }), payload), /ledger entry is/);
  assert.throws(() => signRecordedWindow(key, ledger(entry), { ...payload, amount: '99.00' }), /amount/);
  assert.throws(() => signRecordedWindow(key, ledger(entry), { ...payload, merchant: 'other.example' }), /merchant/);
  assert.throws(() => signRecordedWindow(key, ledger({ ...entry, cardId: null }), payload), /card_id/);
});
