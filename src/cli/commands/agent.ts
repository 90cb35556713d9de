/**
 * `latch agent add | list | rotate | remove`: the owner gives each agent its own token file, so the
 * daemon can tell agents apart and take one away without touching the others (docs/decisions.md §15.1).
 * No command prints a token: they print where the token file is, and the agent's configuration
 * names the agent (`latch mcp --agent NAME`), never the secret.
 */
import { LatchClient } from '../../client/latch-client.js';
import { existsSync } from 'node:fs';
import { addAgent, agentTokenPath, assertAgentName, ensureAgentsDir, listAgents, removeAgent, rotateAgent } from '../../datadir/agents.js';
import { createExclusive } from '../../datadir/atomic-file.js';
import { rotateIdentityKey } from '../../identity/identity-keys.js';
import { countOf } from '../../policy-text/policy-summary.js';
import { directEditNote, isOwnerHomeOfAnotherDaemon, withOwnerPresence } from '../owner-session.js';
import { latchVersion } from '../../version.js';
import { UsageError, type CliIo } from '../command.js';
import type { CommandArgs } from '../daemon-calls/command-args.js';
import { revokeAll, type RevokeAllResult } from '../daemon-calls/revoke-all.js';
import { localCommand } from '../local-command.js';
import { privateHome } from '../private-home.js';

const EXIT_CODES = 'Exit codes: 0 done; 2 bad usage or agent name; 3 unsafe or broken data directory, or no such agent; 7 --agent given; 1 anything else.';

/** agentName returns the agent NAME positional argument. */
function agentName({ positionals }: CommandArgs, command: string): string {
  const name = positionals[0];
  if (name === undefined) throw new UsageError(`latch ${command} needs an agent NAME`);
  assertAgentName(name);
  return name;
}

/** `latch agent add NAME` creates an agent's token file. */
export const agentAddCommand = localCommand<{ agent: string; token_file: string; note?: string }>({
  name: 'agent add',
  summary: 'Give an agent its own token (prints the token file, never the token)',
  usage: `Usage: latch agent add NAME [--token-file PATH] [--passphrase-stdin] [--json]

Creates $LATCH_HOME/agents/NAME.token (0600) holding a new random token for the agent NAME
(1-32 characters: a-z, 0-9, _ and -; "owner" is reserved). The token is never printed: point the
agent at it with --agent NAME (or LATCH_AGENT=NAME), e.g. \`latch mcp --agent NAME\`. A running
daemon accepts the new token from its next request. --json prints {"agent", "token_file"}.

When this data directory is not the daemon's (a daemon key is pinned here and there is no
daemon_token you can read: the daemon runs as its own user), or with --token-file, the agent is created through the daemon's API (POST /agents) instead, with the owner's
presence: you are asked for the owner passphrase (or give it with --passphrase-stdin), sent only
after the daemon proved its pinned key. The token is then written to --token-file PATH (default
$LATCH_HOME/agents/NAME.token, 0600, never over an existing file), which --agent NAME reads.

${EXIT_CODES}`,
  flags: { 'token-file': 'value', 'passphrase-stdin': 'boolean' },
  positionalsMax: 1,
  async perform(args, io) {
    const name = agentName(args, 'agent add');
    const home = privateHome(io.env);
    const tokenFile = typeof args.flags['token-file'] === 'string' ? args.flags['token-file'] : undefined;
    // An owner's own directory in the separate-user setup (or --token-file): the daemon makes the agent (docs/decisions.md §21.7).
    if (tokenFile === undefined && !isOwnerHomeOfAnotherDaemon(home)) return { agent: name, token_file: addAgent(home, name), ...directEditNote(home) };
    return { agent: name, token_file: await addAgentThroughApi(io, home, name, tokenFile, args.flags['passphrase-stdin'] === true) };
  },
  human: ({ agent, token_file, note }) => [
    `Created agent ${agent}. Its token is in ${token_file}`,
    `Configure the agent with --agent ${agent} (for MCP: latch mcp --agent ${agent}); do not copy the token itself.`,
    ...(note === undefined ? [] : [note]),
  ],
});

