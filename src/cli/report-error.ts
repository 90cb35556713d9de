import { LatchClientError } from '../client/client-errors.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import { exitCodeForClientError } from './daemon-calls/exit-for-error.js';
import { ERROR_TABLE } from '../errors/error-table.js';
import { LatchError, remedyFor } from '../errors/latch-error.js';
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
  if (error instanceof LatchClientError) {
    writeLine(io.stderr, `latch ${commandName}: ${error.specClass} (${error.code}): ${error.message}`);
    writeLine(io.stderr, `What to do: ${error.remedy}`);
    return exitCodeForClientError(error);
  }
  if (error instanceof LatchError) {
    writeLine(io.stderr, `latch ${commandName}: ${ERROR_TABLE[error.code].specClass} (${error.code}): ${error.message}`);
    writeLine(io.stderr, `What to do: ${remedyFor(error.code)}`);
    return exitCodeFor(error);
  }
  const message = error instanceof Error ? error.message : String(error);
  writeLine(io.stderr, `latch ${commandName}: unexpected error: ${message}`);
  return EXIT.failure;
}

/** exitCodeFor maps an error code to the exit code scripts switch on. */
export function exitCodeFor(error: LatchError): number {
  if (error.code === 'upstream_unavailable') return EXIT.upstreamUnavailable;
  if (error.code === 'internal_error') return EXIT.failure;
  return EXIT.refused;
}
