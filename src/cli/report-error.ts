import { DataDirError } from '../datadir/data-dir-error.js';
import { LatchError } from '../errors/latch-error.js';
import { EXIT } from './exit-codes.js';
import { UsageError, writeLine, type CliIo } from './command.js';

/**
 * reportError prints a command's failure to stderr and returns its exit code. A DataDirError's
 * message already names the file and the fix; a usage error points to --help. Messages are our
 * own and carry no secrets.
 */
export function reportError(error: unknown, io: CliIo, commandName: string): number {
  if (error instanceof UsageError) {
    writeLine(io.stderr, `latch ${commandName}: ${error.message}`);
    writeLine(io.stderr, `Run 'latch ${commandName} --help' for usage.`);
    return EXIT.usage;
  }
  if (error instanceof DataDirError) {
    writeLine(io.stderr, `latch ${commandName}: ${error.message}`);
    return EXIT.dataDir;
  }
  if (error instanceof LatchError) {
    writeLine(io.stderr, `latch ${commandName}: ${error.code}: ${error.message}`);
    return EXIT.failure;
  }
  const message = error instanceof Error ? error.message : String(error);
  writeLine(io.stderr, `latch ${commandName}: unexpected error: ${message}`);
  return EXIT.failure;
}
