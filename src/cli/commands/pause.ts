/**
 * `latch pause` and `latch resume`: the owner's emergency brake. While paused, the daemon signs
 * nothing that authorizes spending or moves money, for anyone; reads, /health and revocations keep
 * working. The brake is the file $LATCH_HOME/paused, so it needs no running daemon, holds across
 * restarts, and a running daemon applies it at its next request.
 */
import { pausePath, pauseSigning, resumeSigning, type PauseState } from '../../datadir/pause.js';
import { stringFlag } from '../daemon-calls/command-args.js';
import { localCommand } from '../local-command.js';
import { privateHome } from '../private-home.js';

/** `latch pause [--reason TEXT]` pulls the brake. */
export const pauseCommand = localCommand<{ paused: PauseState; file: string }>({
  name: 'pause',
  summary: 'Emergency brake: the daemon signs nothing for anyone until latch resume',
  usage: `Usage: latch pause [--reason TEXT] [--json]

Pulls the owner's emergency brake: from the next request on, the daemon signs no authorization
(of any kind, for the owner or any agent), no wallet allocation and no money-moving request through
the /v1 proxy; they are refused with 409 daemon_paused. Reads, /health (which shows the pause) and
revocations keep working, so you can look around and revoke what is out there. The brake is the file $LATCH_HOME/paused: it holds across restarts and
needs no running daemon. A second pause keeps the first one's time.

Options:
  --reason TEXT   a note shown with the pause (at most 200 characters)

With --json it prints {"paused": {"since", "reason"}, "file"}.

Exit codes: 0 paused; 2 bad usage; 3 unsafe data directory; 7 --agent given; 1 anything else.`,
  flags: { reason: 'value' },
  positionalsMax: 0,
  perform({ flags }, io) {
    const home = privateHome(io.env);
    return { paused: pauseSigning(home, stringFlag(flags, 'reason')), file: pausePath(home) };
  },
  human: ({ paused, file }) => [`Signing is paused (since ${paused.since}). Nothing is signed until latch resume; reads and revocations still work.`, `The brake is ${file}.`],
});

/** `latch resume` releases the brake. */
export const resumeCommand = localCommand<{ resumed: boolean }>({
  name: 'resume',
  summary: 'Release the emergency brake: the daemon signs again',
  usage: `Usage: latch resume [--json]

Releases the brake set by latch pause: from the next request on, the daemon signs again (subject to
the spending policy, when there is one).

With --json it prints {"resumed": true} (false when it was not paused).

Exit codes: 0 resumed (or was not paused); 2 bad usage; 3 unsafe data directory; 7 --agent given; 1 anything else.`,
  flags: {},
  positionalsMax: 0,
  perform: (_args, io) => ({ resumed: resumeSigning(privateHome(io.env)) }),
  human: ({ resumed }) => [resumed ? 'Signing resumed.' : 'Signing was not paused.'],
});
