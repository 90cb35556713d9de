import type { TerminalInput } from './terminal/key-input.js';

/** The streams and environment a command runs with; tests pass their own. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** Standard input, for the commands that ask the owner something (approve, passphrases); absent means none. */
  stdin?: TerminalInput;
}

/**
 * processIo is the io of the running process. Standard input is a getter, so that it is created
 * only when a command reads it: process.stdin opens a stream that most commands, `latch daemon`
 * above all, never use, and that costs the daemon's start time and memory (docs/decisions.md §15.10).
 */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    get stdin(): TerminalInput {
      return process.stdin;
    },
  };
}

/**
 * A CLI command. Each lives in its own file under src/cli/commands/ and is listed once in
 * command-list.ts; main.ts knows nothing about any particular command.
 */
export interface Command {
  /** The words that select the command, e.g. `daemon` or `token rotate`. */
  name: string;
  /** One line for `latch --help`. */
  summary: string;
  /** The full `--help` text of the command. */
  usage: string;
  /** run executes the command with the arguments after its name and returns the exit code. */
  run(args: string[], io: CliIo): Promise<number>;
}

/** UsageError is a bad command line; main prints it with the command's usage and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** writeLine writes one line to a stream. */
export function writeLine(stream: NodeJS.WritableStream, text: string): void {
  stream.write(`${text}\n`);
}
