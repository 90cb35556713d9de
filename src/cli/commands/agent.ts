/**
 * `latch agent add | list | rotate | remove`: the owner gives each agent its own token file, so the
 * daemon can tell agents apart and take one away without touching the others (docs/decisions.md §15.1).
 * In the same-user setup no command prints a token: they print where the token file is, and the
 * agent's configuration names the agent (`latch mcp --agent NAME`), never the secret. In the
 * separate-user setup the daemon makes the token, shown once for the agent's own account (or
 * written to the --token-file the owner names), never kept in the owner's folder (§30.3).
 */
import { LatchClient } from '../../client/latch-client.js';
import { existsSync } from 'node:fs';
import { addAgent, assertAgentName, listAgents, removeAgent, rotateAgent } from '../../datadir/agents.js';
import { createExclusive } from '../../datadir/atomic-file.js';
import { rotateIdentityKey } from '../../identity/identity-keys.js';
import { countOf } from '../../policy-text/policy-summary.js';
import { daemonLivesElsewhere, directEditNote, refuseWhereDaemonLivesElsewhere, withOwnerPresence } from '../owner-session.js';
import { latchVersion } from '../../version.js';
import { resolveHome } from '../../datadir/home.js';
import { newCliClient } from '../daemon-calls/daemon-call-command.js';
import { UsageError, type CliIo } from '../command.js';
import type { CommandArgs } from '../daemon-calls/command-args.js';
import { revokeAll, type RevokeAllResult } from '../daemon-calls/revoke-all.js';
import { localCommand } from '../local-command.js';
import { readIdentityKey } from '../../identity/identity-keys.js';
import { privateHome } from '../private-home.js';

const EXIT_CODES = 'Exit codes: 0 done; 2 bad usage or agent name; 3 unsafe or broken data directory, or no such agent; 7 --agent given; 1 anything else.';

/** agentName returns the agent NAME positional argument. */
function agentName({ positionals }: CommandArgs, command: string): string {
  const name = positionals[0];
  if (name === undefined) throw new UsageError(`latch ${command} needs an agent NAME`);
  assertAgentName(name);
  return name;
}

/** What `latch agent add` made: the token's file, or (through the API, without --token-file) the token itself, shown once. */
interface AgentAdded {
  agent: string;
  token_file: string | null;
  token?: string;
  /** Said when the file was written directly while a passphrase is set (docs/decisions.md §31.3). */
  note?: string;
  /** The key id of the agent's Web Bot Auth identity key, made with it (null when it cannot be read). */
  identity_key_id: string | null;
}

/** identityKeyIdOf is the agent's identity key id, or null when it cannot be read. */
function identityKeyIdOf(home: string, name: string): string | null {
  try {
    return readIdentityKey(home, name)?.keyId ?? null;
  } catch {
    return null;
  }
}

/** `latch agent add NAME` creates an agent's token file. */
export const agentAddCommand = localCommand<AgentAdded>({
  name: 'agent add',
  summary: "Give an agent its own token (a 0600 file; in the separate-user setup, shown once for the agent's account)",
  usage: `Usage: latch agent add NAME [--token-file PATH] [--passphrase-stdin] [--json]

Creates $LATCH_HOME/agents/NAME.token (0600) holding a new random token for the agent NAME
(1-32 characters: a-z, 0-9, _ and -; "owner" is reserved). The token is never printed: point the
agent at it with --agent NAME (or LATCH_AGENT=NAME), e.g. \`latch mcp --agent NAME\`. A running
daemon accepts the new token from its next request. The agent's Web Bot Auth identity key is
made beside it; its key id is printed (the public key: latch identity show NAME). --json prints
{"agent", "token_file", "identity_key_id"}.

In the separate-user setup (the daemon runs as its own user: root pinned it, or a daemon key is
pinned here and there is no daemon_token you can read), or with --token-file, the agent is
created through the daemon's API (POST /agents) with the owner's presence: you are asked for the
owner passphrase (or give it with --passphrase-stdin), sent only after the daemon proved its
pinned key. The token is then written to --token-file PATH (0600, never over an existing file),
or, without --token-file, printed this once and stored nowhere (--json: {"agent", "token",
"identity_key_id"}): it
is for the agent's own account (docs/separate-user.md), not for a folder every program running
as you can read.

${EXIT_CODES}`,
  flags: { 'token-file': 'value', 'passphrase-stdin': 'boolean' },
  positionalsMax: 1,
  async perform(args, io) {
    const name = agentName(args, 'agent add');
    const tokenFile = typeof args.flags['token-file'] === 'string' ? args.flags['token-file'] : undefined;
    const elsewhere = daemonLivesElsewhere(resolveHome(io.env), io.env);
    // The owner's account in the separate-user setup (or --token-file): the daemon makes the agent (docs/decisions.md §30).
    if (tokenFile === undefined && !elsewhere) {
      const home = privateHome(io.env);
      const file = addAgent(home, name);
      return { agent: name, token_file: file, identity_key_id: identityKeyIdOf(home, name), ...directEditNote(home) };
    }
    return addAgentThroughApi(io, name, tokenFile, args.flags['passphrase-stdin'] === true);
  },
  human: ({ agent, token_file, token, note, identity_key_id: identityKeyId }) => [
    ...(token !== undefined
      ? [
          `Created agent ${agent}. Its token, shown this once and stored nowhere on this account:`,
          `  ${token}`,
          `Give it to the agent's own account: as that user, save it (umask 077; mkdir -p ~/.latch/agents; cat > ~/.latch/agents/${agent}.token), then run the agent with --agent ${agent}.`,
        ]
      : [`Created agent ${agent}. Its token is in ${token_file}`, `Configure the agent with --agent ${agent} (for MCP: latch mcp --agent ${agent}); do not copy the token itself.`]),
    ...(identityKeyId === null ? [] : [`Its Web Bot Auth identity key: ${identityKeyId} (the public key: latch identity show ${agent})`]),
    // The note about a direct change comes last (presence-notes).
    ...(token === undefined && note !== undefined ? [note] : []),
  ],
});

