/**
 * What `latch doctor` checks after the daemon, token, enrollment, cloud and key: whether anything
 * the owner set up stops payments (docs/decisions.md §19). The policy file, the pause brake and the
 * presence setup are read from the data directory, so they are checked even when the daemon is
 * down; the approval lockout and the pending approvals are the daemon's, read over its API.
 *
 * Each check is one entry of PAYMENT_CHECKS, so a new one (the owner-presence work adds its own)
 * is one function and one row.
 */
import { statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { listAgentNames } from '../datadir/agents.js';
import { readApprovalPassphrase } from '../datadir/approval-passphrase.js';
import { DataDirError, shellQuote } from '../datadir/data-dir-error.js';
import { pausePath, readPause } from '../datadir/pause.js';
import { loadPolicyFile, policyPath } from '../daemon/policy-source.js';
import { countOf, policySummary } from '../policy-text/policy-summary.js';
import type { LatchClient } from './latch-client.js';
import type { Health } from './types.js';

/** The payment checks, in the order they run and are shown. */
export const PAYMENT_CHECK_NAMES = ['policy', 'pause', 'approvals', 'presence'] as const;
export type PaymentCheckName = (typeof PAYMENT_CHECK_NAMES)[number];

/**
 * A payment check's finding. `failed` means no payment (or no approval) can go through until it is
 * fixed, and makes doctor exit non-zero; `warning` is worth knowing but blocks nothing.
 */
export interface PaymentFinding {
  status: 'ok' | 'warning' | 'failed' | 'skipped';
  detail: string;
  /** The exact command or edit that fixes it; null when there is nothing to fix. */
  fix: string | null;
  /** For a failure: the stable code of what blocks payments, which decides doctor's exit code. */
  code?: PaymentBlockCode;
}

/** Why payments are blocked: the policy file is unsafe or invalid, signing is paused, approving is locked. */
export type PaymentBlockCode = 'policy_unsafe' | 'policy_invalid' | 'daemon_paused' | 'pause_unreadable' | 'too_many_attempts' | 'passphrase_unreadable';

/** What a payment check can look at: the data directory, and the daemon when it answered and proved itself. */
export interface PaymentCheckInput {
  home: string;
  /** The verified daemon's /health and client, or undefined when the daemon could not be used. */
  daemon?: { health: Health; client: Pick<LatchClient, 'approvals'> };
}

type PaymentCheck = (input: PaymentCheckInput) => PaymentFinding | Promise<PaymentFinding>;

const PAYMENT_CHECKS: Readonly<Record<PaymentCheckName, PaymentCheck>> = {
  policy: checkPolicy,
  pause: checkPause,
  approvals: checkApprovals,
  presence: checkPresence,
};

/** runPaymentChecks runs every payment check in order. */
export async function runPaymentChecks(input: PaymentCheckInput): Promise<Array<PaymentFinding & { name: PaymentCheckName }>> {
  const findings: Array<PaymentFinding & { name: PaymentCheckName }> = [];
  for (const name of PAYMENT_CHECK_NAMES) {
    findings.push({ name, ...(await PAYMENT_CHECKS[name](input)) });
  }
  return findings;
}

function ok(detail: string): PaymentFinding {
  return { status: 'ok', detail, fix: null };
}

/** checkPolicy reads policy.json exactly as the daemon does: unsafe or invalid, every authorization is refused. */
function checkPolicy({ home }: PaymentCheckInput): PaymentFinding {
  const file = policyPath(home);
  let loaded: ReturnType<typeof loadPolicyFile>;
  try {
    loaded = loadPolicyFile(file);
  } catch (error) {
    if (!(error instanceof DataDirError)) throw error;
    return {
      status: 'failed',
      code: 'policy_unsafe',
      detail: `${error.message.replace(/ Fix: .*$/s, '')}. The daemon refuses every authorization (503 data_directory_unavailable) until it is fixed.`,
      fix: error.fix,
    };
  }
  if ('invalid' in loaded) {
    return {
      status: 'failed',
      code: 'policy_invalid',
      detail: `${loaded.invalid.message} The daemon refuses every authorization (503 policy_invalid) until the file is fixed.`,
      fix: `edit ${shellQuote(file)} at ${loaded.invalid.field} and check it with latch policy check-file (the daemon re-reads it by itself); or move it aside and run latch policy init for the starter policy`,
    };
  }
  const policy = loaded.policy;
  if (policy.source === 'default') return ok(`no ${file}: every request is allowed (the default policy)`);
  return ok(`${file} is valid: ${policySummary(policy)}`);
}

/** checkPause reads the owner's brake: while it is pulled nothing is signed, for anyone. */
function checkPause({ home }: PaymentCheckInput): PaymentFinding {
  let pause: ReturnType<typeof readPause>;
  try {
    pause = readPause(home);
  } catch (error) {
    if (!(error instanceof DataDirError)) throw error;
    return { status: 'failed', code: 'pause_unreadable', detail: `${error.message.replace(/ Fix: .*$/s, '')}. The daemon signs nothing while it cannot read it.`, fix: error.fix };
  }
  if (pause === undefined) return ok('signing is not paused');
  const why = pause.reason === null ? 'no reason given' : `reason: ${JSON.stringify(pause.reason)}`;
  return {
    status: 'failed',
    code: 'daemon_paused',
    detail: `signing is paused since ${pause.since} (${why}) by ${pauseOwner(home)} with latch pause: every authorization, allocation and proxied payment is refused with 409 daemon_paused`,
    fix: 'latch resume',
  };
}

/**
 * pauseOwner says who pulled the brake: the user who owns the pause file, which only the owner of
 * the data directory can write.
 */
function pauseOwner(home: string): string {
  try {
    const uid = statSync(pausePath(home)).uid;
    const me = userInfo();
    return uid === me.uid ? `the owner (user ${me.username}, uid ${uid})` : `the user with uid ${uid}`;
  } catch {
    return 'the owner';
  }
}

/** checkApprovals asks the daemon whether approving is locked and what waits for the owner. */
async function checkApprovals({ daemon }: PaymentCheckInput): Promise<PaymentFinding> {
  if (daemon === undefined) return { status: 'skipped', detail: 'not checked: the daemon could not be used', fix: null };
  const locked = daemon.health.approvals_locked_seconds ?? 0;
  const { approvals, has_more } = await daemon.client.approvals({ status: 'pending_approval', limit: 100 });
  const count = `${has_more ? 'more than ' : ''}${countOf(approvals.length, 'pending approval')}`;
  const oldest = approvals.at(-1);
  const waiting = oldest === undefined || has_more ? '' : `; the oldest is ${oldest.approval_id} from ${oldest.agent}, expiring at ${oldest.expires_at}`;
  if (locked > 0) {
    return {
      status: 'failed',
      code: 'too_many_attempts',
      detail: `approving is locked for another ${locked} s after too many wrong approval passphrases (${count}${waiting}); every approval is refused with 429 too_many_attempts`,
      fix: `wait ${locked} s, then approve with the passphrase set by latch approvals passphrase set (or latch deny what you do not want)`,
    };
  }
  if (approvals.length === 0) return ok('approving is not locked; no approval is pending');
  return {
    status: 'warning',
    detail: `${count} ${approvals.length === 1 && !has_more ? 'waits' : 'wait'} for you${waiting}; each payment waits until you decide or it expires`,
    fix: 'latch approvals, then latch approve ap_… or latch deny ap_… (or latch approvals watch)',
  };
}

/**
 * checkPresence warns when agents exist and approving needs nothing but the daemon token: an
 * agent that runs as your user can read that token. The owner-presence work adds its checks here.
 */
function checkPresence({ home }: PaymentCheckInput): PaymentFinding {
  const agents = listAgentNames(home);
  if (agents.length === 0) return ok('no agents: only the daemon token can ask for payments');
  let passphraseSet: boolean;
  try {
    passphraseSet = readApprovalPassphrase(home) !== undefined;
  } catch (error) {
    if (!(error instanceof DataDirError)) throw error;
    return { status: 'failed', code: 'passphrase_unreadable', detail: `${error.message.replace(/ Fix: .*$/s, '')}. Every approval is refused while it cannot be read.`, fix: error.fix };
  }
  if (passphraseSet) return ok(`${countOf(agents.length, 'agent')}; approving needs the approval passphrase`);
  return {
    status: 'warning',
    detail: `${countOf(agents.length, 'agent')} (${agents.join(', ')}) and no approval passphrase: approving needs only the daemon token, which any program running as your user can read`,
    fix: 'latch approvals passphrase set',
  };
}
