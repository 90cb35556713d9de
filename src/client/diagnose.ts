import { cloudDownNote } from './cloud-probe.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import { readToken } from '../datadir/token.js';
import { ERROR_TABLE } from '../errors/error-table.js';
import { CLIENT_ERROR_TABLE, LatchClientError } from './client-errors.js';
import type { LatchClient } from './latch-client.js';
import { PAYMENT_CHECK_NAMES, runPaymentChecks, type PaymentBlockCode, type PaymentCheckInput } from './payment-checks.js';
import type { Health } from './types.js';

/** The connection checks, in the order they run; each needs the ones before it. */
export const CONNECTION_CHECKS = ['daemon', 'token', 'enrollment', 'cloud', 'device_key'] as const;
/** Every check of a diagnosis: the connection, then what the owner set up that can stop payments (payment-checks.ts). */
export const DIAGNOSIS_CHECKS = [...CONNECTION_CHECKS, ...PAYMENT_CHECK_NAMES] as const;
export type DiagnosisCheckName = (typeof DIAGNOSIS_CHECKS)[number];

export interface DiagnosisCheck {
  name: DiagnosisCheckName;
  /** `failed` blocks payments (or the connection); `warning` blocks nothing but needs the owner. */
  status: 'ok' | 'warning' | 'failed' | 'skipped';
  detail: string;
  /** What fixes a failure or a warning; null when nothing needs fixing. */
  fix: string | null;
}

/** The first problem found: the error class, the code, what was seen and what to do. */
export interface DiagnosisProblem {
  check: DiagnosisCheckName;
  spec_class: string;
  code: string;
  message: string;
  remedy: string;
}

/** The part of LatchClient a diagnosis uses (tests pass a fake). */
export type DiagnosableClient = Pick<LatchClient, 'health' | 'verifyDaemon' | 'cards' | 'approvals' | 'baseUrl' | 'home'>;

export interface Diagnosis {
  ok: boolean;
  url: string;
  home: string;
  checks: DiagnosisCheck[];
  problem: DiagnosisProblem | null;
}

const DAEMON_DOWN_CODES: ReadonlySet<string> = new Set(['daemon_unreachable', 'daemon_no_answer']);

const DAEMON_DOWN_REMEDY =
  'Start the daemon: latch daemon (or latch start for the sandbox quick start), or point LATCH_URL at the daemon that runs. No payment was attempted or failed.';

/**
 * diagnose runs the connection checks, then the payment checks (payment-checks.ts); the problem
 * is the first failure, a connection one before a payment one. It reads, and never changes, anything.
 */
export async function diagnose(client: DiagnosableClient): Promise<Diagnosis> {
  const connection = await diagnoseConnection(client);
  const daemon = connection.usable === undefined ? undefined : { health: connection.usable, client };
  const payment = await paymentChecks({ home: client.home, daemon });
  const checks = [...connection.diagnosis.checks, ...payment.map(({ name, status, detail, fix }): DiagnosisCheck => ({ name, status, detail, fix }))];
  const blocking = payment.find((check) => check.status === 'failed');
  const problem = connection.diagnosis.problem ?? (blocking === undefined ? null : paymentProblem(blocking.name, blocking.code, blocking.detail, blocking.fix));
  return { ...connection.diagnosis, ok: problem === null, checks, problem };
}

/** paymentChecks runs the payment checks; a daemon that fails the approvals read midway leaves that check skipped, with the reason. */
async function paymentChecks(input: PaymentCheckInput) {
  try {
    return await runPaymentChecks(input);
  } catch (error) {
    if (!(error instanceof LatchClientError) || input.daemon === undefined) throw error;
    const findings = await runPaymentChecks({ home: input.home });
    return findings.map((finding) => (finding.name === 'approvals' ? { ...finding, detail: `not checked: GET /approvals failed: ${error.message}` } : finding));
  }
}

/** The spec class each payment block is reported under; the code is the one the daemon answers with. */
const PAYMENT_BLOCK_CLASS: Readonly<Record<PaymentBlockCode, string>> = {
  policy_unsafe: ERROR_TABLE.data_directory_unavailable.specClass,
  pause_unreadable: ERROR_TABLE.data_directory_unavailable.specClass,
  passphrase_unreadable: ERROR_TABLE.data_directory_unavailable.specClass,
  policy_invalid: ERROR_TABLE.policy_invalid.specClass,
  daemon_paused: ERROR_TABLE.daemon_paused.specClass,
  too_many_attempts: ERROR_TABLE.too_many_attempts.specClass,
};

