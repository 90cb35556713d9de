import { randomBytes } from 'node:crypto';
import { fromBase64Url } from '../crypto/base64url.js';
import { createExclusive, writeFileAtomic } from './atomic-file.js';
import { DataDirError, shellQuote } from './data-dir-error.js';
import { DATA_FILES, dataFilePath } from './home.js';
import { readPrivateFile } from './read-private-file.js';

/** The daemon token is 32 random bytes (docs/decisions.md §8). */
export const TOKEN_BYTES = 32;

// 32 bytes are 43 characters of unpadded base64url.
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
// Room for the token and a trailing newline added by a hand edit; anything bigger is not a token.
const TOKEN_FILE_BYTES_MAX = 64;

/** newToken returns a fresh daemon token: 32 bytes from the CSPRNG, base64url without padding. */
export function newToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** tokenPath returns the path of the daemon token file. */
export function tokenPath(home: string): string {
  return dataFilePath(home, DATA_FILES.token);
}

/**
 * ensureToken returns the daemon token, creating the token file (0600, O_EXCL) when it does not
 * exist yet. When another process creates it at the same moment, that process's token wins.
 */
export function ensureToken(home: string): string {
  const existing = readTokenIfPresent(home);
  if (existing !== undefined) return existing;
  const token = newToken();
  try {
    createExclusive(tokenPath(home), token);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readToken(home);
  }
  return token;
}

/**
 * readToken returns the daemon token from the token file. It throws a DataDirError when the file
 * is missing, unsafe (permissions, owner, symbolic link) or not a well-formed token.
 */
export function readToken(home: string): string {
  const token = readTokenIfPresent(home);
  if (token === undefined) {
    throw new DataDirError('missing', tokenPath(home), 'The daemon token file does not exist', 'start the daemon once (`latch start`), which creates it');
  }
  return token;
}

/**
 * rotateToken replaces the daemon token with a fresh one, atomically: a reader sees the old token
 * or the new one, never a partial file. It returns the new token. A running daemon must re-read
 * the file (or be told to) before the new token is accepted.
 */
export function rotateToken(home: string): string {
  const token = newToken();
  writeFileAtomic(tokenPath(home), token);
  return token;
}

function readTokenIfPresent(home: string): string | undefined {
  const file = tokenPath(home);
  const text = readPrivateFile(file, TOKEN_FILE_BYTES_MAX);
  if (text === undefined) return undefined;
  return parseTokenText(text, file, `latch token rotate (or rm ${shellQuote(file)} and restart the daemon)`);
}

/**
 * parseTokenText returns the token a token file holds (the daemon's or an agent's), tolerating
 * one trailing newline from an editor. Anything else is refused with the fix; the contents are
 * never echoed.
 */
export function parseTokenText(text: string, file: string, fix: string): string {
  const token = text.replace(/\r?\n$/, '');
  if (!TOKEN_SHAPE.test(token) || fromBase64Url(token)?.length !== TOKEN_BYTES) {
    throw new DataDirError('corrupt', file, 'The token file does not hold a 43-character base64url token', `replace it with a fresh token: ${fix}`);
  }
  return token;
}
