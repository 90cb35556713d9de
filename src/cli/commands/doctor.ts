import { statSync } from 'node:fs';
import { diagnose, type Diagnosis, type DiagnosisProblem } from '../../client/diagnose.js';
import { shellQuote } from '../../datadir/data-dir-error.js';
import type { LatchClient } from '../../client/latch-client.js';
import { writeLine, type Command } from '../command.js';
import { parseCommandArgs, stringFlag } from '../daemon-calls/command-args.js';
import { newCliClient } from '../daemon-calls/daemon-call-command.js';
import { EXIT } from '../exit-codes.js';
import { reportError } from '../report-error.js';
import { ownerSecurity, type OwnerSecurity } from '../../client/owner-security.js';
import { separateUserDoctor } from './doctor-separate.js';
import { ed25519Engine } from '../../signer/ed25519-verify.js';
import { systemPinChoice } from '../../client/system-daemon.js';
import { SystemPinError } from '../../datadir/system-pin.js';

/**
 * whichPin says whether root's pin applies to this account and why (issue 44 item 1), or null
 * when there is no pin file.
 */
export function whichPin(home: string, env: NodeJS.ProcessEnv): { file: string | null; applies: boolean; why: string } | null {
  try {
    const choice = systemPinChoice(home, env);
    return choice === undefined ? null : { file: choice.file, applies: choice.pin !== undefined, why: choice.why };
  } catch (error) {
    if (error instanceof SystemPinError) return { file: null, applies: true, why: `root's pin cannot be trusted: ${error.message}` };
    throw error;
  }
}

const USAGE = `Usage: latch doctor [--json] [--agent NAME] [--passphrase-stdin]

Finds out why Latch does not work, checking in this order:
  1. daemon      GET /health, and the answer proves it comes from the daemon that holds this
                 data directory's token (else daemon_not_verified: something else listens on
                 the daemon's address, and no token is sent to it). If it fails, the local
                 daemon is unavailable; that is not a payment failure.
  2. token       $LATCH_HOME/daemon_token exists, is private (0600, yours) and well-formed.
  3. enrollment  the daemon has a device key (latch setup has run).
  4. cloud       a signed server-backed call (GET /cards) gets an answer. If not while health is
                 fine, the cloud is unavailable (Upstream API unavailable).
  5. device key  the cloud recognizes the key (else: Local key not recognized, fixed with
                 latch setup --reconnect).
These stop at the first problem. Then what can stop payments although all of the above works
(read from the data directory, so checked even when the daemon is down):
  6. policy      $LATCH_HOME/policy.json is private and valid (else every authorization is refused:
                 503 data_directory_unavailable or 503 policy_invalid), with the exact fix.
  7. pause       latch pause is not in force (else who paused, since when, why; fix: latch resume).
  8. approvals   approving is not locked after wrong passphrases, and what approvals wait for you
                 (asked of the daemon; pending approvals are a warning, not a failure).
  9. presence    with agents, an approval passphrase is set (a warning when it is not).
It prints the first problem's error class and what to do, and each warning's fix. Then it
reports the owner's protections (docs/decisions.md §21): the pinned daemon key id (what the CLI
proves before it sends the owner passphrase), the owner presence factors, whether anything in
the data directory is readable by others (a problem: exit 3), and, when root pinned daemons
(/etc/latch/daemon.json), whether that pin applies to this account and why (it redirects only
the accounts it names). It changes nothing.

In the separate-user setup (root pinned a daemon that keeps its data elsewhere), the owner's
doctor checks that daemon through the API instead: which pin is in force, that the daemon proves
the pinned key, that an owner session opens (it asks the passphrase), the policy it loaded, the
brake, the cloud, and that its data directory is the service user's alone.

Options:
  --json    print {ok, url, home, checks: [{name, status, detail, fix}], problem, security,
            system_pin: {file, applies, why} | null} (separate-user setup: {ok, setup, url, home,
            pin, checks})
  --passphrase-stdin  the owner passphrase from standard input (the separate-user setup)
  --agent NAME  check as this agent (its token; pending approvals are then its own only)

Exit codes: 0 nothing blocks payments (warnings allowed); 8 the daemon is not running or not
verified; 3 the token file, policy.json, the pause file or the passphrase file is unusable, or a
server-backed call failed on a data file others can read (the file is named); 6
policy.json is invalid; 7 not enrolled, key not recognized, token refused, signing paused or
approving locked; 9 the cloud is unavailable; 1 another failure of the server-backed call; 2 bad
usage.`;

/** `latch doctor` diagnoses the daemon, token, enrollment, cloud and key, in that order (DIAGNOSIS_CHECKS, docs/decisions.md §10). */
export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'Diagnose: daemon, token, enrollment, cloud, device key in order',
  usage: USAGE,
  async run(args, io) {
    let client: LatchClient | undefined;
    try {
      const { flags } = parseCommandArgs(args, { json: 'boolean', agent: 'value', 'passphrase-stdin': 'boolean' }, 0);
      client = newCliClient(io, stringFlag(flags, 'agent'), { passphraseStdin: flags['passphrase-stdin'] === true });
      // The owner's account of a daemon root pinned: check the real daemon, never this folder (§30).
      if (client.systemDaemon !== undefined && client.agent === undefined) return await separateUserDoctor(client, client.systemDaemon, io, flags['json'] === true);
      const found = await diagnose(client);
      const presence = await client.health().then((health) => (typeof health.owner_presence === 'string' ? health.owner_presence : null)).catch(() => null);
      const security = ownerSecurity(client.home, presence, io.env);
      const diagnosis = { ...found, problem: namingExposedFiles(found.problem, security) };
      // The Ed25519 verifier this build chose at start on this platform (docs/decisions.md §39.1).
      const ed25519Verify = ed25519Engine();
      const systemPin = whichPin(client.home, io.env);
      if (flags['json'] === true) writeLine(io.stdout, JSON.stringify({ ...diagnosis, security, system_pin: systemPin, ed25519_verify: ed25519Verify }));
      else {
        const pinLines = systemPin === null ? [] : [`  root's pin         ${systemPin.why}`];
        const lines = [...report(diagnosis), ...securityReport(security), ...pinLines, `Ed25519 verification: ${ed25519Verify.engine} (${ed25519Verify.reason})`];
        for (const line of lines) writeLine(io.stdout, line);
      }
      if (diagnosis.problem !== null) return exitFor(diagnosis.problem);
      return security.data_directory === 'exposed' ? EXIT.dataDir : EXIT.ok;
    } catch (error) {
      return reportError(error, io, 'doctor');
    } finally {
      client?.close();
    }
  },
};

