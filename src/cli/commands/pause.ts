/**
 * `latch pause` and `latch resume`: the owner's emergency brake. While paused, the daemon signs
 * nothing that authorizes spending or moves money, for anyone; reads, /health and revocations keep
 * working. The brake is the file $LATCH_HOME/paused, so it needs no running daemon, holds across
 * restarts, and a running daemon applies it at its next request. In the separate-user setup
 * (this LATCH_HOME is the owner's own, holding only a pinned daemon key) the daemon's file is out
 * of reach, so both go through the API (POST /pause, POST /resume; docs/decisions.md §21).
 */
import { LatchClient } from '../../client/latch-client.js';
import { pausePath, pauseSigning, resumeSigning, type PauseState } from '../../datadir/pause.js';
import { latchVersion } from '../../version.js';
import type { CliIo } from '../command.js';
import { stringFlag } from '../daemon-calls/command-args.js';
import { localCommand } from '../local-command.js';
import { directEditNote, isOwnerHomeOfAnotherDaemon, withOwnerPresence } from '../owner-session.js';
import { privateHome } from '../private-home.js';

/** throughApi calls the daemon as the owner, with a session from the owner passphrase. */
async function throughApi<T>(io: CliIo, passphraseStdin: boolean, call: (client: LatchClient) => Promise<T>): Promise<T> {
  const client = new LatchClient({ env: { ...io.env, LATCH_AGENT: '' }, userAgent: `latch-cli/${latchVersion()}` });
  try {
    return await withOwnerPresence(client, io, { passphraseStdin, openWithoutToken: true }, () => call(client));
  } finally {
    client.close();
  }
}

const PASSPHRASE_OPTION = `  --passphrase-stdin   in the separate-user setup (this LATCH_HOME holds only a pinned daemon
                       key), read the owner passphrase for the session from standard input`;

/** `latch pause [--reason TEXT]` pulls the brake. */
export const pauseCommand = localCommand<{ paused: Pick<PauseState, 'since'> & Partial<PauseState>; file: string | null }>({
  name: 'pause',
  summary: 'Emergency brake: the daemon signs nothing for anyone until latch resume',
  usage: `Usage: latch pause [--reason TEXT] [--passphrase-stdin] [--json]

Pulls the owner's emergency brake: from the next request on, the daemon signs no authorization
(of any kind, for the owner or any agent), no wallet allocation and no money-moving request through
the /v1 proxy; they are refused with 409 daemon_paused. Reads, /health (which shows the pause) and
revocations keep working, so you can look around and revoke what is out there. The brake is the file $LATCH_HOME/paused: it holds across restarts and
needs no running daemon. A second pause keeps the first one's time. In the separate-user setup it
is pulled through the daemon's API (POST /pause) with an owner session.

Options:
  --reason TEXT        a note shown with the pause (at most 200 characters)
${PASSPHRASE_OPTION}

With --json it prints {"paused": {"since", "reason"}, "file"}.

Exit codes: 0 paused; 2 bad usage; 3 unsafe data directory; 7 --agent given; 1 anything else.`,
  flags: { reason: 'value', 'passphrase-stdin': 'boolean' },
  positionalsMax: 0,
  async perform({ flags }, io) {
    const home = privateHome(io.env);
    if (isOwnerHomeOfAnotherDaemon(home)) {
      const answer = await throughApi(io, flags['passphrase-stdin'] === true, (client) => client.pause(stringFlag(flags, 'reason')));
      return { paused: answer['paused'] as PauseState, file: null };
    }
    return { paused: pauseSigning(home, stringFlag(flags, 'reason')), file: pausePath(home) };
  },
  human: ({ paused, file }) => [
    `Signing is paused (since ${paused.since}). Nothing is signed until latch resume; reads and revocations still work.`,
    file === null ? 'The daemon pulled its own brake.' : `The brake is ${file}.`,
  ],
});

/** `latch resume` releases the brake. */
export const resumeCommand = localCommand<{ resumed: boolean; note?: string }>({
  name: 'resume',
  summary: 'Release the emergency brake: the daemon signs again',
  usage: `Usage: latch resume [--passphrase-stdin] [--json]

Releases the brake set by latch pause: from the next request on, the daemon signs again (subject to
the spending policy, when there is one). In the separate-user setup it calls POST /resume with an
owner session (the owner passphrase is asked for on the terminal, or read with --passphrase-stdin).

Options:
${PASSPHRASE_OPTION}

With --json it prints {"resumed": true} (false when it was not paused).

Exit codes: 0 resumed (or was not paused); 2 bad usage; 3 unsafe data directory; 7 --agent given; 1 anything else.`,
  flags: { 'passphrase-stdin': 'boolean' },
  positionalsMax: 0,
  async perform({ flags }, io) {
    const home = privateHome(io.env);
    if (isOwnerHomeOfAnotherDaemon(home)) {
      const answer = await throughApi(io, flags['passphrase-stdin'] === true, (client) => client.resume());
      return { resumed: answer['resumed'] === true };
    }
    const resumed = resumeSigning(home);
    return { resumed, ...(resumed && directEditNote(home)) };
  },
  human: ({ resumed, note }) => [resumed ? 'Signing resumed.' : 'Signing was not paused.', ...(note === undefined ? [] : [note])],
});
