/**
 * The console's pages and assets, compiled into the daemon (no file is read at run time, so the
 * single binary carries them). Every page is the same shell; the script fills it.
 */
import { CONSOLE_CSS } from './console-css.js';
import { CONSOLE_JS } from './console-js.js';

const PAGES = [
  { path: '/approvals', name: 'approvals', title: 'Approvals' },
  { path: '/spending', name: 'spending', title: 'Spending' },
  { path: '/agents', name: 'agents', title: 'Agents' },
  { path: '/policy', name: 'policy', title: 'Policy' },
  { path: '/activity', name: 'activity', title: 'Activity' },
] as const;

const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b5cad"/><path d="M5 3v10h6" stroke="#fff" stroke-width="2" fill="none"/></svg>';

const ASSETS: Readonly<Record<string, { contentType: string; body: string }>> = {
  '/assets/console.js': { contentType: 'text/javascript; charset=utf-8', body: CONSOLE_JS },
  '/assets/console.css': { contentType: 'text/css; charset=utf-8', body: CONSOLE_CSS },
  '/assets/icon.svg': { contentType: 'image/svg+xml', body: ICON_SVG },
};

/** consoleAsset returns a static asset by path. */
export function consoleAsset(path: string): { contentType: string; body: string } | undefined {
  return Object.hasOwn(ASSETS, path) ? ASSETS[path] : undefined;
}

/** The paths of the signed-in pages. */
export const CONSOLE_PAGE_PATHS: readonly string[] = PAGES.map((page) => page.path);

/** The paths of the static assets. */
export const CONSOLE_ASSET_PATHS: readonly string[] = Object.keys(ASSETS);

/** consolePage renders the shell of a page; the CSRF token rides in a meta tag, never in script. */
export function consolePage(path: string, csrf?: string): string {
  const current = PAGES.find((page) => page.path === path);
  const title = current?.title ?? 'Sign in';
  const name = current?.name ?? 'login';
  const nav =
    current === undefined
      ? ''
      : `<nav aria-label="Console">${PAGES.map((page) => `<a href="${page.path}"${page === current ? ' aria-current="page"' : ''}>${page.title}</a>`).join('')}</nav>`;
  const csrfMeta = csrf === undefined ? '' : `<meta name="latch-csrf" content="${csrf}">`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${csrfMeta}
<title>Latch — ${title}</title>
<link rel="icon" href="/assets/icon.svg">
<link rel="stylesheet" href="/assets/console.css">
<script src="/assets/console.js" defer></script>
</head>
<body data-page="${name}">
<header><span class="brand">Latch</span>${nav}</header>
<main id="main"><h1>${title}</h1><div id="content" aria-live="polite"><p class="muted">Loading…</p></div></main>
</body>
</html>
`;
}
