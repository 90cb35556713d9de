import { rotateToken, tokenPath } from '../../datadir/token.js';
import { writeLine, type Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { parseFlags } from '../flags.js';
import { reportError } from '../report-error.js';
import { privateHome } from '../private-home.js';

const USAGE = `Usage: latch token rotate

Replaces the daemon token in $LATCH_HOME/daemon_token (default ~/.latch) with a fresh random one,
atomically. A running daemon accepts only the new token from its next request on; clients re-read
the file. The token itself is never printed.

Exit codes: 0 rotated; 2 bad usage; 3 unsafe or broken data directory; 1 anything else.`;

/** `latch token rotate` replaces the daemon token. */
export const tokenRotateCommand: Command = {
  name: 'token rotate',
  summary: 'Replace the daemon token (a running daemon picks it up at once)',
  usage: USAGE,
  async run(args, io) {
    try {
      parseFlags(args, {});
      // Writing a fresh secret into a directory others can read would leak it at once.
      const home = privateHome(io.env);
      rotateToken(home);
      writeLine(io.stdout, `Rotated the daemon token in ${tokenPath(home)}.`);
      return EXIT.ok;
    } catch (error) {
      return reportError(error, io, 'token rotate');
    }
  },
};