interface AgentRow {
  name: string;
  created_at: string;
  last_used_at: string | null;
}

/**
 * ownerApiClient is the owner's client for the agent commands that go through the daemon's API:
 * never as an agent, asking the passphrase once when a session is needed.
 */
function ownerApiClient(io: CliIo, passphraseStdin: boolean): LatchClient {
  return newCliClient({ ...io, env: { ...io.env, LATCH_AGENT: '' } }, '', { passphraseStdin });
}

/**
 * addAgentThroughApi creates the agent with POST /agents (the owner with presence); the token the
 * daemon shows once goes into a new 0600 file the owner named, or back to be printed once.
 */
async function addAgentThroughApi(io: CliIo, name: string, tokenFile: string | undefined, passphraseStdin: boolean): Promise<AgentAdded> {
  if (tokenFile !== undefined && existsSync(tokenFile)) throw new UsageError(`${tokenFile} already exists; choose another --token-file`);
  const client = ownerApiClient(io, passphraseStdin);
  try {
    const created = await withOwnerPresence(client, io, { passphraseStdin }, () => client.addAgent(name));
    const identityKeyId = created.identity_key_id ?? null;
    if (tokenFile === undefined) return { agent: name, token_file: null, token: created.token, identity_key_id: identityKeyId };
    createExclusive(tokenFile, created.token);
    return { agent: name, token_file: tokenFile, identity_key_id: identityKeyId };
  } finally {
    client.close();
  }
}

