import type { Command } from './command.js';
import { auditVerifyCommand } from './commands/audit-verify.js';
import { daemonCommand } from './commands/daemon.js';
import { tokenRotateCommand } from './commands/token-rotate.js';
import { setupCommand } from './commands/setup.js';
import { sandboxCommand } from './commands/sandbox.js';
import { startCommand } from './commands/start.js';

/** Every CLI command, in the order `latch --help` lists them. Adding a command is one file and one line here. */
export const COMMANDS: readonly Command[] = [startCommand, daemonCommand, setupCommand, sandboxCommand, tokenRotateCommand, auditVerifyCommand];
