import { UsageError } from './command.js';

/** How a flag is read: a boolean switch (`--no-variant-b`) or one value (`--port-a 7723`, `--port-a=7723`). */
export type FlagKind = 'boolean' | 'value';

/** Parsed flags: switches map to true, value flags to their text. */
export type Flags = Record<string, true | string>;

/**
 * parseFlags reads `--name` and `--name value` / `--name=value` arguments against a spec. Unknown
 * flags, positional arguments, a missing value and a repeated flag are usage errors: a CLI that
 * guesses would start a payment daemon with settings the user did not ask for.
 */
export function parseFlags(args: readonly string[], spec: Readonly<Record<string, FlagKind>>): Flags {
  const flags: Flags = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('--')) throw new UsageError(`unexpected argument ${JSON.stringify(arg)}`);
    const equals = arg.indexOf('=');
    const name = equals === -1 ? arg.slice(2) : arg.slice(2, equals);
    const kind = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (kind === undefined) throw new UsageError(`unknown flag --${name}`);
    if (Object.hasOwn(flags, name)) throw new UsageError(`--${name} given twice`);
    if (kind === 'boolean') {
      if (equals !== -1) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    const value = equals === -1 ? args[++i] : arg.slice(equals + 1);
    if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`);
    flags[name] = value;
  }
  return flags;
}

/** portFlag reads a port number flag (0..65535, 0 = any free port), or undefined when absent. */
export function portFlag(flags: Flags, name: string): number | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (value === true || !/^[0-9]{1,5}$/.test(value) || Number(value) > 65535) {
    throw new UsageError(`--${name} must be a port number from 0 to 65535`);
  }
  return Number(value);
}