/** `latch agent list` shows the agents. */
export const agentListCommand = localCommand<{ agents: AgentRow[] }>({
  name: 'agent list',
  summary: 'List the agents: name, created, last used',
  usage: `Usage: latch agent list [--passphrase-stdin] [--json]

Lists the agents that have a token file in $LATCH_HOME/agents/: name, when it was created and
when the daemon last accepted its token (to the minute). Tokens are never shown. In the
separate-user setup it asks the daemon (GET /agents, with the owner passphrase).

${EXIT_CODES}`,
  flags: { 'passphrase-stdin': 'boolean' },
  positionalsMax: 0,
  async perform(args, io) {
    // In the separate-user setup the agents are the daemon's: ask it, never this empty folder.
    if (daemonLivesElsewhere(resolveHome(io.env), io.env)) {
      const client = ownerApiClient(io, args.flags['passphrase-stdin'] === true);
      try {
        return { agents: (await withOwnerPresence(client, io, { passphraseStdin: args.flags['passphrase-stdin'] === true }, () => client.listAgents())).agents };
      } finally {
        client.close();
      }
    }
    return { agents: listAgents(privateHome(io.env)).map((a) => ({ name: a.name, created_at: a.createdAt.toISOString(), last_used_at: a.lastUsedAt?.toISOString() ?? null })) };
  },
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
export const agentRotateCommand = localCommand<{ agent: string; token_file?: string; key_id?: string; token?: string }>({
  name: 'agent rotate',
  summary: "Replace an agent's token (the old one stops working at once), or with --identity its identity key",
  usage: `Usage: latch agent rotate NAME [--identity] [--token-file PATH] [--passphrase-stdin] [--json]

Replaces the token in $LATCH_HOME/agents/NAME.token atomically. A running daemon refuses the old
token from its next request; the agent's client re-reads the file and goes on. --json prints
{"agent", "token_file"}. In the separate-user setup the daemon rotates it (POST
/agents/NAME/rotate, with the owner passphrase) and the new token is printed this once, or
written to a new --token-file PATH (0600), exactly as latch agent add does.

  --identity   replace the agent's Web Bot Auth identity key (agents/NAME.identity) instead of its
               token: its next signature uses the new key, and the old key id leaves the key
               directory at once (republish it: latch identity directory --out FILE). --json
               prints {"agent", "key_id"}.

${EXIT_CODES}`,
  flags: { identity: 'boolean', 'token-file': 'value', 'passphrase-stdin': 'boolean' },
  positionalsMax: 1,
  async perform(args, io) {
    const name = agentName(args, 'agent rotate');
    if (daemonLivesElsewhere(resolveHome(io.env), io.env)) {
      if (args.flags['identity'] === true) refuseWhereDaemonLivesElsewhere('agent rotate --identity', io.env, `The agent's identity key is the daemon's: rotate it as the service user (sudo -u SERVICE_USER env LATCH_HOME=DATA_DIR latch agent rotate ${name} --identity).`);
      return rotateAgentThroughApi(io, name, typeof args.flags['token-file'] === 'string' ? args.flags['token-file'] : undefined, args.flags['passphrase-stdin'] === true);
    }
    // The token and the identity key are revoked for different reasons: each rotates alone (docs/decisions.md §23.1).
    if (args.flags['identity'] === true) return { agent: name, key_id: rotateIdentityKey(privateHome(io.env), name).keyId };
    return { agent: name, token_file: rotateAgent(privateHome(io.env), name) };
  },
  human: ({ agent, token_file, key_id, token }) =>
    key_id !== undefined
      ? [`Replaced the identity key of agent ${agent}; its key id is now ${key_id}.`]
      : token !== undefined
        ? [`Rotated the token of agent ${agent}; the old one stops working now. The new token, shown this once and stored nowhere on this account:`, `  ${token}`]
        : [`Rotated the token of agent ${agent} in ${token_file}.`],
});

/** rotateAgentThroughApi is addAgentThroughApi for POST /agents/NAME/rotate. */
async function rotateAgentThroughApi(io: CliIo, name: string, tokenFile: string | undefined, passphraseStdin: boolean): Promise<{ agent: string; token_file?: string; token?: string }> {
  if (tokenFile !== undefined && existsSync(tokenFile)) throw new UsageError(`${tokenFile} already exists; choose another --token-file`);
  const client = ownerApiClient(io, passphraseStdin);
  try {
    const rotated = await withOwnerPresence(client, io, { passphraseStdin }, () => client.rotateAgent(name));
    if (tokenFile === undefined) return { agent: name, token: rotated.token };
    createExclusive(tokenFile, rotated.token);
    return { agent: name, token_file: tokenFile };
  } finally {
    client.close();
  }
}

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
  usage: `Usage: latch agent remove NAME [--revoke] [--passphrase-stdin] [--json]

Deletes $LATCH_HOME/agents/NAME.token: the daemon refuses the agent's next request with
invalid_bearer_token. Without --revoke, authorizations it already holds stay valid until they
are used, expire or are cancelled.

Options:
  --revoke   first cancel every active authorization the agent asked for, through the running
             daemon (as the owner), then remove the agent, then cancel any it made meanwhile.
             If the daemon cannot be reached or refuses, the agent is NOT removed (exit 8, or 7).
             It says how many it cancelled (--json: {"agent", "removed", "revoked": [...], "already_ended": [...]}).

${EXIT_CODES} With --revoke: 8 daemon unreachable, 7 a cancellation refused.`,
  flags: { revoke: 'boolean', 'passphrase-stdin': 'boolean' },
  positionalsMax: 1,
  async perform(args, io) {
    const name = agentName(args, 'agent remove');
    if (daemonLivesElsewhere(resolveHome(io.env), io.env)) {
      // The daemon removes it (DELETE /agents/NAME, ?revoke=true cancels what it holds first).
      const passphraseStdin = args.flags['passphrase-stdin'] === true;
      const client = ownerApiClient(io, passphraseStdin);
      try {
        await withOwnerPresence(client, io, { passphraseStdin }, () => client.removeAgent(name, { revoke: args.flags['revoke'] === true }));
      } finally {
        client.close();
      }
      return { agent: name, removed: true, revoked: null, already_ended: null };
    }
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
