import { UsageError, writeLine, type CliIo } from '../command.js';
import { reportCallError } from '../daemon-calls/daemon-call-command.js';
import { EXIT } from '../exit-codes.js';
import { InputEnded, PromptInterrupted } from '../terminal/prompts.js';
import { StdinLineError } from '../terminal/stdin-line.js';

/**
 * reportApprovalError is reportCallError plus the prompts' outcomes: Ctrl-C exits 130, an input
 * that ended before the answer exits 1, an unusable --passphrase-stdin line is a usage error.
 */
export function reportApprovalError(error: unknown, io: CliIo, commandName: string, json: boolean): number {
  if (error instanceof PromptInterrupted) {
    writeLine(io.stderr, `latch ${commandName}: interrupted; nothing was sent.`);
    return EXIT.interrupted;
  }
  if (error instanceof InputEnded) {
    writeLine(io.stderr, `latch ${commandName}: standard input ended before an answer; nothing was sent.`);
    return EXIT.failure;
  }
  if (error instanceof StdinLineError) return reportCallError(new UsageError(error.message), io, commandName, json);
  return reportCallError(error, io, commandName, json);
}

/** approvalIdArg checks the one positional argument, an approval id `ap_…`. */
export function approvalIdArg(value: string | undefined, commandName: string): string {
  if (value === undefined) throw new UsageError(`latch ${commandName} needs an approval id (ap_…; see latch approvals)`);
  if (!/^ap_[A-Za-z0-9_-]{1,64}$/.test(value)) throw new UsageError('the approval id must look like ap_…');
  return value;
}
