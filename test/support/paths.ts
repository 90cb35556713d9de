import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** The repository root, for tests that read project files. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
