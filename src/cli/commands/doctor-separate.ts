/**
 * `latch doctor` from the owner's account in the separate-user setup (docs/decisions.md §30). The
 * owner's own LATCH_HOME holds nothing of the daemon's, so every fact comes from root's pin or
 * from the daemon itself through the API: which pin is in force, that the daemon proves the pinned
 * key, that presence is configured (a session opens with the owner passphrase), the policy it
 * loaded, the brake, the cloud, and who owns its data directory. Nothing is read from, or
 * reported about, the owner's empty folder as if it were the daemon's.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { LatchClientError } from '../../client/client-errors.js';
import type { LatchClient } from '../../client/latch-client.js';
import { readPinnedKey } from '../../client/pinned-key.js';
import { systemPinChoice } from '../../client/system-daemon.js';
import type { SystemPin } from '../../datadir/system-pin.js';
import { writeLine, type CliIo } from '../command.js';
import { EXIT } from '../exit-codes.js';

/** One check of the separate-user doctor. */
interface Check {
  name: 'pin' | 'daemon' | 'presence' | 'policy' | 'pause' | 'cloud' | 'data_directory';
  status: 'ok' | 'warning' | 'failed';
  detail: string;
  fix?: string;
}

/** separateUserDoctor runs the checks in order, stopping where a later one cannot mean anything. */
export async function separateUserDoctor(client: LatchClient, pin: SystemPin, io: CliIo, json: boolean): Promise<number> {
  const checks: Check[] = [];
  let exit: number = EXIT.ok;
  const fail = (check: Check, code: number): void => {
    checks.push(check);
    if (exit === EXIT.ok) exit = code;
  };
  const pinned = readPinnedKey(client.home, io.env);
  const choice = systemPinChoice(client.home, io.env);
  const legacy = pin.accounts === undefined;
  checks.push({
    name: 'pin',
    status: legacy ? 'warning' : 'ok',
    detail: `root's pin ${pinned?.file ?? '?'} applies: ${choice?.why ?? 'it names this account'}. Key ${pin.key_id}, ${pin.url ?? 'default address'}, data in ${pin.data_dir} (user ${pin.user}); files in ${client.home} are not used`,
    ...(legacy && { fix: `sudo latch service install --system --force --for ${'NAME[,NAME]'} (name the accounts this daemon is for; until then the pin redirects every account on this machine)` }),
  });
  try {
    await client.verifyPinnedKey();
    checks.push({ name: 'daemon', status: 'ok', detail: `${client.baseUrl} proved the pinned key` });
  } catch (error) {
    const why = error instanceof LatchClientError ? `${error.code}: ${error.message}` : String(error);
    fail({ name: 'daemon', status: 'failed', detail: why, fix: `Start the service (systemctl start latch, or sudo latch daemon --user ${pin.user}); if another key answers, pin it again: sudo latch service install --system --force` }, EXIT.daemonUnreachable);
    return finish(checks, exit, client, pin, io, json);
  }
  const health = await client.health();
  const directory = dataDirectoryCheck(pin);
  if (directory.status === 'failed') fail(directory, EXIT.dataDir);
  else checks.push(directory);
  if (health.owner_presence === undefined || health.owner_presence === 'none') {
    fail({ name: 'presence', status: 'failed', detail: 'no owner passphrase is set: this account cannot open an owner session', fix: `sudo -u ${pin.user} env LATCH_HOME=${pin.data_dir} latch approvals passphrase set` }, EXIT.refused);
    return finish(checks, exit, client, pin, io, json);
  }
  try {
    // The session the next checks use: the passphrase is asked here, once.
    await client.policy().then((view) => {
      checks.push({ name: 'presence', status: 'ok', detail: `${health.owner_presence}: an owner session opened` });
      checks.push(view.source === 'default' ? { name: 'policy', status: 'warning', detail: 'the daemon has no policy.json: every request is allowed', fix: 'latch policy apply FILE' } : { name: 'policy', status: 'ok', detail: `policy.json loaded and valid (sha256 ${view.sha256.slice(0, 12)}…)` });
    });
  } catch (error) {
    if (!(error instanceof LatchClientError)) throw error;
    if (error.code === 'policy_invalid' || error.code === 'data_directory_unavailable') fail({ name: 'policy', status: 'failed', detail: `${error.code}: ${error.message}`, fix: 'latch policy apply FILE with a valid policy' }, EXIT.verifyFailed);
    else fail({ name: 'presence', status: 'failed', detail: `${error.code}: ${error.message}`, fix: error.remedy }, error.code === 'invalid_passphrase' || error.code === 'too_many_attempts' ? EXIT.refused : EXIT.failure);
    return finish(checks, exit, client, pin, io, json);
  }
  if (health.paused != null) fail({ name: 'pause', status: 'failed', detail: `signing is paused since ${health.paused.since}`, fix: 'latch resume' }, EXIT.refused);
  else checks.push({ name: 'pause', status: 'ok', detail: 'signing is not paused' });
  try {
    const cards = await client.cards();
    checks.push({ name: 'cloud', status: 'ok', detail: `the cloud answers (${cards.cards.length} card${cards.cards.length === 1 ? '' : 's'})` });
  } catch (error) {
    const why = error instanceof LatchClientError ? `${error.code}: ${error.message}` : String(error);
    fail({ name: 'cloud', status: 'failed', detail: why, ...(error instanceof LatchClientError && { fix: error.remedy }) }, error instanceof LatchClientError && error.code === 'upstream_unavailable' ? EXIT.upstreamUnavailable : EXIT.refused);
  }
  return finish(checks, exit, client, pin, io, json);
}

