/**
 * A command that is the owner's alone and works on the data directory itself, not through the
 * daemon (pause, token rotate, agent add …). Like daemonCallCommand it takes --json (the result as
 * one JSON value, or {"error": {...}}) and --agent NAME (refused: docs/decisions.md §19).
 */
import { DataDirError } from '../datadir/data-dir-error.js';
import { AgentNameError } from '../datadir/agents.js';
import { UsageError, writeLine, type CliIo, type Command } from './command.js';
import { OWNER_ONLY_AGENT_OPTION, refuseAgentFlag, usageWithCommonOptions } from './common-options.js';
import { parseCommandArgs, stringFlag, type CommandArgs } from './daemon-calls/command-args.js';
import { reportCallError } from './daemon-calls/daemon-call-command.js';
import { EXIT } from './exit-codes.js';
import type { FlagKind } from './flags.js';

export interface LocalCall<T> {
  name: string;
  summary: string;
  usage: string;
  /** The command's own flags; --json and --agent are added. */
  flags: Readonly<Record<string, FlagKind>>;
  positionalsMax: number;
  /** perform does the work and returns what --json prints. */
  perform(args: CommandArgs, io: CliIo): T | Promise<T>;
  /** human renders the result for people. */
  human(result: T): string[];
  /** exitCode picks the exit code of a result; default 0. */
  exitCode?(result: T): number;
}

/** localCommand makes a Command of a LocalCall. */
export function localCommand<T>(call: LocalCall<T>): Command {
  return {
    name: call.name,
    summary: call.summary,
    usage: usageWithCommonOptions(call.usage, OWNER_ONLY_AGENT_OPTION),
    async run(args, io) {
      let json = false;
      try {
        const parsed = parseCommandArgs(args, { ...call.flags, json: 'boolean', agent: 'value' }, call.positionalsMax);
        json = parsed.flags['json'] === true;
        refuseAgentFlag(call.name, stringFlag(parsed.flags, 'agent'));
        const result = await call.perform(parsed, io);
        if (json) writeLine(io.stdout, JSON.stringify(result));
        else for (const line of call.human(result)) writeLine(io.stdout, line);
        return call.exitCode?.(result) ?? EXIT.ok;
      } catch (error) {
        return reportLocalError(error instanceof AgentNameError ? new UsageError(error.message) : error, io, call.name, json);
      }
    },
  };
}

/**
 * reportLocalError is reportCallError, plus a data-directory failure as JSON with --json:
 * `{"error": {"code", "message", "file", "fix"}}` (the code is the DataDirError's, e.g.
 * insecure_permissions), exit 3.
 */
export function reportLocalError(error: unknown, io: CliIo, commandName: string, json: boolean): number {
  if (json && error instanceof DataDirError) {
    writeLine(io.stdout, JSON.stringify({ error: { code: error.code, message: error.message, file: error.file, fix: error.fix } }));
    return EXIT.dataDir;
  }
  return reportCallError(error, io, commandName, json);
}
