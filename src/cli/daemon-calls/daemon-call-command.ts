import { DaemonUrlError } from '../../client/base-url.js';
import { LatchClientError } from '../../client/client-errors.js';
import { LatchClient } from '../../client/latch-client.js';
import { AgentNameError } from '../../datadir/agents.js';
import { messageNaming } from '../../errors/latch-error.js';
import { latchVersion } from '../../version.js';
import { UsageError, writeLine, type CliIo, type Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import type { FlagKind } from '../flags.js';
import { reportError } from '../report-error.js';
import { AGENT_OPTION, JSON_OPTION, PASSPHRASE_STDIN_OPTION, usageWithCommonOptions } from '../common-options.js';
import { cliRemedy } from './cli-remedies.js';
import { parseCommandArgs, stringFlag, type CommandArgs } from './command-args.js';
import { exitCodeForClientError } from './exit-for-error.js';
import { flagFor } from './flag-names.js';
import { printable } from './views.js';
import { askOwnerPassphrase, withOwnerPresence } from '../owner-session.js';

/** A CLI command that is one conversation with the daemon through the client module. */
export interface DaemonCall<T> {
  name: string;
  summary: string;
  usage: string;
  /** The command's flags; `--json` and `--agent NAME` are added to every such command. */
  flags: Readonly<Record<string, FlagKind>>;
  positionalsMax: number;
  /**
   * When true, `--agent NAME` names whom the command is about, not whom it runs as: with it the
   * command runs as the owner (LATCH_AGENT is ignored), and prepare reads the flag itself.
   */
  agentFlagNamesSubject?: boolean;
  /**
   * prepare checks the command line (throwing UsageError before anything is sent) and returns
   * the call to make.
   */
  prepare(args: CommandArgs): (client: LatchClient) => Promise<T>;
  /** human renders a result for people; --json prints the result itself. */
  human(result: T): string[];
  /** exitCode picks the exit code of a successful answer; default 0 (e.g. 10 for a pending approval). */
  exitCode?(result: T): number;
}

/**
 * daemonCallCommand makes a Command of a DaemonCall. Output: with --json, stdout carries exactly
 * one JSON value, the result or `{"error": {...}}`; without it, readable lines on stdout and
 * errors on stderr with their class and remedy. The exit code tells success from a usage error
 * (2), a refusal (7), an unreachable daemon (8) and an unavailable cloud (9).
 */
export function daemonCallCommand<T>(call: DaemonCall<T>): Command {
  return {
    name: call.name,
    summary: call.summary,
    usage: usageWithCommonOptions(call.usage, AGENT_OPTION, JSON_OPTION, PASSPHRASE_STDIN_OPTION),
    async run(args, io) {
      let client: LatchClient | undefined;
      let json = false;
      try {
        const parsed = parseCommandArgs(args, { ...call.flags, json: 'boolean', agent: 'value', 'passphrase-stdin': 'boolean' }, call.positionalsMax);
        json = parsed.flags['json'] === true;
        const perform = call.prepare(parsed);
        const agent = stringFlag(parsed.flags, 'agent');
        // An empty name is the owner: it also overrides LATCH_AGENT.
        const passphraseStdin = parsed.flags['passphrase-stdin'] === true;
        client = newCliClient(io, call.agentFlagNamesSubject === true && agent !== undefined ? '' : agent, { passphraseStdin });
        const owner = client;
        // The owner's money-moving calls (latch allocate, ...) ask for the passphrase on the
        // terminal when the daemon wants presence (docs/decisions.md §21); agents never.
        const result = owner.agent === undefined ? await withOwnerPresence(owner, io, { passphraseStdin, openWithoutToken: false }, () => perform(owner)) : await perform(owner);
        if (json) writeLine(io.stdout, JSON.stringify(result));
        else for (const line of call.human(result)) writeLine(io.stdout, line);
        return call.exitCode?.(result) ?? EXIT.ok;
      } catch (error) {
        return reportCallError(error, io, call.name, json, call.flags);
      } finally {
        client?.close();
      }
    },
  };
}

/**
 * newCliClient makes the client the CLI uses: LATCH_HOME, LATCH_URL and LATCH_AGENT from the
 * command's environment; `--agent NAME` (every command that talks to the daemon takes it) wins
 * over LATCH_AGENT.
 */
export function newCliClient(io: CliIo, agent?: string, options: { passphraseStdin?: boolean; ownerPassphrase?: () => Promise<string> } = {}): LatchClient {
  try {
    // In the separate-user setup the owner's calls need a session: the passphrase is asked once,
    // on the first call that needs it (docs/decisions.md §30).
    const ownerPassphrase = options.ownerPassphrase ?? (() => askOwnerPassphrase(io, options.passphraseStdin === true));
    return new LatchClient({ env: io.env, userAgent: `latch-cli/${latchVersion()}`, ownerPassphrase, ...(agent !== undefined && { agent }) });
  } catch (error) {
    if (error instanceof DaemonUrlError || error instanceof AgentNameError) throw new UsageError(error.message);
    throw error;
  }
}

/**
 * reportCallError prints a failure (as JSON on stdout with --json) and returns its exit code. When
 * the daemon's param is a field the command took from a flag, the human text names the flag
 * (`--merchant must be a domain …`), and --json prints the daemon's error object unchanged plus
 * `"flag": "--merchant"`.
 */
export function reportCallError(error: unknown, io: CliIo, commandName: string, json: boolean, flags: Readonly<Record<string, FlagKind>> = {}): number {
  if (!(error instanceof LatchClientError)) return reportError(error, io, commandName);
  const flag = error.param === undefined ? undefined : flagFor(error.param, flags);
  if (json) {
    writeLine(io.stdout, JSON.stringify({ error: { ...error.toJSON(), ...(flag !== undefined && { flag }) } }));
  } else {
    const message = flag === undefined || error.param === undefined ? error.message : messageNaming(error.message, error.param, flag);
    const where = flag !== undefined ? ` [flag: ${flag}]` : error.param === undefined ? '' : ` [param: ${error.param}]`;
    writeLine(io.stderr, `latch ${commandName}: ${error.specClass} (${error.code}): ${message}${where}`);
    // The policy's reasons with their numbers, as --json gives them (issue 44 item 4).
    if (error.reasons !== undefined && error.reasons.length > 0) writeLine(io.stderr, `Why: ${printable(error.reasons.join('; '))}.`);
    writeLine(io.stderr, `What to do: ${cliRemedy(error)}`);
    if (error.code === 'daemon_no_answer' && error.idempotencyKey !== undefined) {
      writeLine(io.stderr, `To retry safely, repeat the command with --idempotency-key ${error.idempotencyKey}`);
    }
  }
  return exitCodeForClientError(error);
}