interface AgentRow {
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/**
 * addAgentThroughApi creates the agent with POST /agents (the owner with presence) and writes the
 * token the daemon shows once into a new 0600 file of the caller's own; it returns the file.
 */
async function addAgentThroughApi(io: CliIo, home: string, name: string, tokenFile: string | undefined, passphraseStdin: boolean): Promise<string> {
  const file = tokenFile ?? agentTokenPath(home, name);
  if (tokenFile === undefined) ensureAgentsDir(home);
  if (existsSync(file)) throw new UsageError(`${file} already exists; choose another --token-file`);
  const client = new LatchClient({ env: { ...io.env, LATCH_AGENT: '' }, userAgent: `latch-cli/${latchVersion()}` });
  try {
    const created = await withOwnerPresence(client, io, { passphraseStdin }, () => client.addAgent(name));
    createExclusive(file, created.token);
    return file;
  } finally {
    client.close();
  }
}

/** `latch agent list` shows the agents. */
export const agentListCommand = localCommand<{ agents: AgentRow[] }>({
  name: 'agent list',
  summary: 'List the agents: name, created, last used',
  usage: `Usage: latch agent list [--json]

Lists the agents that have a token file in $LATCH_HOME/agents/: name, when it was created and
when the daemon last accepted its token (to the minute). Tokens are never shown.

${EXIT_CODES}`,
  flags: {},
  positionalsMax: 0,
  perform: (_args, io) => ({
    agents: listAgents(privateHome(io.env)).map((a) => ({ name: a.name, created_at: a.createdAt.toISOString(), last_used_at: a.lastUsedAt?.toISOString() ?? null })),
  }),
  human({ agents }) {
    if (agents.length === 0) return ['No agents yet. Add one with: latch agent add NAME'];
    const width = Math.max(4, ...agents.map((a) => a.name.length));
    return [
      `${'NAME'.padEnd(width)}  ${'CREATED'.padEnd(20)}  LAST USED`,
      ...agents.map((agent) => `${agent.name.padEnd(width)}  ${shortTime(agent.created_at).padEnd(20)}  ${agent.last_used_at === null ? 'never' : shortTime(agent.last_used_at)}`),
    ];
  },
});

/** `latch agent rotate NAME` replaces an agent's token. */
export const agentRotateCommand = localCommand<{ agent: string; token_file?: string; key_id?: string }>({
  name: 'agent rotate',
  summary: "Replace an agent's token (the old one stops working at once), or with --identity its identity key",
  usage: `Usage: latch agent rotate NAME [--identity] [--json]

Replaces the token in $LATCH_HOME/agents/NAME.token atomically. A running daemon refuses the old
token from its next request; the agent's client re-reads the file and goes on. --json prints
{"agent", "token_file"}.

  --identity   replace the agent's Web Bot Auth identity key (agents/NAME.identity) instead of its
               token: its next signature uses the new key, and the old key id leaves the key
               directory at once (republish it: latch identity directory --out FILE). --json
               prints {"agent", "key_id"}.

${EXIT_CODES}`,
  flags: { identity: 'boolean' },
  positionalsMax: 1,
  perform(args, io) {
    const name = agentName(args, 'agent rotate');
    // The token and the identity key are revoked for different reasons: each rotates alone (docs/decisions.md §23.1).
    if (args.flags['identity'] === true) return { agent: name, key_id: rotateIdentityKey(privateHome(io.env), name).keyId };
    return { agent: name, token_file: rotateAgent(privateHome(io.env), name) };
  },
  human: ({ agent, token_file, key_id }) =>
    key_id !== undefined ? [`Replaced the identity key of agent ${agent}; its key id is now ${key_id}.`] : [`Rotated the token of agent ${agent} in ${token_file}.`],
});

interface AgentRemoval {
  agent: string;
  removed: true;
  /** With --revoke: the authorizations cancelled, and those that had ended meanwhile; null without it. */
  revoked: string[] | null;
  already_ended: string[] | null;
}

/** `latch agent remove NAME [--revoke]` takes an agent's token away. */
export const agentRemoveCommand = localCommand<AgentRemoval>({
  name: 'agent remove',
  summary: "Remove an agent's token (its next request is refused)",
  usage: `Usage: latch agent remove NAME [--revoke] [--json]

Deletes $LATCH_HOME/agents/NAME.token: the daemon refuses the agent's next request with
invalid_bearer_token. Without --revoke, authorizations it already holds stay valid until they
are used, expire or are cancelled.

Options:
  --revoke   first cancel every active authorization the agent asked for, through the running
             daemon (as the owner), then remove the agent, then cancel any it made meanwhile.
             If the daemon cannot be reached or refuses, the agent is NOT removed (exit 8, or 7).
             It says how many it cancelled (--json: {"agent", "removed", "revoked": [...], "already_ended": [...]}).

${EXIT_CODES} With --revoke: 8 daemon unreachable, 7 a cancellation refused.`,
  flags: { revoke: 'boolean' },
  positionalsMax: 1,
  async perform(args, io) {
    const name = agentName(args, 'agent remove');
    if (args.flags['revoke'] !== true) {
      removeAgent(privateHome(io.env), name);
      return { agent: name, removed: true, revoked: null, already_ended: null };
    }
    const first = await revokeAgentAuthorizations(io, name);
    removeAgent(privateHome(io.env), name);
    // An authorization the agent made while the first pass ran is cancelled now that it cannot make more.
    const second = await revokeAgentAuthorizations(io, name);
    return { agent: name, removed: true, revoked: [...first.revoked, ...second.revoked], already_ended: [...first.alreadyEnded, ...second.alreadyEnded] };
  },
  human({ agent, revoked, already_ended }) {
    if (revoked === null) return [`Removed agent ${agent}.`];
    const ended = already_ended === null || already_ended.length === 0 ? '' : ` (${countOf(already_ended.length, 'other')} had already ended)`;
    return [...revoked.map((policyId) => `Cancelled ${policyId}.`), `Removed agent ${agent} and revoked ${countOf(revoked.length, 'active authorization')} it held${ended}.`];
  },
});

/**
 * revokeAgentAuthorizations cancels, as the owner through the running daemon, every active
 * authorization the agent asked for. One already used or expired meanwhile is not an error.
 */
async function revokeAgentAuthorizations(io: CliIo, name: string): Promise<RevokeAllResult> {
  const client = new LatchClient({ env: { ...io.env, LATCH_AGENT: '' }, userAgent: `latch-cli/${latchVersion()}` });
  try {
    return await revokeAll(client, { agent: name, reason: `agent ${name} removed` });
  } finally {
    client.close();
  }
}

/** shortTime is a UTC time to the minute, for tables. */
function shortTime(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')}Z`;
}
