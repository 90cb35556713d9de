/**
 * One pipeline for every window signature that can move money (docs/decisions.md §28.5): the
 * signer's window purpose is asked for in exactly one place, core/sign-window.ts, which /authorize,
 * /merchant-bind, /recurring, B's /authorize, approvals and the signing primitives all call.
 * Derived from src/: a second copy of pause → decide → record → sign would show up here.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const SRC = path.resolve(import.meta.dirname, '../../src');

function callersOf(name: string): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.startsWith('signer/'))
    .filter((file) => new RegExp(`\\b${name.replace('.', '\\.')}\\(`).test(readFileSync(path.join(SRC, file), 'utf8')))
    .sort();
}

test('a window is signed in one place: core/sign-window.ts asks the signer, and only it', () => {
  assert.deepEqual(callersOf('signer.window'), ['core/sign-window.ts']);
});

test('every purpose enters that place through signDecidedWindow: the registering pipeline and the primitives', () => {
  assert.deepEqual(callersOf('signDecidedWindow'), ['core/authorizations.ts', 'core/sign-window.ts']);
  const text = readFileSync(path.join(SRC, 'core/authorizations.ts'), 'utf8');
  for (const caller of ['signForRegistration', 'signCardWindow', 'signAccountWindow']) {
    const body = new RegExp(`function ${caller}\\([\\s\\S]*?\\n\\}`).exec(text)?.[0] ?? '';
    assert.match(body, /signDecidedWindow\(/, `${caller} goes through the pipeline`);
    assert.doesNotMatch(body, /refuseWhilePaused|deps\.decide\(|authorizations\.record\(/, `${caller} repeats no step of it`);
  }
});