function paymentProblem(check: DiagnosisCheckName, code: PaymentBlockCode | undefined, detail: string, fix: string | null): DiagnosisProblem {
  const known = code ?? 'policy_unsafe';
  return { check, spec_class: PAYMENT_BLOCK_CLASS[known], code: known, message: detail, remedy: fix ?? 'see latch doctor --help' };
}

/**
 * diagnoseConnection applies these rules in order (docs/decisions.md §7 rules 1–2, docs/decisions.md §10): first GET
 * /health, whose failure means the local daemon is unavailable and nothing about payments; then
 * the token file; then whether a device key is enrolled; then one server-backed call (GET
 * /cards), whose failure while health is fine lies in the cloud (Upstream API unavailable) or in
 * the cloud's view of this device (Local key not recognized). It stops at the first problem and
 * names its class and remedy. With it comes the daemon's /health when the daemon and the token
 * passed, for the payment checks that ask the daemon.
 */
async function diagnoseConnection(client: DiagnosableClient): Promise<{ diagnosis: Diagnosis; usable?: Health }> {
  let usable: Health | undefined;
  const diagnosis = await connectionChecks(client, (health) => {
    usable = health;
  });
  return usable === undefined ? { diagnosis } : { diagnosis, usable };
}

async function connectionChecks(client: DiagnosableClient, tokenUsable: (health: Health) => void): Promise<Diagnosis> {
  const checks: DiagnosisCheck[] = [];
  const finish = (problem: DiagnosisProblem | null): Diagnosis => {
    for (const name of CONNECTION_CHECKS) {
      if (!checks.some((check) => check.name === name)) checks.push({ name, status: 'skipped', detail: 'not checked: an earlier check failed', fix: null });
    }
    return { ok: problem === null, url: client.baseUrl, home: client.home, checks, problem };
  };
  const fail = (name: DiagnosisCheckName, problem: Omit<DiagnosisProblem, 'check'>): Diagnosis => {
    checks.push({ name, status: 'failed', detail: problem.message, fix: problem.remedy });
    return finish({ check: name, ...problem });
  };

  let health: Health;
  try {
    health = await client.health();
  } catch (error) {
    const known = error instanceof LatchClientError ? error : undefined;
    // Something answered, but not as the daemon does: ask it for the daemon proof, so that a
    // squatter on the daemon's address is named as such rather than as a refusal.
    const unverified = known !== undefined && !DAEMON_DOWN_CODES.has(known.code) ? await unverifiedPeer(client) : undefined;
    if (unverified !== undefined) return fail('daemon', unverified);
    return fail('daemon', {
      spec_class: CLIENT_ERROR_TABLE.daemon_unreachable.specClass,
      code: known?.code ?? 'daemon_unreachable',
      message: `GET /health failed: ${known?.message ?? 'unexpected error'} This is local daemon availability, not a payment authorization failure.`,
      remedy: known === undefined || DAEMON_DOWN_CODES.has(known.code) ? DAEMON_DOWN_REMEDY : known.remedy,
    });
  }
  const unverified = await unverifiedPeer(client);
  if (unverified !== undefined) return fail('daemon', unverified);
  checks.push({ name: 'daemon', status: 'ok', detail: `Latch ${health.version} answers GET /health at ${client.baseUrl} (up ${health.uptime_seconds} s)`, fix: null });

  try {
    readToken(client.home);
  } catch (error) {
    const dataDir = error instanceof DataDirError ? error : undefined;
    return fail('token', {
      spec_class: CLIENT_ERROR_TABLE.token_unreadable.specClass,
      code: 'token_unreadable',
      message: dataDir?.message ?? `The daemon token file in ${client.home} cannot be read.`,
      remedy: dataDir?.fix ?? CLIENT_ERROR_TABLE.token_unreadable.remedy,
    });
  }
  checks.push({ name: 'token', status: 'ok', detail: `${client.home}/daemon_token is private and well-formed`, fix: null });
  tokenUsable(health);

  if (health.signing_key === null) return fail('enrollment', notEnrolled('GET /health reports no signing key: this device is not enrolled with a cloud.'));
  checks.push({ name: 'enrollment', status: 'ok', detail: `signing key ${health.signing_key.key_id} (${health.signing_key.algorithm}) is loaded`, fix: null });

  try {
    const { cards } = await client.cards();
    // The daemon learned the cloud's clock from that answer; /health reports it without a cloud call.
    const skew = (await client.health().catch(() => health)).cloud_clock_skew_seconds;
    checks.push({ name: 'cloud', status: 'ok', detail: `the cloud answered a signed request (GET /cards through the daemon)${clockDetail(skew)}`, fix: null });
    checks.push({ name: 'device_key', status: 'ok', detail: `the cloud recognizes this device key (${cards.length} ${cards.length === 1 ? 'card' : 'cards'} visible)`, fix: null });
    return finish(null);
  } catch (error) {
    if (!(error instanceof LatchClientError)) throw error;
    const found = serverBackedFailure(error, checks, fail);
    // The cloud, named: its URL, and whether anything listens there (issue 44 item 4).
    if (error.code !== 'upstream_unavailable' || found.problem === null) return found;
    const note = await cloudDownNote(client.home, process.env);
    return { ...found, problem: { ...found.problem, message: `${found.problem.message}${note.message}`, ...(note.remedy !== undefined && { remedy: note.remedy }) } };
  }
}

