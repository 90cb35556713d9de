/**
 * A document that names a file of the repository names one that is there (issue 44 item 8:
 * docs/ap2.md pointed at shared/spec/ap2-mandates.md, which is not in the repository). Every
 * backticked path in README.md, SECURITY.md and docs/*.md is checked against the checkout, as
 * written or relative to docs/, src/ or test/ (how the documents abbreviate them). Build outputs
 * (dist/) and docs/decisions.md, the record of what was decided when (its paths are of their
 * time), are left out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../support/paths.js';

const documents = ['README.md', 'SECURITY.md', ...readdirSync(path.join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md') && name !== 'decisions.md').map((name) => `docs/${name}`)];
const PATH_IN_BACKTICKS = /`([A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.*-]+)+\.(?:md|ts|json|js|sh|yml))`/g;

test('every repository file a document names in backticks is in the repository', () => {
  const missing: string[] = [];
  let checked = 0;
  for (const document of documents) {
    for (const match of readFileSync(path.join(REPO_ROOT, document), 'utf8').matchAll(PATH_IN_BACKTICKS)) {
      const named = match[1] as string;
      if (named.startsWith('dist/') || named.includes('*')) continue;
      checked += 1;
      const found = ['', 'docs', 'src', 'test'].some((base) => existsSync(path.join(REPO_ROOT, base, named)));
      if (!found) missing.push(`${document}: ${named}`);
    }
  }
  assert.ok(checked > 20, `found ${checked} paths to check`);
  assert.deepEqual(missing, []);
});
