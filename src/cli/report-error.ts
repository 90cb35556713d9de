import { LatchClientError } from '../client/client-errors.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import { asDataDirError } from '../datadir/filesystem-error.js';
import { exitCodeForClientError } from './daemon-calls/exit-for-error.js';
import { ERROR_TABLE } from '../errors/error-table.js';
import { remedyFor } from '../errors/error-body.js';
import { LatchError } from '../errors/latch-error.js';
import type { Logger } from '../log/logger.js';
import { EXIT } from './exit-codes.js';
import { UsageError, writeLine, type CliIo } from './command.js';

/** A command's failure, described once for both ways of telling it (text and a JSON log line). */
export interface FailureReport {
  exitCode: number;
  /** A stable code: a LatchError's, LatchClientError's or DataDirError's code, `usage`, or `unexpected`. */
  code: string;
  /** The error class of the error table, for a LatchError or LatchClientError. */
  errorClass?: string;
  message: string;
  /** What to do about it (a DataDirError's fix, a code's remedy, the usage hint). */
  remedy?: string;
  /** The file a DataDirError is about. */
  file?: string;
}

/**
 * describeFailure maps an error to its exit code and words. A DataDirError's message already
 * names the file and the fix; an operating-system error on a file (EACCES, EROFS ...) is told as
 * one. Messages are our own and carry no secrets.
 */
export function describeFailure(error: unknown, commandName: string): FailureReport {
  if (error instanceof UsageError) {
    return { exitCode: EXIT.usage, code: 'usage', message: error.message, remedy: `Run 'latch ${commandName} --help' for usage.` };
  }
  const dataDirError = error instanceof DataDirError ? error : asDataDirError(error);
  if (dataDirError !== undefined) {
    return { exitCode: EXIT.dataDir, code: dataDirError.code, message: dataDirError.message, remedy: dataDirError.fix, file: dataDirError.file };
  }
  if (error instanceof LatchClientError) {
    return { exitCode: exitCodeForClientError(error), code: error.code, errorClass: error.specClass, message: error.message, remedy: error.remedy };
  }
  if (error instanceof LatchError) {
    return { exitCode: exitCodeFor(error), code: error.code, errorClass: ERROR_TABLE[error.code].specClass, message: error.message, remedy: remedyFor(error.code) };
  }
  return { exitCode: EXIT.failure, code: 'unexpected', message: `unexpected error: ${error instanceof Error ? error.message : String(error)}` };
}

/** reportError prints a command's failure to stderr as text and returns its exit code. */
export function reportError(error: unknown, io: CliIo, commandName: string): number {
  const report = describeFailure(error, commandName);
  if (report.errorClass !== undefined) {
    writeLine(io.stderr, `latch ${commandName}: ${report.errorClass} (${report.code}): ${report.message}`);
    writeLine(io.stderr, `What to do: ${report.remedy ?? ''}`);
  } else {
    writeLine(io.stderr, `latch ${commandName}: ${report.message}`);
    if (report.code === 'usage') writeLine(io.stderr, report.remedy ?? '');
  }
  return report.exitCode;
}

/**
 * reportErrorAsLog writes a command's failure as one JSON log line (the daemon's stderr carries
 * nothing else, docs/decisions.md §24.6) and returns its exit code.
 */
export function reportErrorAsLog(error: unknown, logger: Logger, commandName: string, event: string): number {
  const report = describeFailure(error, commandName);
  logger.error(event, {
    code: report.code,
    message: report.message,
    ...(report.errorClass !== undefined && { error_class: report.errorClass }),
    ...(report.file !== undefined && { file: report.file }),
    ...(report.remedy !== undefined && { remedy: report.remedy }),
    exit_code: report.exitCode,
  });
  return report.exitCode;
}

/** exitCodeFor maps an error code to the exit code scripts switch on. */
export function exitCodeFor(error: LatchError): number {
  if (error.code === 'upstream_unavailable') return EXIT.upstreamUnavailable;
  if (error.code === 'fetch_unavailable') return EXIT.processLimits;
  if (error.code === 'internal_error') return EXIT.failure;
  return EXIT.refused;
}
