/**
 * The owner's notifier (docs/decisions.md §15.4): config.json's `approval_notify` argv is run on each
 * new approval, without a shell, detached, with its output ignored and a deadline, and with only
 * PATH, HOME, LATCH_APPROVAL_ID and LATCH_APPROVAL_SUMMARY in its environment — never the
 * daemon's own (which may name files holding secrets). A failure is logged; it never blocks or
 * fails the request.
 */
import type { Approval } from '../core/approval.js';
import { principalName } from '../core/principal.js';
import { formatMinor } from '../money/amount.js';
import type { DaemonServices } from './services.js';

/** The notifier is killed after this long: it must not pile up. */
export const APPROVAL_NOTIFY_TIMEOUT_MS = 10_000;

/** approvalSummary is the one-line, secret-free description the notifier gets. */
export function approvalSummary(approval: Approval): string {
  const { request } = approval;
  return `${principalName(approval.principal)} asks ${formatMinor(request.amountMinor)} ${request.currency} at ${request.merchant} on card ${request.cardId} (${request.kind}, rule ${approval.rule})`;
}

/** notifyApproval runs the configured notifier, if any, for a new approval. */
export function notifyApproval(services: Pick<DaemonServices, 'config' | 'logger'>, approval: Approval): void {
  let argv: string[] | undefined;
  try {
    argv = services.config().approval_notify;
  } catch (error) {
    services.logger.warn('approval_notify_failed', { approval_id: approval.id, reason: (error as Error).name });
    return;
  }
  if (argv === undefined || argv.length === 0) return;
  const [program, ...args] = argv as [string, ...string[]];
  const env: NodeJS.ProcessEnv = { LATCH_APPROVAL_ID: approval.id, LATCH_APPROVAL_SUMMARY: approvalSummary(approval) };
  if (process.env['PATH'] !== undefined) env['PATH'] = process.env['PATH'];
  if (process.env['HOME'] !== undefined) env['HOME'] = process.env['HOME'];
  // node:child_process is loaded on the first notification, not at the daemon's start, which most
  // daemons never need it for (docs/decisions.md §15.10).
  import('node:child_process').then(
    ({ spawn }) => runNotifier(spawn, services, approval, program, args, env),
    (error: unknown) => services.logger.warn('approval_notify_failed', { approval_id: approval.id, reason: (error as Error).name }),
  );
}

function runNotifier(
  spawn: typeof import('node:child_process').spawn,
  services: Pick<DaemonServices, 'logger'>,
  approval: Approval,
  program: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): void {
  try {
    const child = spawn(program, args, { env, shell: false, detached: true, stdio: 'ignore', timeout: APPROVAL_NOTIFY_TIMEOUT_MS, killSignal: 'SIGKILL' });
    child.on('error', (error) => services.logger.warn('approval_notify_failed', { approval_id: approval.id, reason: (error as NodeJS.ErrnoException).code ?? error.name }));
    child.on('exit', (code, signal) => {
      if (code !== 0) services.logger.warn('approval_notify_failed', { approval_id: approval.id, exit_code: code, signal });
    });
    child.unref();
  } catch (error) {
    services.logger.warn('approval_notify_failed', { approval_id: approval.id, reason: (error as Error).name });
  }
}