/** serverBackedFailure classifies a failed GET /cards after /health succeeded (docs/decisions.md §7 rule 2). */
function serverBackedFailure(
  error: LatchClientError,
  checks: DiagnosisCheck[],
  fail: (name: DiagnosisCheckName, problem: Omit<DiagnosisProblem, 'check'>) => Diagnosis,
): Diagnosis {
  const seen = { code: error.code, spec_class: error.specClass, remedy: error.remedy };
  switch (error.code) {
    case 'daemon_unreachable':
    case 'daemon_no_answer':
      return fail('cloud', { ...seen, message: `The daemon stopped answering during the check: ${error.message}`, remedy: DAEMON_DOWN_REMEDY });
    case 'token_unreadable':
    case 'missing_bearer_token':
    case 'invalid_bearer_token':
      return fail('token', { ...seen, message: error.message });
    case 'device_not_enrolled':
      return fail('enrollment', notEnrolled(error.message));
    case 'upstream_unavailable':
      return fail('cloud', {
        ...seen,
        message: `GET /health is fine but a server-backed call failed: ${error.message} The cause lies in the cloud or its API, not in the daemon.`,
      });
    default:
      if (error.specClass === 'Local key not recognized') {
        // The cloud answered, so it is reachable; what it refused is this device's key or signature.
        checks.push({ name: 'cloud', status: 'ok', detail: 'the cloud answered', fix: null });
        return fail('device_key', { ...seen, message: `The cloud refused this device: ${error.message}` });
      }
      return fail('cloud', { ...seen, message: `A server-backed call (GET /cards) failed: ${error.message}` });
  }
}

/**
 * unverifiedPeer asks the peer for the daemon proof and returns the problem when it fails to give
 * one. A token file that cannot be read is left to the token check, and a daemon that stopped
 * answering in between to the next call, so only daemon_not_verified is a problem here.
 */
async function unverifiedPeer(client: DiagnosableClient): Promise<Omit<DiagnosisProblem, 'check'> | undefined> {
  try {
    await client.verifyDaemon();
    return undefined;
  } catch (error) {
    if (!(error instanceof LatchClientError) || error.code !== 'daemon_not_verified') return undefined;
    return { spec_class: error.specClass, code: error.code, message: error.message, remedy: error.remedy };
  }
}

function notEnrolled(message: string): Omit<DiagnosisProblem, 'check'> {
  return { spec_class: ERROR_TABLE.device_not_enrolled.specClass, code: 'device_not_enrolled', message, remedy: ERROR_TABLE.device_not_enrolled.remedy };
}

/** clockDetail says how far the cloud's clock is from this device's, as the daemon measured it. */
function clockDetail(skew: number | null | undefined): string {
  if (skew === null || skew === undefined) return '';
  if (Math.abs(skew) <= 2) return "; its clock agrees with this device's";
  // The signed request was just accepted, so the skew is within what signatures tolerate; a
  // larger one fails that request with clock_skew instead, naming both clocks.
  const direction = skew > 0 ? 'ahead of' : 'behind';
  return `; its clock is ${Math.abs(skew)} s ${direction} this device's (windows are signed in the cloud's time)`;
}
