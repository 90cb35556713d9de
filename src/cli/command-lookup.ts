/**
 * The command line as people type it (issue 44 item 5): a group's help for `latch agent` and
 * `latch agent --help`, the global flags before the command (`latch --agent shopper authorize …`),
 * and the nearest command for a misspelt one ("did you mean authorize?").
 */
import type { Command } from './command.js';

/** Flags any daemon-talking command takes, which may come before the command's name. */
const GLOBAL_VALUE_FLAGS: ReadonlySet<string> = new Set(['--agent']);
const GLOBAL_BOOLEAN_FLAGS: ReadonlySet<string> = new Set(['--json', '--passphrase-stdin']);

/**
 * hoistGlobalFlags moves the global flags written before the command's name to after it, so
 * `latch --agent shopper authorize --card …` is `latch authorize --card … --agent shopper`.
 * Anything else before the name is left where it is (and reported as an unknown command).
 */
export function hoistGlobalFlags(argv: readonly string[]): string[] {
  const hoisted: string[] = [];
  let at = 0;
  while (at < argv.length) {
    const arg = argv[at] as string;
    const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    if (GLOBAL_BOOLEAN_FLAGS.has(arg)) {
      hoisted.push(arg);
      at += 1;
    } else if (GLOBAL_VALUE_FLAGS.has(name) && arg.includes('=')) {
      hoisted.push(arg);
      at += 1;
    } else if (GLOBAL_VALUE_FLAGS.has(arg) && at + 1 < argv.length) {
      hoisted.push(arg, argv[at + 1] as string);
      at += 2;
    } else {
      break;
    }
  }
  return hoisted.length === 0 ? [...argv] : [...argv.slice(at), ...hoisted];
}

/** groupOf returns the commands whose names start with the given words (`agent` → agent add, …), when no command is named exactly that. */
export function groupOf<Named extends { readonly name: string }>(words: readonly string[], commands: readonly Named[]): Named[] {
  if (words.length === 0) return [];
  const prefix = `${words.join(' ')} `;
  return commands.filter((command) => command.name.startsWith(prefix));
}

/** groupHelp is the help of a group of commands: each with its one-line summary. */
export function groupHelp(group: string, commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [`Usage: latch ${group} <command> [options]`, '', 'Commands:', ...commands.map((c) => `  latch ${c.name.padEnd(width)}  ${c.summary}`), '', `Run 'latch ${group} <command> --help' for a command's options.`].join('\n');
}

/**
 * nearestCommand returns the command name closest to what was typed (edit distance over the same
 * number of words), or undefined when none is close: at most 2 edits, or 1 for a short word.
 */
export function nearestCommand(argv: readonly string[], names: readonly string[]): string | undefined {
  let best: { name: string; distance: number; words: number } | undefined;
  for (const name of names) {
    const words = name.split(' ');
    const typed = argv.slice(0, words.length).join(' ');
    if (argv.length < words.length) continue;
    const distance = editDistance(typed, name);
    const allowed = name.length <= 4 ? 1 : 2;
    // On a tie the name that uses more of the typed words wins (sandbox setup-token over sandbox).
    if (distance <= allowed && (best === undefined || distance < best.distance || (distance === best.distance && words.length > best.words))) best = { name, distance, words: words.length };
  }
  return best?.name;
}

/** editDistance is the Damerau–Levenshtein distance (adjacent swaps count once). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const above = d[i - 1] as number[];
      row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}
