/**
 * Where `latch mcp` sends the person for an approval, and how long it waits for the owner: read
 * from config.json in the caller's LATCH_HOME (console_port, mcp_approval_wait_seconds), with the
 * daemon's defaults when it says nothing (docs/decisions.md §37).
 */
import { loadConfig, MCP_APPROVAL_WAIT_SECONDS_DEFAULT, type LatchConfig } from '../datadir/config.js';
import { resolveHome } from '../datadir/home.js';
import { consoleOrigin } from '../console/console-headers.js';
import { DEFAULT_PORT_CONSOLE } from '../daemon/daemon-listeners.js';
import type { Logger } from '../log/logger.js';
import type { OwnerApprovalOptions } from './owner-approvals.js';

/**
 * approvalPageUrl is the console's page for one approval: the console's own origin (localhost, the
 * passkeys' RP ID) and the approval id, nothing else; it carries no secret.
 */
export function approvalPageUrl(consolePort: number, approvalId: string): string {
  return `${consoleOrigin(consolePort)}/approvals/${encodeURIComponent(approvalId)}`;
}

/** ownerApprovalSettings reads the settings; an unreadable config.json leaves the defaults (the tools report it when they run). */
export function ownerApprovalSettings(env: NodeJS.ProcessEnv, log: Logger): Omit<OwnerApprovalOptions, 'log'> {
  let config: LatchConfig = {};
  try {
    config = loadConfig(resolveHome(env));
  } catch (error) {
    log.warn('mcp_config_unreadable', { code: (error as { code?: string }).code ?? 'ERROR' });
  }
  const port = config.console_port ?? DEFAULT_PORT_CONSOLE;
  return { approvalUrl: (approvalId) => approvalPageUrl(port, approvalId), waitSeconds: config.mcp_approval_wait_seconds ?? MCP_APPROVAL_WAIT_SECONDS_DEFAULT };
}
