/**
 * A reader that goes away early (`latch … | head -1`) closes the pipe under stdout; the next write
 * fails with EPIPE, which Node raises as an unhandled 'error' event: a crash with a stack trace,
 * possibly halfway through a command whose work is already done (issue 30 item 7). The CLI
 * ignores that one failure instead: the command finishes and exits with its own code, and what it
 * would still have printed goes nowhere, as nobody reads it.
 */

/** Errors that mean only "nobody reads this stream any more". */
const CLOSED_PIPE_CODES: ReadonlySet<string> = new Set(['EPIPE', 'ERR_STREAM_DESTROYED']);

/** ignoreClosedPipes makes writes to a closed stdout or stderr harmless; any other error still throws. */
export function ignoreClosedPipes(streams: readonly NodeJS.WritableStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== undefined && CLOSED_PIPE_CODES.has(error.code)) return;
      throw error;
    });
  }
}
