import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { latchVersion, versionReport } from '../version.js';
import { processIo, writeLine, type CliIo, type Command } from './command.js';
import { ignoreClosedPipes } from './closed-pipe.js';
import { COMMAND_LIST, loadCommands } from './command-list.js';
import { EXIT } from './exit-codes.js';
import { groupHelp, groupOf, hoistGlobalFlags, nearestCommand } from './command-lookup.js';

/** helpText is `latch --help`: the commands with their one-line summaries. */
export function helpText(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    'Usage: latch <command> [options]',
    '',
    'Latch is a local payment authorization daemon: scoped, device-signed card authorizations',
    'without card numbers. The data directory is LATCH_HOME (default ~/.latch).',
    '',
    'Commands:',
    ...lines,
    '',
    'Options:',
    '  --help       show this help, or a command\'s help after its name',
    '  --version    print the version (--version --json: also Node.js and the runtime dependencies)',
  ].join('\n');
}

/**
 * findCommand picks the command whose name matches the most leading words of argv (so `token
 * rotate` wins over a hypothetical `token`), returning it with the remaining arguments.
 */
export function findCommand<Found extends { readonly name: string }>(argv: readonly string[], commands: readonly Found[]): { command: Found; args: string[] } | undefined {
  let best: { command: Found; args: string[] } | undefined;
  let bestWords = 0;
  for (const command of commands) {
    const words = command.name.split(' ');
    if (words.length <= bestWords) continue;
    if (words.every((word, i) => argv[i] === word)) {
      best = { command, args: argv.slice(words.length) };
      bestWords = words.length;
    }
  }
  return best;
}

/** runCli runs the `latch` command line and returns its exit code (see exit-codes.ts). */
export async function runCli(givenArgv: readonly string[], io: CliIo): Promise<number> {
  // Global flags may come before the command: `latch --agent shopper authorize …`.
  const argv = hoistGlobalFlags(givenArgv);
  const first = argv[0];
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    writeLine(first === undefined ? io.stderr : io.stdout, helpText(await loadCommands()));
    return first === undefined ? EXIT.usage : EXIT.ok;
  }
  if (first === '--version' || first === '-v') {
    writeLine(io.stdout, argv[1] === '--json' ? JSON.stringify(versionReport()) : latchVersion());
    return EXIT.ok;
  }
  const found = findCommand(argv, COMMAND_LIST);
  if (found === undefined) return unknownCommand(argv, io);
  // Only the chosen command's module is loaded (docs/decisions.md §15.10).
  const command = await found.command.load();
  if (found.args.includes('--help') || found.args.includes('-h')) {
    writeLine(io.stdout, command.usage);
    return EXIT.ok;
  }
  return command.run(found.args, io);
}

/**
 * unknownCommand answers what names no command: a group's name (`latch agent`, `latch policy
 * --help`) prints the group's commands; anything else names the nearest command, if one is close.
 */
async function unknownCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  for (let length = words.length; length >= 1; length--) {
    const group = groupOf(words.slice(0, length), COMMAND_LIST);
    if (group.length === 0 || words.slice(0, length).join(' ') !== argv.slice(0, length).join(' ')) continue;
    const commands = await Promise.all(group.map((listed) => listed.load()));
    const asked = argv.includes('--help') || argv.includes('-h');
    const extra = argv[length];
    if (asked && (extra === undefined || extra.startsWith('-'))) {
      writeLine(io.stdout, groupHelp(words.slice(0, length).join(' '), commands));
      return EXIT.ok;
    }
    if (extra !== undefined && !extra.startsWith('-')) {
      const nearest = nearestCommand(argv, group.map((listed) => listed.name));
      writeLine(io.stderr, `latch: unknown command ${JSON.stringify(argv.slice(0, length + 1).join(' '))}${nearest === undefined ? '' : `; did you mean ${nearest}?`}`);
    }
    writeLine(io.stderr, groupHelp(words.slice(0, length).join(' '), commands));
    return EXIT.usage;
  }
  const nearest = nearestCommand(argv, COMMAND_LIST.map((listed) => listed.name));
  writeLine(io.stderr, `latch: unknown command ${JSON.stringify(argv.join(' '))}${nearest === undefined ? '' : `; did you mean ${nearest}?`}`);
  if (nearest === undefined) writeLine(io.stderr, helpText(await loadCommands()));
  else writeLine(io.stderr, `Run 'latch ${nearest} --help' for its options, or 'latch --help' for every command.`);
  return EXIT.usage;
}

/** isEntryPoint reports whether this module is the program being run (not imported by a test). */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

// A promise rather than top-level await, so that this module can also be bundled into the
// CommonJS build (scripts/build.ts), where top-level await does not exist. In that bundle
// import.meta is empty, this check is false, and src/cli/bin-entry.ts runs the CLI instead.
if (isEntryPoint()) {
  ignoreClosedPipes();
  void runCli(process.argv.slice(2), processIo()).then((code) => {
    process.exitCode = code;
  });
}
