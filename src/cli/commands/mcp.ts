import { DaemonUrlError, resolveDaemonUrl } from '../../client/base-url.js';
import { LatchClient } from '../../client/latch-client.js';
import { createLogger } from '../../log/logger.js';
import { McpSession } from '../../mcp/mcp-session.js';
import { ownerApprovalSettings } from '../../mcp/owner-approval-settings.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../../mcp/protocol-version.js';
import { serveStdio } from '../../mcp/stdio-server.js';
import { TOOLS } from '../../mcp/tools.js';
import { latchVersion } from '../../version.js';
import { UsageError, type Command } from '../command.js';
import { parseCommandArgs, stringFlag } from '../daemon-calls/command-args.js';
import { AgentNameError, validAgentName } from '../../datadir/agents.js';
import { EXIT } from '../exit-codes.js';
import { AGENT_OPTION, usageWithCommonOptions } from '../common-options.js';
import { reportError } from '../report-error.js';

const USAGE = `Usage: latch mcp [--agent NAME]

Runs an MCP server (Model Context Protocol) on stdin/stdout for an agent's MCP client: JSON-RPC
2.0, one message per line. It talks to the running daemon through the same client as the CLI
(LATCH_URL, default http://127.0.0.1:7723, and the token in $LATCH_HOME/daemon_token), so start
the daemon first. stdout carries protocol messages only; logs are JSON lines on stderr.

Protocol versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')} (the client's choice when supported).
Tools: ${TOOLS.map((tool) => tool.name).join(', ')}.

With --agent NAME (or LATCH_AGENT=NAME) it presents that agent's own token,
$LATCH_HOME/agents/NAME.token (create it with latch agent add NAME), never the daemon token:
the daemon then refuses the owner-only surfaces, audits the agent by name and lets you take its
access away alone (latch agent remove NAME --revoke).

A client configuration for an agent, e.g.:
  {"mcpServers": {"latch": {"command": "latch", "args": ["mcp", "--agent", "shopper"]}}}

Exit codes: 0 when stdin ends; 2 bad usage (including an unusable LATCH_URL).`;

/** `latch mcp` serves the MCP tools over stdio until stdin ends. */
export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'Serve the Latch tools to an agent over MCP (stdio)',
  usage: usageWithCommonOptions(USAGE, AGENT_OPTION, '  --json         accepted: stdout carries only JSON-RPC messages anyway'),
  async run(args, io) {
    let client: LatchClient | undefined;
    try {
      // --json is accepted like everywhere and changes nothing: stdout carries JSON-RPC only.
      const { flags } = parseCommandArgs(args, { agent: 'value', json: 'boolean' }, 0);
      const agent = stringFlag(flags, 'agent');
      // Checked now, like LATCH_URL below, so a bad name stops the server at start.
      const chosen = agent ?? io.env['LATCH_AGENT'] ?? '';
      if (chosen !== '' && !validAgentName(chosen)) throw new UsageError(new AgentNameError(chosen).message);
      try {
        // Checked now, so a bad LATCH_URL stops the server at start rather than failing every tool call.
        resolveDaemonUrl(undefined, io.env);
      } catch (error) {
        if (error instanceof DaemonUrlError) throw new UsageError(error.message);
        throw error;
      }
      const log = createLogger({ stream: io.stderr });
      const session = new McpSession({
        serverVersion: latchVersion(),
        log,
        caller: chosen === '' ? 'owner' : 'agent',
        ownerApprovals: ownerApprovalSettings(io.env, log),
        makeClient: (userAgent) => (client = new LatchClient({ env: io.env, userAgent, ...(agent !== undefined && { agent }) })),
      });
      log.info('mcp_started', { pid: process.pid });
      await serveStdio({ input: process.stdin, output: io.stdout, session, log });
      log.info('mcp_stopped', {});
      return EXIT.ok;
    } catch (error) {
      return reportError(error, io, 'mcp');
    } finally {
      client?.close();
    }
  },
};
