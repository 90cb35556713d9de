import type { Command } from './command.js';
import { agentAddCommand, agentListCommand, agentRemoveCommand, agentRotateCommand } from './commands/agent.js';
import { allocateCommand } from './commands/allocate.js';
import { approvalsCommand, approveCommand, denyCommand } from './commands/approvals.js';
import { approvalsWatchCommand } from './commands/approvals-watch.js';
import { approvalsPassphraseClearCommand, approvalsPassphraseSetCommand } from './commands/approvals-passphrase.js';
import { auditCommand } from './commands/audit.js';
import { auditVerifyCommand } from './commands/audit-verify.js';
import { authorizeCommand } from './commands/authorize.js';
import { cardsCommand } from './commands/cards.js';
import { daemonCommand } from './commands/daemon.js';
import { doctorCommand } from './commands/doctor.js';
import { mcpCommand } from './commands/mcp.js';
import { pauseCommand, resumeCommand } from './commands/pause.js';
import { policyCheckCommand, policyShowCommand } from './commands/policy-check.js';
import { policyCheckFileCommand, policyInitCommand } from './commands/policy-file.js';
import { merchantBindCommand } from './commands/merchant-bind.js';
import { recurringCommand } from './commands/recurring.js';
import { revokeCommand } from './commands/revoke.js';
import { sandboxCommand } from './commands/sandbox.js';
import { sandboxClockCommand, sandboxSetupTokenCommand } from './commands/sandbox-admin.js';
import { serviceInstallCommand, serviceUninstallCommand } from './commands/service.js';
import { setupCommand } from './commands/setup.js';
import { startCommand } from './commands/start.js';
import { statusCommand } from './commands/status.js';
import { tokenRotateCommand } from './commands/token-rotate.js';
import { transactionsCommand } from './commands/transactions.js';
import { walletCommand } from './commands/wallet.js';

/** Every CLI command, in the order `latch --help` lists them. Adding a command is one file and one line here. */
export const COMMANDS: readonly Command[] = [
  startCommand,
  daemonCommand,
  setupCommand,
  sandboxCommand,
  sandboxSetupTokenCommand,
  sandboxClockCommand,
  statusCommand,
  doctorCommand,
  cardsCommand,
  authorizeCommand,
  merchantBindCommand,
  recurringCommand,
  revokeCommand,
  approvalsCommand,
  approveCommand,
  denyCommand,
  approvalsWatchCommand,
  approvalsPassphraseSetCommand,
  approvalsPassphraseClearCommand,
  pauseCommand,
  resumeCommand,
  walletCommand,
  allocateCommand,
  transactionsCommand,
  auditCommand,
  auditVerifyCommand,
  tokenRotateCommand,
  agentAddCommand,
  agentListCommand,
  agentRotateCommand,
  agentRemoveCommand,
  policyInitCommand,
  policyCheckFileCommand,
  policyCheckCommand,
  policyShowCommand,
  mcpCommand,
  serviceInstallCommand,
  serviceUninstallCommand,
];
