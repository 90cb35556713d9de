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

/** `latch pause [--reason TEXT]` pulls the brake. */
export const pauseCommand: Command = {
  name: 'pause',
  summary: 'Emergency brake: the daemon signs nothing for anyone until latch resume',
  usage: `Usage: latch pause [--reason TEXT]

Pulls the owner's emergency brake: from the next request on, the daemon signs no authorization
(of any kind, for the owner or any agent), no wallet allocation and no money-moving request through
the /v1 proxy; they are refused with 409 daemon_paused. Reads, /health (which shows the pause) and
revocations keep working, so you can look around and revoke what is out there. The brake is the file $LATCH_HOME/paused: it holds across restarts and
needs no running daemon. A second pause keeps the first one's time.

Options:
  --reason TEXT   a note shown with the pause (at most 200 characters)

Exit codes: 0 paused; 2 bad usage; 3 unsafe data directory; 1 anything else.`,
  async run(args, io) {
    try {
      const flags = parseFlags(args, { reason: 'value' });
      const home = privateHome(io.env);
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
  usage: `Usage: latch resume

Releases the brake set by latch pause: from the next request on, the daemon signs again (subject to
the spending policy, when there is one).

Exit codes: 0 resumed (or was not paused); 2 bad usage; 3 unsafe data directory; 1 anything else.`,
  async run(args, io) {
    try {
      parseFlags(args, {});
      const home = privateHome(io.env);
      writeLine(io.stdout, resumeSigning(home) ? 'Signing resumed.' : 'Signing was not paused.');
      return EXIT.ok;
    } catch (error) {
      return reportError(error, io, 'resume');
    }
  },
};
