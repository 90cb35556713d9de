/**
 * The owner's notifier (docs/decisions.md §15.4): config.json's `approval_notify` argv is run on each
 * new approval, without a shell, detached, with its output ignored and a deadline, and with only
 * PATH, HOME, LATCH_APPROVAL_ID and LATCH_APPROVAL_SUMMARY in its environment — never the
 * daemon's own (which may name files holding secrets). A failure is logged; it never blocks or
 * fails the request.
 *
 * At most one notifier runs at a time (docs/decisions.md §17.6): approvals that arrive while it runs
 * are coalesced into one more run when it ends, for the newest of them, with a summary that says
 * how many arrived. A flood of asks therefore costs one process at a time, never one per ask.
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

/**
 * approvalNotifier returns the daemon's notify function: it runs the configured notifier for a new
 * approval, or, while one runs, keeps the newest approval (and a count) for one run after it.
 */
export function approvalNotifier(services: Pick<DaemonServices, 'config' | 'logger'>): (approval: Approval) => void {
  let running = false;
  let waiting: { approval: Approval; count: number } | undefined;
  const run = (approval: Approval, count: number): void => {
    running = true;
    notifyApproval(services, approval, count, () => {
      running = false;
      const next = waiting;
      waiting = undefined;
      if (next !== undefined) run(next.approval, next.count);
    });
  };
  return (approval) => {
    if (!running) return run(approval, 1);
    waiting = { approval, count: (waiting?.count ?? 0) + 1 };
  };
}

/** notifyApproval runs the configured notifier, if any, for count new approvals (the newest given), then calls done. */
function notifyApproval(services: Pick<DaemonServices, 'config' | 'logger'>, approval: Approval, count: number, done: () => void): void {
  let argv: string[] | undefined;
  try {
    argv = services.config().approval_notify;
  } catch (error) {
    services.logger.warn('approval_notify_failed', { approval_id: approval.id, reason: (error as Error).name });
    return done();
  }
  if (argv === undefined || argv.length === 0) return done();
  const [program, ...args] = argv as [string, ...string[]];
  const summary = count > 1 ? `${count} new approvals; the newest: ${approvalSummary(approval)}` : approvalSummary(approval);
  const env: NodeJS.ProcessEnv = { LATCH_APPROVAL_ID: approval.id, LATCH_APPROVAL_SUMMARY: summary };
  if (process.env['PATH'] !== undefined) env['PATH'] = process.env['PATH'];
  if (process.env['HOME'] !== undefined) env['HOME'] = process.env['HOME'];
  // node:child_process is loaded on the first notification, not at the daemon's start, which most
  // daemons never need it for (docs/decisions.md §15.10).
  import('node:child_process').then(
    ({ spawn }) => runNotifier(spawn, services, approval, program, args, env, done),
    (error: unknown) => {
      services.logger.warn('approval_notify_failed', { approval_id: approval.id, reason: (error as Error).name });
      done();
    },
  );
}

function runNotifier(
  spawn: typeof import('node:child_process').spawn,
  services: Pick<DaemonServices, 'logger'>,
  approval: Approval,
  program: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  done: () => void,
): void {
  let finished = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    done();
  };
  try {
    const child = spawn(program, args, { env, shell: false, detached: true, stdio: 'ignore', timeout: APPROVAL_NOTIFY_TIMEOUT_MS, killSignal: 'SIGKILL' });
    child.on('error', (error) => {
      services.logger.warn('approval_notify_failed', { approval_id: approval.id, reason: (error as NodeJS.ErrnoException).code ?? error.name });
      finish();
    });
    child.on('exit', (code, signal) => {
      if (code !== 0) services.logger.warn('approval_notify_failed', { approval_id: approval.id, exit_code: code, signal });
      finish();
    });
    child.unref();
  } catch (error) {
    services.logger.warn('approval_notify_failed', { approval_id: approval.id, reason: (error as Error).name });
    finish();
  }
}
