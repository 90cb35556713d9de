/**
 * `latch console [--no-open]`: asks the daemon for a one-time login link to the owner console and
 * opens it in the browser. The link's code is in the URL's fragment, so it reaches no server log
 * and no Referer; it works once, within 60 seconds. The opener never sees the code: it is given a
 * private page that redirects to the link (login-page.ts).
 */
import { ensureHome } from '../../datadir/home.js';
import { assertDataDirSecure } from '../../datadir/permissions.js';
import { daemonCallCommand } from '../daemon-calls/daemon-call-command.js';
import { openInBrowser, writeLoginPage } from '../login-page.js';

const USAGE = `Usage: latch console [--no-open] [--json]

Prints a one-time login link to the owner console (http://localhost:7724/login#CODE by default)
and opens it in your browser (through a private page in $LATCH_HOME, console-login.html, so the
code is never on a command line other users can read). The link works once, within 60 seconds; the console then keeps you
signed in for 15 minutes of inactivity (12 hours at most, or until the daemon restarts). Making a
link needs the owner: the daemon token, or an owner session.

Once a passphrase or passkey is set, the link alone does not sign you in: the page asks for your
passkey or passphrase too, because a program running as you could read the link from that page
(docs/console.md). With a passkey you can also sign in on any console page without a link.

Once a passphrase or passkey is set, every console action that widens what may happen (approving,
resuming, applying a policy, adding, rotating or removing an agent, managing passkeys) asks again
for your passkey or passphrase; a console session alone reaches only what the console's pages
use, and asks for no payment.

Options:
  --no-open   print the link only
  --json      print {url, expires_at}

Exit codes: 0 a link was made; 7 refused (an agent, or the console is off); 8 no daemon; 2 bad usage.`;

/** `latch console` prints and opens a login link. */
export const consoleCommand = daemonCallCommand<{ url: string; expires_at: string }>({
  name: 'console',
  summary: 'Open the owner console in the browser (a one-time login link)',
  usage: USAGE,
  flags: { 'no-open': 'boolean' },
  positionalsMax: 0,
  prepare: (args) => async (client) => {
    const open = args.flags['no-open'] !== true;
    if (open) {
      // The page is the owner's own: written only into a data directory that is private, checked
      // before a code is made so that a refusal wastes none.
      ensureHome(client.home);
      assertDataDirSecure(client.home);
    }
    const link = await client.consoleLoginLink();
    if (open) openInBrowser(writeLoginPage(client.home, link.url));
    return link;
  },
  human: (link) => [link.url],
});
