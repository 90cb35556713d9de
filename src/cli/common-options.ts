/**
 * The two options every `latch` command takes (docs/decisions.md §19): `--json`, one JSON value on
 * stdout for programs, and `--agent NAME`, to act as an agent. A command that talks to the daemon
 * runs as the agent; a command that is the owner's alone (it works on the data directory, or runs
 * the daemon itself) refuses it with agent_not_permitted, as the daemon refuses an agent's token
 * on an owner route. usageWithCommonOptions puts both in every command's --help.
 */
import { LatchClientError } from '../client/client-errors.js';

/** The --json line of a command's options. */
export const JSON_OPTION = '  --json         print one JSON value on stdout: the result, or {"error": {...}} on failure';
/** The --agent line of a command that talks to the daemon. */
export const AGENT_OPTION = "  --agent NAME   act as agent NAME, with that agent's own token (or LATCH_AGENT=NAME)";
/** The --agent line of a command that is the owner's alone. */
export const OWNER_ONLY_AGENT_OPTION = "  --agent NAME   refused (exit 7, agent_not_permitted): this command is the owner's alone";

/** The --passphrase-stdin line of a command the owner runs through the daemon. */
export const PASSPHRASE_STDIN_OPTION = '  --passphrase-stdin   the owner passphrase, when one is needed (the separate-user setup), from the first line of standard input';

/**
 * usageWithCommonOptions adds the --json and --agent lines a usage text does not already have,
 * at the top of its Options block (or in a new one before its exit codes).
 */
export function usageWithCommonOptions(usage: string, agentLine: string = AGENT_OPTION, jsonLine: string = JSON_OPTION, passphraseLine?: string): string {
  const missing = [
    /^\s+--json\b/m.test(usage) ? undefined : jsonLine,
    /^\s+--agent NAME\b/m.test(usage) ? undefined : agentLine,
    passphraseLine === undefined || /^\s+--passphrase-stdin\b/m.test(usage) ? undefined : passphraseLine,
  ].filter((line): line is string => line !== undefined);
  if (missing.length === 0) return usage;
  const options = usage.indexOf('\nOptions:\n');
  if (options !== -1) {
    const at = options + '\nOptions:\n'.length;
    return `${usage.slice(0, at)}${missing.join('\n')}\n${usage.slice(at)}`;
  }
  const block = `Options:\n${missing.join('\n')}\n\n`;
  const exitCodes = usage.indexOf('\nExit codes:');
  if (exitCodes !== -1) return `${usage.slice(0, exitCodes + 1)}${block}${usage.slice(exitCodes + 1)}`;
  return `${usage}\n\n${block.trimEnd()}`;
}

/** refuseAgentFlag throws agent_not_permitted when an owner-only command was given --agent NAME. */
export function refuseAgentFlag(commandName: string, agent: string | undefined): void {
  if (agent === undefined) return;
  throw new LatchClientError({
    code: 'agent_not_permitted',
    status: null,
    message: `latch ${commandName} is the owner's alone (it works on the data directory or runs the daemon), so it cannot run as agent ${JSON.stringify(agent)}. Run it without --agent.`,
  });
}
