import type { Command } from './command.js';

/**
 * One row of the command table: the words that select a command, and how to load the module that
 * runs it. The modules are imported only when their command runs (or for `latch --help`), so that
 * `latch daemon` never evaluates the sandbox, the MCP server, the quick start or the client
 * (docs/decisions.md §15.10).
 */
export interface ListedCommand {
  /** The command's name, the same as the loaded Command's. */
  readonly name: string;
  /** load imports the command's module and returns the command. */
  load(): Promise<Command>;
}

/** listed makes a row; a row whose module names its command otherwise is a programming error. */
function listed(name: string, importCommand: () => Promise<Command>): ListedCommand {
  return {
    name,
    async load() {
      const command = await importCommand();
      if (command.name !== name) throw new Error(`command-list.ts lists ${JSON.stringify(name)} but its module names ${JSON.stringify(command.name)}`);
      return command;
    },
  };
}

/** Every CLI command, in the order `latch --help` lists them. Adding a command is one file and one line here. */
export const COMMAND_LIST: readonly ListedCommand[] = [
  listed('start', async () => (await import('./commands/start.js')).startCommand),
  listed('daemon', async () => (await import('./commands/daemon.js')).daemonCommand),
  listed('setup', async () => (await import('./commands/setup.js')).setupCommand),
  listed('sandbox', async () => (await import('./commands/sandbox.js')).sandboxCommand),
  listed('sandbox setup-token', async () => (await import('./commands/sandbox-admin.js')).sandboxSetupTokenCommand),
  listed('sandbox clock', async () => (await import('./commands/sandbox-admin.js')).sandboxClockCommand),
  listed('status', async () => (await import('./commands/status.js')).statusCommand),
  listed('console', async () => (await import('./commands/console.js')).consoleCommand),
  listed('doctor', async () => (await import('./commands/doctor.js')).doctorCommand),
  listed('cards', async () => (await import('./commands/cards.js')).cardsCommand),
  listed('authorize', async () => (await import('./commands/authorize.js')).authorizeCommand),
  listed('merchant-bind', async () => (await import('./commands/merchant-bind.js')).merchantBindCommand),
  listed('recurring', async () => (await import('./commands/recurring.js')).recurringCommand),
  listed('revoke', async () => (await import('./commands/revoke.js')).revokeCommand),
  listed('approvals', async () => (await import('./commands/approvals.js')).approvalsCommand),
  listed('approve', async () => (await import('./commands/approvals.js')).approveCommand),
  listed('deny', async () => (await import('./commands/approvals.js')).denyCommand),
  listed('approvals watch', async () => (await import('./commands/approvals-watch.js')).approvalsWatchCommand),
  listed('approvals passphrase set', async () => (await import('./commands/approvals-passphrase.js')).approvalsPassphraseSetCommand),
  listed('approvals passphrase clear', async () => (await import('./commands/approvals-passphrase.js')).approvalsPassphraseClearCommand),
  listed('pause', async () => (await import('./commands/pause.js')).pauseCommand),
  listed('resume', async () => (await import('./commands/pause.js')).resumeCommand),
  listed('wallet', async () => (await import('./commands/wallet.js')).walletCommand),
  listed('allocate', async () => (await import('./commands/allocate.js')).allocateCommand),
  listed('transactions', async () => (await import('./commands/transactions.js')).transactionsCommand),
  listed('evidence', async () => (await import('./commands/evidence.js')).evidenceCommand),
  listed('evidence verify', async () => (await import('./commands/evidence.js')).evidenceVerifyCommand),
  listed('authorizations', async () => (await import('./commands/authorizations.js')).authorizationsCommand),
  listed('audit', async () => (await import('./commands/audit.js')).auditCommand),
  listed('audit verify', async () => (await import('./commands/audit-verify.js')).auditVerifyCommand),
  listed('token rotate', async () => (await import('./commands/token-rotate.js')).tokenRotateCommand),
  listed('agent add', async () => (await import('./commands/agent.js')).agentAddCommand),
  listed('agent list', async () => (await import('./commands/agent.js')).agentListCommand),
  listed('agent rotate', async () => (await import('./commands/agent.js')).agentRotateCommand),
  listed('agent remove', async () => (await import('./commands/agent.js')).agentRemoveCommand),
  listed('identity directory', async () => (await import('./commands/identity.js')).identityDirectoryCommand),
  listed('identity show', async () => (await import('./commands/identity.js')).identityShowCommand),
  listed('ap2 key', async () => (await import('./commands/ap2-key.js')).ap2KeyCommand),
  listed('ap2 mandate', async () => (await import('./commands/ap2-mandate.js')).ap2MandateCommand),
  listed('policy init', async () => (await import('./commands/policy-file.js')).policyInitCommand),
  listed('policy check-file', async () => (await import('./commands/policy-file.js')).policyCheckFileCommand),
  listed('policy apply', async () => (await import('./commands/policy-file.js')).policyApplyCommand),
  listed('policy remove', async () => (await import('./commands/policy-file.js')).policyRemoveCommand),
  listed('policy check', async () => (await import('./commands/policy-check.js')).policyCheckCommand),
  listed('policy show', async () => (await import('./commands/policy-check.js')).policyShowCommand),
  listed('mcp', async () => (await import('./commands/mcp.js')).mcpCommand),
  listed('service install', async () => (await import('./commands/service.js')).serviceInstallCommand),
  listed('service uninstall', async () => (await import('./commands/service.js')).serviceUninstallCommand),
];

/** loadCommands loads every command, in the table's order (for `latch --help` and the tests). */
export function loadCommands(): Promise<Command[]> {
  return Promise.all(COMMAND_LIST.map((row) => row.load()));
}