/**
 * dataDirectoryCheck looks at the daemon's data directory from outside: it must belong to the
 * pinned service user and be closed to everyone else (this account cannot look inside).
 */
function dataDirectoryCheck(pin: SystemPin): Check {
  let uid: number | undefined;
  try {
    const line = execFileSync('getent', ['passwd', pin.user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split(':');
    uid = Number(line[2]);
  } catch {
    uid = undefined;
  }
  try {
    const stats = lstatSync(pin.data_dir);
    if (!stats.isDirectory() || stats.uid !== uid || (stats.mode & 0o077) !== 0) {
      return { name: 'data_directory', status: 'failed', detail: `${pin.data_dir} is owned by uid ${stats.uid} with mode ${(stats.mode & 0o777).toString(8)}, not ${pin.user}'s alone`, fix: `sudo chown ${pin.user}: ${pin.data_dir} && sudo chmod 700 ${pin.data_dir}` };
    }
    return { name: 'data_directory', status: 'ok', detail: `${pin.data_dir} belongs to ${pin.user} (uid ${stats.uid}), mode 700: nothing in it is readable by this account` };
  } catch (error) {
    return { name: 'data_directory', status: 'warning', detail: `${pin.data_dir} cannot be checked from this account (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}

function finish(checks: Check[], exit: number, client: LatchClient, pin: SystemPin, io: CliIo, json: boolean): number {
  if (json) {
    writeLine(io.stdout, JSON.stringify({ ok: exit === EXIT.ok, setup: 'separate-user', url: client.baseUrl, home: client.home, pin, checks }));
    return exit;
  }
  writeLine(io.stdout, `Latch doctor: the separate-user setup (the daemon runs as ${pin.user}), daemon ${client.baseUrl}`);
  for (const check of checks) writeLine(io.stdout, `  ${check.status.padEnd(7)}  ${check.name.replace('_', ' ').padEnd(14)}  ${check.detail}`);
  for (const check of checks.filter((c) => c.status !== 'ok' && c.fix !== undefined)) writeLine(io.stdout, `${check.status === 'failed' ? 'Problem' : 'Warning'} (${check.name}): ${check.fix}`);
  if (exit === EXIT.ok) writeLine(io.stdout, checks.some((check) => check.status === 'warning') ? 'Nothing blocks payments.' : 'All checks passed.');
  return exit;
}
