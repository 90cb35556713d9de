/**
 * The owner console's login page on disk (docs/decisions.md §27.1). `latch console` must not hand
 * the one-time login link to the desktop's opener as an argument: every local user can read a
 * process's argv (/proc/PID/cmdline), and whoever trades the code first owns the console session.
 * So the link goes into a 0600 page in the owner's private data directory that sends the browser
 * on to it, and the opener is given only that page's path, as Jupyter does with its token.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { writeFileAtomic } from '../datadir/atomic-file.js';
import { CONSOLE_LOGIN_PAGE, PRIVATE_FILE_MODE } from '../datadir/home.js';

/** writeLoginPage writes the page that redirects to url, 0600 in home, and returns its path. */
export function writeLoginPage(home: string, url: string): string {
  const file = path.join(home, CONSOLE_LOGIN_PAGE);
  writeFileAtomic(file, loginPageHtml(url), PRIVATE_FILE_MODE);
  return file;
}

/** loginPageHtml is a page that goes to url at once (by a meta refresh, by script, and by a link). */
export function loginPageHtml(url: string): string {
  const href = escapeHtml(url);
  return `<!doctype html>
<html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0;url=${href}">
<title>Latch console</title></head>
<body><p>Opening the Latch console&hellip; if nothing happens, <a href="${href}">follow this link</a>.</p>
<script>window.location.replace(${JSON.stringify(url).replace(/</g, '\\u003c')});</script>
</body></html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * openInBrowser hands a file's path (never a secret) to the desktop's opener; without one, the
 * printed link is enough.
 */
export function openInBrowser(file: string): void {
  const opener = process.platform === 'darwin' ? ['open', file] : process.platform === 'win32' ? ['cmd', '/c', 'start', '', file] : ['xdg-open', file];
  try {
    const child = spawn(opener[0] as string, opener.slice(1), { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener on this machine (a server, a container): the link on stdout is the way in.
  }
}
