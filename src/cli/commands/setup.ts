import { refuseWhereDaemonLivesElsewhere } from '../owner-session.js';
import { effectiveCloudUrl, loadConfig, normalizeCloudUrl } from '../../datadir/config.js';
import { ensureHome, resolveHome } from '../../datadir/home.js';
import { assertDataDirSecure } from '../../datadir/permissions.js';
import { enrolledLine, enrollThisDevice } from '../enroll-this-device.js';
import { UsageError, writeLine, type CliIo, type Command } from '../command.js';
import { ensureMandateKey, passphraseFromEnv, rotateMandateKey } from '../../signer/key-admin.js';
import { isoSeconds } from '../../time/iso-time.js';
import { privateHome } from '../private-home.js';
import { EXIT } from '../exit-codes.js';
import { parseFlags } from '../flags.js';
import { reportError } from '../report-error.js';
import { refuseAgentFlag } from '../common-options.js';

const USAGE = `Usage: latch setup --token <setup_token> [--cloud <url>] [--name <device name>] [--reconnect] [--json]
       latch setup --rotate-mandate-key [--json]

Enrolls this device with the cloud: generates an Ed25519 device key (kept in device.key, 0600,
encrypted when LATCH_KEY_PASSPHRASE is set), registers its public key with POST /v1/devices signed
by the new key itself (proof of possession), and stores device_id, key_id and cloud_url in
config.json. The private key never leaves this machine.

Options:
  --token T      the setup token: from the sandbox, latch sandbox setup-token; from a real cloud,
                 your cloud account's setup page (or set LATCH_SETUP_TOKEN, which keeps it out
                 of the process list)
  --cloud URL    the cloud origin; default: config.json's cloud_url or LATCH_CLOUD_URL
  --name NAME    a name for this device (default: the host name)
  --reconnect    replace the existing key with fresh key material (the remedy for
                 "Local key not recognized"); the old key stays until enrollment succeeds
  --rotate-mandate-key
                 replace the AP2 mandate key (mandate.key) with a new one; the old key stays
                 in GET /ap2/jwks until every mandate it can have signed has expired (24 h 5 min).
                 Needs no token and no cloud; the running daemon signs with the new key at once
  --json         print the result as JSON
  --agent NAME   refused (exit 7, agent_not_permitted): enrolling the device is the owner's

Exit codes: 0 enrolled; 2 bad usage or already enrolled without --reconnect; 3 unsafe data
directory; 7 refused by the cloud (e.g. setup_token_expired), or --agent given; 9 cloud unavailable.`;

const FLAGS = { token: 'value', cloud: 'value', name: 'value', reconnect: 'boolean', 'rotate-mandate-key': 'boolean', json: 'boolean', agent: 'value' } as const;

/** `latch setup` enrolls the device, or with --reconnect replaces its key. */
export const setupCommand: Command = {
  name: 'setup',
  summary: 'Enroll this device with the cloud (or --reconnect with a fresh key)',
  usage: USAGE,
  async run(args, io) {
    try {
      const flags = parseFlags(args, FLAGS);
      refuseAgentFlag('setup', typeof flags['agent'] === 'string' ? flags['agent'] : undefined);
      if (flags['rotate-mandate-key'] === true) return rotateMandateKeyNow(flags, io);
      // A second device in the owner's folder would not be the daemon root pinned (docs/decisions.md §30).
      refuseWhereDaemonLivesElsewhere('setup', io.env, 'Enroll the daemon as the service user: sudo -u SERVICE_USER env LATCH_HOME=DATA_DIR latch setup --token …, then pin it: sudo latch service install --system --force.');
      const setupToken = typeof flags['token'] === 'string' ? flags['token'] : io.env['LATCH_SETUP_TOKEN'];
      if (setupToken === undefined || setupToken === '') throw new UsageError('--token (or LATCH_SETUP_TOKEN) is required');
      const home = resolveHome(io.env);
      ensureHome(home);
      assertDataDirSecure(home);
      const cloudUrl = cloudUrlFrom(flags['cloud'], effectiveCloudUrl(loadConfig(home), io.env));
      const deviceName = typeof flags['name'] === 'string' ? flags['name'] : undefined;
      const result = await enrollThisDevice({ home, env: io.env, setupToken, cloudUrl, ...(deviceName !== undefined && { deviceName }), reconnect: flags['reconnect'] === true });
      // The AP2 mandate key is made with the device's enrollment (kept when it exists: --reconnect replaces only the device key).
      ensureMandateKey(home, passphraseFromEnv(io.env));
      if (flags['json'] === true) writeLine(io.stdout, JSON.stringify(result));
      else writeLine(io.stdout, enrolledLine(result));
      return EXIT.ok;
    } catch (error) {
      return reportError(error, io, 'setup');
    }
  },
};

/** rotateMandateKeyNow is `latch setup --rotate-mandate-key`: a new AP2 mandate key, the old one still listed. */
function rotateMandateKeyNow(flags: Record<string, string | true | undefined>, io: CliIo): number {
  for (const other of ['token', 'cloud', 'name', 'reconnect'] as const) {
    if (flags[other] !== undefined) throw new UsageError(`--rotate-mandate-key takes no --${other}`);
  }
  const rotated = rotateMandateKey(privateHome(io.env), passphraseFromEnv(io.env), Math.floor(Date.now() / 1000));
  const result = { old_key_id: rotated.oldKid, key_id: rotated.newKid, old_key_listed_until: isoSeconds(rotated.oldListedUntil) };
  if (flags['json'] === true) writeLine(io.stdout, JSON.stringify(result));
  else writeLine(io.stdout, `New mandate key ${result.key_id}; the old key ${result.old_key_id} stays in GET /ap2/jwks until ${result.old_key_listed_until}.`);
  return EXIT.ok;
}

function cloudUrlFrom(flag: string | true | undefined, configured: string | undefined): string {
  if (typeof flag === 'string') {
    const normalized = normalizeCloudUrl(flag);
    if (normalized === undefined) throw new UsageError('--cloud must be an origin such as https://api.example.com (http only for loopback)');
    return normalized;
  }
  if (configured === undefined) throw new UsageError('--cloud is required: no cloud_url is configured');
  return configured;
}
