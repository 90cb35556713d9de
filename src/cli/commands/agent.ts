/**
 * `latch agent add | list | rotate | remove`: the owner gives each agent its own token file, so the
 * daemon can tell agents apart and take one away without touching the others (docs/decisions.md §15.1).
 * No command prints a token: they print where the token file is, and the agent's configuration
 * names the agent (`latch mcp --agent NAME`), never the secret.
 */
import { LatchClient } from '../../client/latch-client.js';
import { addAgent, AgentNameError, assertAgentName, listAgents, removeAgent, rotateAgent } from '../../datadir/agents.js';
import { rotateIdentityKey } from '../../identity/identity-keys.js';
import { latchVersion } from '../../version.js';
import { reportCallError } from '../daemon-calls/daemon-call-command.js';
import { UsageError, writeLine, type CliIo, type Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { parseFlags } from '../flags.js';
import { reportError } from '../report-error.js';
import { revokeAll } from '../daemon-calls/revoke-all.js';
import { privateHome } from '../private-home.js';

const EXIT_CODES = 'Exit codes: 0 done; 2 bad usage or agent name; 3 unsafe or broken data directory, or no such agent; 1 anything else.';

/** nameAndFlags splits `NAME [--flags]`: the agent's name comes first. */
function nameAndFlags(args: string[], command: string): { name: string; rest: string[] } {
  const [name, ...rest] = args;
  if (name === undefined || name.startsWith('--')) throw new UsageError(`latch ${command} needs an agent NAME`);
  return { name, rest };
}

function runAgentCommand(commandName: string, io: CliIo, body: () => Promise<number> | number): Promise<number> {
  return Promise.resolve()
    .then(body)
    .catch((error: unknown) => reportError(error instanceof AgentNameError ? new UsageError(error.message) : error, io, commandName));
}

/** `latch agent add NAME` creates an agent's token file. */
export const agentAddCommand: Command = {
  name: 'agent add',
  summary: 'Give an agent its own token (prints the token file, never the token)',
  usage: `Usage: latch agent add NAME

Creates $LATCH_HOME/agents/NAME.token (0600) holding a new random token for the agent NAME
(1-32 characters: a-z, 0-9, _ and -; "owner" is reserved). The token is never printed: point the
agent at it with --agent NAME (or LATCH_AGENT=NAME), e.g. \`latch mcp --agent NAME\`. A running
daemon accepts the new token from its next request.

${EXIT_CODES}`,
  run: (args, io) =>
    runAgentCommand('agent add', io, () => {
      const { name, rest } = nameAndFlags(args, 'agent add');
      parseFlags(rest, {});
      const file = addAgent(privateHome(io.env), name);
      writeLine(io.stdout, `Created agent ${name}. Its token is in ${file}`);
      writeLine(io.stdout, `Configure the agent with --agent ${name} (for MCP: latch mcp --agent ${name}); do not copy the token itself.`);
      return EXIT.ok;
    }),
};

/** `latch agent list` shows the agents. */
export const agentListCommand: Command = {
  name: 'agent list',
  summary: 'List the agents: name, created, last used',
  usage: `Usage: latch agent list [--json]

Lists the agents that have a token file in $LATCH_HOME/agents/: name, when it was created and
when the daemon last accepted its token (to the minute). Tokens are never shown.

${EXIT_CODES}`,
  run: (args, io) =>
    runAgentCommand('agent list', io, () => {
      const flags = parseFlags(args, { json: 'boolean' });
      const agents = listAgents(privateHome(io.env));
      if (flags['json'] === true) {
        const rows = agents.map((a) => ({ name: a.name, created_at: a.createdAt.toISOString(), last_used_at: a.lastUsedAt?.toISOString() ?? null }));
        writeLine(io.stdout, JSON.stringify({ agents: rows }, null, 2));
        return EXIT.ok;
      }
      if (agents.length === 0) {
        writeLine(io.stdout, 'No agents yet. Add one with: latch agent add NAME');
        return EXIT.ok;
      }
      const width = Math.max(4, ...agents.map((a) => a.name.length));
      writeLine(io.stdout, `${'NAME'.padEnd(width)}  ${'CREATED'.padEnd(20)}  LAST USED`);
      for (const agent of agents) {
        const used = agent.lastUsedAt === null ? 'never' : shortTime(agent.lastUsedAt);
        writeLine(io.stdout, `${agent.name.padEnd(width)}  ${shortTime(agent.createdAt).padEnd(20)}  ${used}`);
      }
      return EXIT.ok;
    }),
};

/** `latch agent rotate NAME` replaces an agent's token. */
export const agentRotateCommand: Command = {
  name: 'agent rotate',
  summary: "Replace an agent's token (the old one stops working at once)",
  usage: `Usage: latch agent rotate NAME [--identity]

Replaces the token in $LATCH_HOME/agents/NAME.token atomically. A running daemon refuses the old
token from its next request; the agent's client re-reads the file and goes on.

  --identity   replace the agent's Web Bot Auth identity key (agents/NAME.identity) instead of its
               token: its next signature uses the new key, and the old key id leaves the key
               directory at once (republish it: latch identity directory --out FILE).

${EXIT_CODES}`,
  run: (args, io) =>
    runAgentCommand('agent rotate', io, () => {
      const { name, rest } = nameAndFlags(args, 'agent rotate');
      const identity = parseFlags(rest, { identity: 'boolean' })['identity'] === true;
      if (identity) {
        assertAgentName(name);
        const key = rotateIdentityKey(privateHome(io.env), name);
        writeLine(io.stdout, `Replaced the identity key of agent ${name}; its key id is now ${key.keyId}.`);
        return EXIT.ok;
      }
      const file = rotateAgent(privateHome(io.env), name);
      writeLine(io.stdout, `Rotated the token of agent ${name} in ${file}.`);
      return EXIT.ok;
    }),
};

/** `latch agent remove NAME [--revoke]` takes an agent's token away. */
export const agentRemoveCommand: Command = {
  name: 'agent remove',
  summary: "Remove an agent's token (its next request is refused)",
  usage: `Usage: latch agent remove NAME [--revoke]

Deletes $LATCH_HOME/agents/NAME.token: the daemon refuses the agent's next request with
invalid_bearer_token. Without --revoke, authorizations it already holds stay valid until they
are used, expire or are cancelled.

  --revoke   first cancel every active authorization the agent asked for, through the running
             daemon (as the owner), then remove the agent, then cancel any it made meanwhile.
             If the daemon cannot be reached or refuses, the agent is NOT removed (exit 8, or 7).

${EXIT_CODES} With --revoke: 8 daemon unreachable, 7 a cancellation refused.`,
  run: async (args, io) => {
    let name: string;
    let revoke: boolean;
    try {
      const split = nameAndFlags(args, 'agent remove');
      name = split.name;
      revoke = parseFlags(split.rest, { revoke: 'boolean' })['revoke'] === true;
      assertAgentName(name);
    } catch (error) {
      return reportError(error instanceof AgentNameError ? new UsageError(error.message) : error, io, 'agent remove');
    }
    if (revoke) {
      const code = await revokeAgentAuthorizations(io, name);
      if (code !== EXIT.ok) return code;
    }
    return runAgentCommand('agent remove', io, async () => {
      removeAgent(privateHome(io.env), name);
      writeLine(io.stdout, `Removed agent ${name}.`);
      // An authorization the agent made while the first pass ran is cancelled now that it cannot make more.
      if (revoke) return revokeAgentAuthorizations(io, name);
      return EXIT.ok;
    });
  },
};

/**
 * revokeAgentAuthorizations cancels, as the owner through the running daemon, every active
 * authorization the agent asked for. One already used or expired meanwhile is not an error.
 */
async function revokeAgentAuthorizations(io: CliIo, name: string): Promise<number> {
  let client: LatchClient | undefined;
  try {
    client = new LatchClient({ env: { ...io.env, LATCH_AGENT: '' }, userAgent: `latch-cli/${latchVersion()}` });
    const done = await revokeAll(client, { agent: name, reason: `agent ${name} removed` });
    for (const policyId of done.revoked) writeLine(io.stdout, `Cancelled ${policyId}.`);
    return EXIT.ok;
  } catch (error) {
    return reportCallError(error, io, 'agent remove', false);
  } finally {
    client?.close();
  }
}

/** shortTime is a UTC time to the minute, for tables. */
function shortTime(when: Date): string {
  return `${when.toISOString().slice(0, 16).replace('T', ' ')}Z`;
}
