/**
 * `latch pause` and `latch resume`: the owner's emergency brake. While paused, the daemon signs
 * nothing that authorizes spending or moves money, for anyone; reads, /health and revocations keep
 * working. The brake is the file $LATCH_HOME/paused, so it needs no running daemon, holds across
 * restarts, and a running daemon applies it at its next request.
 */
import { pausePath, pauseSigning, resumeSigning } from '../../datadir/pause.js';
import { writeLine, type Command } from '../command.js';
import { stringFlag } from '../daemon-calls/command-args.js';
import { EXIT } from '../exit-codes.js';
import { parseFlags } from '../flags.js';
import { reportError } from '../report-error.js';
import { privateHome } from '../private-home.js';
import { LatchClient } from '../../client/latch-client.js';
import { latchVersion } from '../../version.js';
import type { CliIo } from '../command.js';
import { isOwnerHomeOfAnotherDaemon, withOwnerPresence } from '../owner-session.js';

/** throughApi calls the daemon as the owner, with a session when it wants presence (asked on the terminal). */
async function throughApi<T>(io: CliIo, passphraseStdin: boolean, call: (client: LatchClient) => Promise<T>): Promise<T> {
  const client = new LatchClient({ env: { ...io.env, LATCH_AGENT: '' }, userAgent: `latch-cli/${latchVersion()}` });
  try {
    return await withOwnerPresence(client, io, { passphraseStdin, openWithoutToken: true }, () => call(client));
  } finally {
    client.close();
  }
}

/** `latch pause [--reason TEXT]` pulls the brake. */
export const pauseCommand: Command = {
  name: 'pause',
  summary: 'Emergency brake: the daemon signs nothing for anyone until latch resume',
  usage: `Usage: latch pause [--reason TEXT] [--passphrase-stdin]

Pulls the owner's emergency brake: from the next request on, the daemon signs no authorization
(of any kind, for the owner or any agent), no wallet allocation and no money-moving request through
the /v1 proxy; they are refused with 409 daemon_paused. Reads, /health (which shows the pause) and
revocations keep working, so you can look around and revoke what is out there. The brake is the file $LATCH_HOME/paused: it holds across restarts and
needs no running daemon. A second pause keeps the first one's time.

Options:
  --reason TEXT        a note shown with the pause (at most 200 characters)
  --passphrase-stdin   in the separate-user setup (this LATCH_HOME holds only a pinned daemon
                       key), the owner passphrase for the session, from standard input

Exit codes: 0 paused; 2 bad usage; 3 unsafe data directory; 1 anything else.`,
  async run(args, io) {
    try {
      const flags = parseFlags(args, { reason: 'value', 'passphrase-stdin': 'boolean' });
      const home = privateHome(io.env);
      if (isOwnerHomeOfAnotherDaemon(home)) {
        // The separate-user setup: the brake is the daemon's file, pulled through its API.
        await throughApi(io, flags['passphrase-stdin'] === true, (client) => client.pause(stringFlag(flags, 'reason')));
        writeLine(io.stdout, 'Signing is paused. Nothing is signed until latch resume; reads and revocations still work.');
        return EXIT.ok;
      }
      const state = pauseSigning(home, stringFlag(flags, 'reason'));
      writeLine(io.stdout, `Signing is paused (since ${state.since}). Nothing is signed until latch resume; reads and revocations still work.`);
      writeLine(io.stdout, `The brake is ${pausePath(home)}.`);
      return EXIT.ok;
    } catch (error) {
      return reportError(error, io, 'pause');
    }
  },
};

/** `latch resume` releases the brake. */
export const resumeCommand: Command = {
  name: 'resume',
  summary: 'Release the emergency brake: the daemon signs again',
  usage: `Usage: latch resume [--passphrase-stdin]

Releases the brake set by latch pause: from the next request on, the daemon signs again (subject to
the spending policy, when there is one). In the separate-user setup (this LATCH_HOME holds only a
pinned daemon key) it calls POST /resume with an owner session: the owner passphrase is asked for
on the terminal, or read from standard input with --passphrase-stdin.

Exit codes: 0 resumed (or was not paused); 2 bad usage; 3 unsafe data directory; 1 anything else.`,
  async run(args, io) {
    try {
      const flags = parseFlags(args, { 'passphrase-stdin': 'boolean' });
      const home = privateHome(io.env);
      if (isOwnerHomeOfAnotherDaemon(home)) {
        // The separate-user setup: resuming through the API needs the owner's presence.
        const answer = await throughApi(io, flags['passphrase-stdin'] === true, (client) => client.resume());
        writeLine(io.stdout, answer['resumed'] === true ? 'Signing resumed.' : 'Signing was not paused.');
        return EXIT.ok;
      }
      writeLine(io.stdout, resumeSigning(home) ? 'Signing resumed.' : 'Signing was not paused.');
      return EXIT.ok;
    } catch (error) {
      return reportError(error, io, 'resume');
    }
  },
};
