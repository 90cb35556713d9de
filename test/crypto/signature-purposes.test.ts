/**
 * Domain separation (docs/decisions.md §34.2): every JWS `typ` and RFC 9421 `tag` a key signs
 * under is distinct, and docs/api.md lists each one. Derived from src/crypto/signature-purposes.ts
 * and the identity and AP2 tables, so a purpose added there without a row here fails.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT_SD_JWT_TYP } from '../../src/ap2/sd-jwt.js';
import { HTTP_SIGNATURE_TAG, JWS_TYP, KEY_PROOF_LABEL } from '../../src/crypto/signature-purposes.js';
import { WEB_SIGNATURE_TAGS } from '../../src/identity/web-bot-auth.js';
import { REPO_ROOT } from '../support/paths.js';

const names = [...Object.values(JWS_TYP), ...Object.values(HTTP_SIGNATURE_TAG), KEY_PROOF_LABEL, ...WEB_SIGNATURE_TAGS, ROOT_SD_JWT_TYP];

test('every purpose has its own name', () => {
  assert.equal(new Set(names).size, names.length, names.join(', '));
  assert.ok(!names.includes('JWT'), 'no purpose signs under the bare JWT typ');
});

test('docs/api.md lists every typ and tag', () => {
  const api = readFileSync(path.join(REPO_ROOT, 'docs', 'api.md'), 'utf8');
  const table = /### What each signature says it is[\s\S]*?\n### /.exec(api)?.[0] ?? '';
  for (const name of names) assert.ok(table.includes(`\`${name}\``), `docs/api.md's table names ${name}`);
});
