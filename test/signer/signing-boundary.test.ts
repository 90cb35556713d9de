/**
 * The signer holds every key (docs/decisions.md §28, §34.4): nothing in src/ outside src/signer/
 * reaches a private key or a signing primitive, in any import form TypeScript knows (the rules and
 * the reader are in test/support/signing-boundary.ts; signing-boundary-plants.test.ts shows each
 * form caught). The factory is called in one place, and the signer's own verify module signs nothing.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { boundaryOffences, SIGNER_WIRING } from '../support/signing-boundary.js';

const SRC = path.resolve(import.meta.dirname, '../../src');
const SIGNER = path.join(SRC, 'signer');
const VERIFIER = path.join(SIGNER, 'ed25519-verify.ts');

/** withoutComments drops comments, so a sentence about signing is not a call. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

test('nothing outside src/signer/ reaches a key or a signing primitive, in any import form', () => {
  assert.deepEqual(boundaryOffences(SRC), []);
});

test('the signer is built in one place, the daemon\'s wiring', () => {
  const callers = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.startsWith(`signer${path.sep}`))
    .filter((file) => /\bcreateSigner\(/.test(withoutComments(readFileSync(path.join(SRC, file), 'utf8'))));
  assert.deepEqual(callers, [SIGNER_WIRING]);
});

test('the signer\'s index exports the factory and types only', () => {
  const text = withoutComments(readFileSync(path.join(SIGNER, 'index.ts'), 'utf8'));
  const valueExports = [...text.matchAll(/^export (?!type\b)(?:\{([^}]*)\}|(?:async )?(?:function|const|class|let|var) (\w+))/gm)].flatMap((match) => (match[2] !== undefined ? [match[2]] : (match[1] as string).split(',').map((name) => name.trim()).filter((name) => name !== '' && !name.startsWith('type '))));
  assert.deepEqual(valueExports, ['createSigner']);
  assert.doesNotMatch(text, /^export \*/m, 'no wholesale re-export');
});

test('the signer\'s verify module takes only verify and public-key import from node:crypto, and no signing function of noble', () => {
  const text = withoutComments(readFileSync(VERIFIER, 'utf8'));
  for (const match of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"](?:node:)?crypto['"]/g)) {
    const names = (match[1] as string).split(',').map((name) => name.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]).filter((name) => name !== '');
    for (const name of names) assert.ok(['verify', 'createPublicKey', 'KeyObject'].includes(name as string), `ed25519-verify.ts imports ${name} from node:crypto`);
  }
  assert.doesNotMatch(text, /import\s*\*\s*as\s*\w+\s*from\s*['"](?:node:)?crypto['"]|require\(/, 'not all of node:crypto');
  assert.doesNotMatch(text, /\.\s*(sign|signAsync|getPublicKey|getPublicKeyAsync|utils)\b|\bcreatePrivateKey\b/, 'no signing or key making');
  assert.doesNotMatch(text, /from\s*['"]\.\/(?!\.)(?!ed25519-verify)[^'"]*['"]/, 'no other signer module');
});

test('the signer derives and signs without noble\'s shared hash setting, which only its verify module may assign', () => {
  for (const file of readdirSync(SIGNER).filter((name) => name.endsWith('.ts') && name !== 'ed25519-verify.ts')) {
    assert.doesNotMatch(withoutComments(readFileSync(path.join(SIGNER, file), 'utf8')), /\bed\.(hashes|sign|signAsync|getPublicKey|getPublicKeyAsync|utils\.getExtendedPublicKey)\b/, file);
  }
});
