/**
 * The entry point of the bundled CLI (dist/latch.cjs, which is the npm package's `bin` and the
 * script inside the single binary dist/latch). It always runs the CLI: main.ts decides whether it
 * is the program from import.meta.url, which a CommonJS bundle and a Node single executable lack.
 */
import { ignoreClosedPipes } from './closed-pipe.js';
import { processIo } from './command.js';
import { EXIT } from './exit-codes.js';
import { runCli } from './main.js';
import { isSandboxThread, serveSandboxThread } from '../sandbox/sandbox-thread-main.js';

// Loaded as the quick start's sandbox thread (latch start runs this same script in a worker): serve
// the sandbox, not the CLI (src/sandbox/sandbox-thread.ts).
if (isSandboxThread()) serveSandboxThread();
else runAsCli();

function runAsCli(): void {
  ignoreClosedPipes();
  runCli(process.argv.slice(2), processIo()).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // Commands report their own failures; a rejection here is a bug, reported like reportError does.
      process.stderr.write(`latch: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = EXIT.failure;
    },
  );
}
