import { refuseWhereDaemonLivesElsewhere } from '../owner-session.js';
import { rotateToken, tokenPath } from '../../datadir/token.js';
import { localCommand } from '../local-command.js';
import { privateHome } from '../private-home.js';

const USAGE = `Usage: latch token rotate [--json]

Replaces the daemon token in $LATCH_HOME/daemon_token (default ~/.latch) with a fresh random one,
atomically. A running daemon accepts only the new token from its next request on; clients re-read
the file. The token itself is never printed (--json prints {"rotated": true, "file"}).

Exit codes: 0 rotated; 2 bad usage; 3 unsafe or broken data directory; 7 --agent given; 1 anything else.`;

/** `latch token rotate` replaces the daemon token. */
export const tokenRotateCommand = localCommand<{ rotated: true; file: string }>({
  name: 'token rotate',
  summary: 'Replace the daemon token (a running daemon picks it up at once)',
  usage: USAGE,
  flags: {},
  positionalsMax: 0,
  perform(_args, io) {
    refuseWhereDaemonLivesElsewhere('token rotate', io.env, 'The daemon token is the service user\'s: rotate it as the service user (sudo -u SERVICE_USER env LATCH_HOME=DATA_DIR latch token rotate).');
    // Writing a fresh secret into a directory others can read would leak it at once.
    const home = privateHome(io.env);
    rotateToken(home);
    return { rotated: true, file: tokenPath(home) };
  },
  human: ({ file }) => [`Rotated the daemon token in ${file}.`],
});
