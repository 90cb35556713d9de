import { UsageError } from '../command.js';
import { parseFlags, type FlagKind, type Flags } from '../flags.js';
import { isWireId } from '../../ids/wire-ids.js';

/** A command line split into flags and positional arguments. */
export interface CommandArgs {
  flags: Flags;
  positionals: string[];
}

/**
 * parseCommandArgs separates positional arguments (`latch cards card_…`) from flags, then reads
 * the flags with parseFlags, so unknown, repeated or valueless flags stay usage errors. A value
 * flag's value is never taken for a positional, and more positionals than allowed is an error.
 */
export function parseCommandArgs(args: readonly string[], spec: Readonly<Record<string, FlagKind>>, positionalsMax: number): CommandArgs {
  const flagArgs: string[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    flagArgs.push(arg);
    const name = arg.includes('=') ? undefined : arg.slice(2);
    if (name !== undefined && Object.hasOwn(spec, name) && spec[name] === 'value' && i + 1 < args.length) flagArgs.push(args[++i] as string);
  }
  // Flags first: after an unknown `--flag value`, "unknown flag" is the true complaint, not the value.
  const flags = parseFlags(flagArgs, spec);
  if (positionals.length > positionalsMax) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[positionalsMax])}`);
  return { flags, positionals };
}

/** stringFlag returns a value flag's text, or undefined when absent. */
export function stringFlag(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

/** requiredFlag returns a value flag's text or throws a usage error naming it. */
export function requiredFlag(flags: Flags, name: string): string {
  const value = stringFlag(flags, name);
  if (value === undefined) throw new UsageError(`--${name} is required`);
  return value;
}

/** integerFlag reads a whole-number flag within bounds, or undefined when absent. */
export function integerFlag(flags: Flags, name: string, min: number, max: number): number | undefined {
  const value = stringFlag(flags, name);
  if (value === undefined) return undefined;
  if (!/^[0-9]{1,9}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

/** choiceFlag reads a flag that must be one of the given words, or undefined when absent. */
export function choiceFlag<T extends string>(flags: Flags, name: string, choices: readonly T[]): T | undefined {
  const value = stringFlag(flags, name);
  if (value === undefined) return undefined;
  if (!(choices as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${choices.join(', ')}`);
  return value as T;
}

/**
 * amountFlag reads a money flag as exact decimal text ("12.50"). Only the shape is checked here;
 * the daemon applies the limits. The text is sent as it is, never through a binary float.
 */
export function amountFlag(flags: Flags, name: string): string | undefined {
  const value = stringFlag(flags, name);
  if (value === undefined) return undefined;
  if (!/^(0|[1-9][0-9]{0,12})(\.[0-9]{1,2})?$/.test(value)) throw new UsageError(`--${name} must be a decimal amount like 12.50 (at most two decimals, no sign)`);
  return value;
}

/** checkId checks that an id has its type prefix (card_, pw_, tx_), so a typo fails before any request. */
export function checkId(value: string, prefix: 'card' | 'pw' | 'tx', what: string): string {
  if (!isWireId(prefix, value)) throw new UsageError(`${what} must look like ${prefix}_…`);
  return value;
}

/** optional spreads a field only when it has a value, so the daemon applies its own default. */
export function optional<K extends string, V>(name: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [name]: value }) as { [P in K]?: V };
}

/** writeOptions turns --idempotency-key into the client's write options. */
export function writeOptions(flags: Flags): { idempotencyKey?: string } {
  const key = stringFlag(flags, 'idempotency-key');
  return key === undefined ? {} : { idempotencyKey: key };
}

/** authorizeOptions adds --wait SECONDS (Prefer: wait, 1..60) to the write options of a POST the owner may have to approve. */
export function authorizeOptions(flags: Flags): { idempotencyKey?: string; waitSeconds?: number } {
  return { ...writeOptions(flags), ...optional('waitSeconds', integerFlag(flags, 'wait', 1, 60)) };
}
