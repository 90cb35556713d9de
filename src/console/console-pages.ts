/**
 * The console's pages and assets, as 'public' routes of its listener: the front door runs every
 * check on them as on the API (docs/decisions.md §29.2), and hands each the session its cookie
 * names, if any. Without a session a page is the login page (spec owner-console §4).
 */
import type { RequestContext, Route, RouteResult } from '../http/route.js';
import { CONSOLE_ASSET_PATHS, CONSOLE_PAGE_PATHS, consoleAsset, consolePage } from './assets/console-assets.js';
import { consoleOrigin } from './console-headers.js';

/** consolePageRoutes are the routes of the pages (GET; the front door answers HEAD alike). */
export function consolePageRoutes(port: () => number): Route[] {
  const page = (pattern: string, handler: (context: RequestContext) => RouteResult): Route => ({
    method: 'GET',
    pattern,
    access: 'public',
    handler: (context) => onLocalhost(context, port()) ?? handler(context),
  });
  return [
    page('/', () => redirect('/approvals')),
    ...CONSOLE_ASSET_PATHS.map((path) =>
      page(path, () => {
        const asset = consoleAsset(path) as { contentType: string; body: Uint8Array };
        return { status: 200, rawBody: asset.body, headers: { 'content-type': asset.contentType } };
      }),
    ),
    page('/login', () => html(consolePage('/login'))),
    ...CONSOLE_PAGE_PATHS.map((path) => page(path, (context) => html(context.consoleSession === undefined ? consolePage('/login') : consolePage(path, context.consoleSession.csrf)))),
    // The page an MCP client sends the person to (docs/decisions.md §37): without a session it is
    // the sign-in page, which shows no term of the approval; signed in, that one approval.
    page('/approvals/:approval_id', (context) => {
      const target = { approvalId: context.params['approval_id'] ?? '' };
      return html(context.consoleSession === undefined ? consolePage('/login', undefined, target) : consolePage('/approvals', context.consoleSession.csrf, target));
    }),
  ];
}

/**
 * onLocalhost redirects a page asked for on an address to `localhost`: WebAuthn's RP ID is
 * `localhost`, so a page on 127.0.0.1 could not use the owner's passkeys.
 */
function onLocalhost(context: RequestContext, port: number): RouteResult | undefined {
  const host = (context.headers.host ?? '').toLowerCase();
  if (host.startsWith('localhost:')) return undefined;
  return redirect(`${consoleOrigin(port)}${context.path === '/' ? '/approvals' : context.path}`);
}

function redirect(location: string): RouteResult {
  return { status: 302, rawBody: new Uint8Array(0), headers: { location } };
}

function html(text: string): RouteResult {
  return bytes('text/html; charset=utf-8', text);
}

function bytes(contentType: string, text: string): RouteResult {
  return { status: 200, rawBody: new TextEncoder().encode(text), headers: { 'content-type': contentType } };
}
