/**
 * The console's pages and assets. The script, the stylesheet and the icon are real files beside
 * this one (console-files.ts reads them; every bundle carries them inlined); every page is the same
 * shell, and the script fills it.
 */
import { consoleFile } from './console-files.js';

const PAGES = [
  { path: '/approvals', name: 'approvals', title: 'Approvals' },
  { path: '/spending', name: 'spending', title: 'Spending' },
  { path: '/agents', name: 'agents', title: 'Agents' },
  { path: '/policy', name: 'policy', title: 'Policy' },
  { path: '/activity', name: 'activity', title: 'Activity' },
] as const;


const ASSETS: Readonly<Record<string, { contentType: string; file: string }>> = {
  '/assets/console.js': { contentType: 'text/javascript; charset=utf-8', file: 'console.js' },
  '/assets/console.css': { contentType: 'text/css; charset=utf-8', file: 'console.css' },
  '/assets/icon.svg': { contentType: 'image/svg+xml', file: 'icon.svg' },
};

/** consoleAsset returns a static asset by path: its content type and its bytes, as the file holds them. */
export function consoleAsset(path: string): { contentType: string; body: Uint8Array } | undefined {
  if (!Object.hasOwn(ASSETS, path)) return undefined;
  const asset = ASSETS[path] as { contentType: string; file: string };
  return { contentType: asset.contentType, body: consoleFile(asset.file) };
}

/** The paths of the signed-in pages. */
export const CONSOLE_PAGE_PATHS: readonly string[] = PAGES.map((page) => page.path);

/** The paths of the static assets. */
export const CONSOLE_ASSET_PATHS: readonly string[] = Object.keys(ASSETS);

/** The one approval page (/approvals/ap_…) and the sign-in page that leads back to it carry the approval's id. */
export interface PageTarget {
  approvalId?: string;
}

/** An approval id as the page may carry it in an attribute: nothing that needs escaping. */
export const PAGE_APPROVAL_ID = /^ap_[A-Za-z0-9_-]{1,64}$/;

/**
 * consolePage renders the shell of a page; the CSRF token rides in a meta tag, never in script.
 * With a target, the sign-in page returns to that approval's page, and the signed-in page is it.
 */
export function consolePage(path: string, csrf?: string, target: PageTarget = {}): string {
  const approvalId = target.approvalId !== undefined && PAGE_APPROVAL_ID.test(target.approvalId) ? target.approvalId : undefined;
  const onApproval = csrf !== undefined && target.approvalId !== undefined;
  const current = PAGES.find((page) => page.path === path);
  const title = onApproval ? 'Approval' : (current?.title ?? 'Sign in');
  const name = onApproval ? 'approval' : (current?.name ?? 'login');
  const approvalAttribute = approvalId === undefined ? '' : ` data-approval-id="${approvalId}"`;
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
<body data-page="${name}"${approvalAttribute}>
<header><span class="brand">Latch</span>${nav}</header>
<main id="main"><h1>${title}</h1><div id="content" aria-live="polite"><p class="muted">Loading…</p></div></main>
</body>
</html>
`;
}