/**
 * exitFor maps the problem found to the CLI's exit codes: 8 the daemon is unavailable, 3 the
 * token file is unusable, 9 the cloud is unavailable, 1 an unexpected failure of a
 * server-backed call, 7 every refusal (not enrolled, key not recognized, token refused).
 */
function exitFor(problem: DiagnosisProblem): number {
  const payment = PAYMENT_EXIT[problem.code];
  if (payment !== undefined) return payment;
  if (problem.check === 'daemon' || problem.code === 'daemon_unreachable' || problem.code === 'daemon_no_answer') return EXIT.daemonUnreachable;
  // The daemon's own data directory failed the call (an unsafe, corrupt or unwritable file): not the cloud's failure.
  if (problem.code === 'token_unreadable' || problem.code === 'data_directory_unavailable') return EXIT.dataDir;
  if (problem.code === 'upstream_unavailable') return EXIT.upstreamUnavailable;
  if (problem.check === 'cloud') return EXIT.failure;
  return EXIT.refused;
}

/**
 * namingExposedFiles makes a call the daemon failed on its data directory name the cause when this
 * check found it: files others can read or change, which the daemon refuses to use. The daemon's
 * answer only says "a file became unsafe"; the owner needs the file and the fix.
 */
function namingExposedFiles(problem: DiagnosisProblem | null, security: OwnerSecurity): DiagnosisProblem | null {
  if (problem === null || problem.code !== 'data_directory_unavailable' || security.data_directory !== 'exposed') return problem;
  const isDirectory = (entry: string): boolean => {
    try {
      return statSync(entry).isDirectory();
    } catch {
      return false;
    }
  };
  const directories = security.exposed.filter(isDirectory);
  const files = security.exposed.filter((entry) => !isDirectory(entry));
  const fixes = [...(directories.length > 0 ? [`chmod 700 ${directories.map(shellQuote).join(' ')}`] : []), ...(files.length > 0 ? [`chmod 600 ${files.map(shellQuote).join(' ')}`] : [])];
  return {
    ...problem,
    message: `${problem.message} Readable or writable by others, so the daemon refuses to use it: ${security.exposed.join(', ')}.`,
    remedy: `${fixes.join('; ')} (and check who could have read or changed it meanwhile)`,
  };
}

function securityReport(security: OwnerSecurity): string[] {
  const lines = ['Owner protections:'];
  lines.push(`  pinned daemon key  ${security.pinned_key === null ? 'none' : `${security.pinned_key.key_id} (from ${security.pinned_key.source === 'system' ? "root's pin" : security.pinned_key.source})`}`);
  lines.push(`  owner presence     ${security.owner_presence ?? 'unknown'}`);
  lines.push(`  data directory     ${security.data_directory === 'private' ? 'nothing in it is readable by others' : security.data_directory === 'not_readable_by_you' ? 'not readable by you (the daemon runs as its own user)' : 'EXPOSED to others'}`);
  for (const warning of security.warnings) lines.push(`  warning: ${warning}`);
  return lines;
}

/** The exit codes of the payment checks' failures (docs/decisions.md §19): an unusable file is the data directory's, an invalid policy a verification failure, the rest refusals. */
const PAYMENT_EXIT: Readonly<Record<string, number>> = {
  policy_unsafe: EXIT.dataDir,
  pause_unreadable: EXIT.dataDir,
  passphrase_unreadable: EXIT.dataDir,
  policy_invalid: EXIT.verifyFailed,
  daemon_paused: EXIT.refused,
  too_many_attempts: EXIT.refused,
};

function report(diagnosis: Diagnosis): string[] {
  const lines = [`Latch doctor: daemon ${diagnosis.url}, data directory ${diagnosis.home}`];
  for (const check of diagnosis.checks) {
    lines.push(`  ${check.status.padEnd(7)}  ${check.name.replace('_', ' ').padEnd(10)}  ${check.detail}`);
  }
  const warnings = diagnosis.checks.filter((check) => check.status === 'warning');
  for (const warning of warnings) lines.push(`Warning (${warning.name}): ${warning.fix ?? warning.detail}`);
  const problem = diagnosis.problem;
  if (problem === null) {
    lines.push(warnings.length === 0 ? 'All checks passed.' : 'Nothing blocks payments.');
    return lines;
  }
  lines.push(`Problem: ${problem.spec_class} (${problem.code})`);
  lines.push(`What to do: ${problem.remedy}`);
  const more = diagnosis.checks.filter((check) => check.status === 'failed' && check.name !== problem.check);
  for (const check of more) lines.push(`Also (${check.name}): ${check.fix ?? check.detail}`);
  return lines;
}
