/**
 * `latch sandbox setup-token` and `latch sandbox clock`: the sandbox's admin calls a user of the
 * quick start needs, without composing curl commands. They find the sandbox through
 * $LATCH_HOME/sandbox.json (written by `latch start`), or --cloud and --admin-key-file.
 */
import path from 'node:path';
import { loadConfig } from '../../datadir/config.js';
import { resolveHome } from '../../datadir/home.js';
import { readPrivateFile } from '../../datadir/read-private-file.js';
import { adminApi } from '../../quickstart/sandbox-account.js';
import { UsageError, writeLine, type CliIo, type Command } from '../command.js';
import { integerFlag, parseCommandArgs, stringFlag } from '../daemon-calls/command-args.js';
import { refuseAgentFlag } from '../common-options.js';
import { EXIT } from '../exit-codes.js';
import type { Flags } from '../flags.js';
import { reportError } from '../report-error.js';

interface SandboxAdmin {
  cloudUrl: string;
  adminKey: string;
}

const ADMIN_KEY_FILE_BYTES_MAX = 256;
const SANDBOX_JSON_BYTES_MAX = 4096;

/** sandboxAdmin finds the sandbox and reads its admin key (never printed). */
function sandboxAdmin(flags: Flags, io: CliIo): SandboxAdmin {
  let cloudUrl = stringFlag(flags, 'cloud');
  let keyFile = stringFlag(flags, 'admin-key-file');
  if (cloudUrl === undefined || keyFile === undefined) {
    const file = path.join(resolveHome(io.env), 'sandbox.json');
    const text = readPrivateFile(file, SANDBOX_JSON_BYTES_MAX);
    if (text === undefined) throw new UsageError(`${file} does not exist: start the quick start first (npm start), or pass --cloud and --admin-key-file`);
    const saved = JSON.parse(text) as { cloud_url?: unknown; admin_key_path?: unknown };
    if (typeof saved.cloud_url !== 'string' || typeof saved.admin_key_path !== 'string') throw new UsageError(`${file} does not name cloud_url and admin_key_path; run npm start again`);
    cloudUrl ??= saved.cloud_url;
    keyFile ??= saved.admin_key_path;
  }
  if (!/^http:\/\/(127\.0\.0\.1|\[::1\]|localhost):[0-9]{1,5}$/.test(cloudUrl)) throw new UsageError('--cloud must be the sandbox on loopback, like http://127.0.0.1:7780');
  const key = readPrivateFile(path.resolve(keyFile), ADMIN_KEY_FILE_BYTES_MAX)?.trim();
  if (key === undefined || key === '') throw new UsageError(`the admin key file ${keyFile} does not exist or is empty`);
  return { cloudUrl, adminKey: key };
}

async function adminCall(admin: SandboxAdmin, method: 'GET' | 'POST', target: string, body?: unknown): Promise<Record<string, unknown>> {
  let response: { status: number; body: unknown };
  try {
    response = await adminApi(admin.cloudUrl, admin.adminKey).request(method, target, body);
  } catch {
    throw new SandboxUnreachable(admin.cloudUrl);
  }
  const answer = (response.body ?? {}) as Record<string, unknown>;
  if (response.status !== 200 && response.status !== 201) {
    const error = (answer['error'] ?? {}) as { code?: unknown; message?: unknown };
    throw new Error(`the sandbox refused: ${String(error.code ?? response.status)}: ${String(error.message ?? '')}`);
  }
  return answer;
}

class SandboxUnreachable extends Error {
  constructor(url: string) {
    super(`no sandbox answers at ${url}; is \`npm start\` (or \`latch sandbox\`) running?`);
  }
}

const COMMON_FLAGS = { cloud: 'value', 'admin-key-file': 'value', json: 'boolean', agent: 'value' } as const;
const COMMON_OPTIONS = `  --cloud URL             the sandbox (default: cloud_url in $LATCH_HOME/sandbox.json)
  --admin-key-file FILE   its admin key (default: admin_key_path in $LATCH_HOME/sandbox.json)
  --json                  print the sandbox's answer as JSON
  --agent NAME            refused (exit 7, agent_not_permitted): the sandbox's admin key is the owner's`;

async function runAdmin(io: CliIo, name: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof SandboxUnreachable) {
      writeLine(io.stderr, `latch ${name}: ${error.message}`);
      return EXIT.daemonUnreachable;
    }
    return reportError(error, io, name);
  }
}

/**
 * newAccountHint says that a new account starts empty, and how a second device joins this
 * LATCH_HOME's account instead (docs/decisions.md §31.9).
 */
function newAccountHint(io: CliIo): string[] {
  const own = enrolledAccount(io);
  return [
    'This is a new, empty sandbox account: a device enrolled with it sees no cards and no funds.',
    own === undefined
      ? 'To enroll another device into an existing account, add --account acct_… (account_id in that device\'s config.json).'
      : `To enroll another device into this device's account instead: latch sandbox setup-token --account ${own}`,
  ];
}

/** enrolledAccount is the account of $LATCH_HOME's enrolled device, when there is one. */
function enrolledAccount(io: CliIo): string | undefined {
  try {
    return loadConfig(resolveHome(io.env)).account_id;
  } catch {
    return undefined;
  }
}

/** `latch sandbox setup-token` makes a setup token for a new sandbox account, or for one named. */
export const sandboxSetupTokenCommand: Command = {
  name: 'sandbox setup-token',
  summary: 'Make a setup token on the sandbox, for latch setup',
  usage: `Usage: latch sandbox setup-token [--account acct_…] [--cloud URL] [--admin-key-file FILE] [--json]

Asks the sandbox for a setup token (valid 15 minutes) and prints it with the command that uses it:
latch setup --token TOKEN --cloud URL. Without --account the token is for a new, empty account (no
cards, no funds); with it, a device enrolled with the token joins that account and sees its cards
(a second device of yours: --account with the account of $LATCH_HOME, which the output names).

Options:
  --account ID            the sandbox account the token enrolls into (default: a new one)
${COMMON_OPTIONS}

Exit codes: 0 made; 2 bad usage or no sandbox.json; 8 the sandbox is not running; 1 anything else.`,
  run: (args, io) =>
    runAdmin(io, 'sandbox setup-token', async () => {
      const { flags } = parseCommandArgs(args, { ...COMMON_FLAGS, account: 'value' }, 0);
      refuseAgentFlag('sandbox setup-token', stringFlag(flags, 'agent'));
      const account = stringFlag(flags, 'account');
      const admin = sandboxAdmin(flags, io);
      const answer = await adminCall(admin, 'POST', '/v1/sandbox/setup-tokens', account === undefined ? {} : { account_id: account });
      if (flags['json'] === true) {
        writeLine(io.stdout, JSON.stringify(answer));
        return EXIT.ok;
      }
      writeLine(io.stdout, `Setup token for account ${String(answer['account_id'])}, valid until ${String(answer['expires_at'])}:`);
      writeLine(io.stdout, `  latch setup --token ${String(answer['setup_token'])} --cloud ${admin.cloudUrl}`);
      if (account === undefined) for (const line of newAccountHint(io)) writeLine(io.stdout, line);
      return EXIT.ok;
    }),
};

/** `latch sandbox clock` shows, advances or resets the sandbox's ledger clock. */
export const sandboxClockCommand: Command = {
  name: 'sandbox clock',
  summary: "Show, advance or reset the sandbox's clock (to watch authorizations expire)",
  usage: `Usage: latch sandbox clock [--advance SECONDS | --reset] [--cloud URL] [--admin-key-file FILE] [--json]

The sandbox's clock decides when windows start and expire. --advance moves it forward (to watch an
authorization expire); --reset puts it back on the real clock. The daemon signs windows in the
cloud's time, so new authorizations keep working either way.

Options:
  --advance SECONDS       move the clock forward (1 to 316224000)
  --reset                 run on the real clock again
${COMMON_OPTIONS}

Exit codes: 0 done; 2 bad usage or no sandbox.json; 8 the sandbox is not running; 1 anything else.`,
  run: (args, io) =>
    runAdmin(io, 'sandbox clock', async () => {
      const { flags } = parseCommandArgs(args, { ...COMMON_FLAGS, advance: 'value', reset: 'boolean' }, 0);
      refuseAgentFlag('sandbox clock', stringFlag(flags, 'agent'));
      const advance = integerFlag(flags, 'advance', 1, 316_224_000);
      if (advance !== undefined && flags['reset'] === true) throw new UsageError('--advance and --reset cannot be combined');
      const admin = sandboxAdmin(flags, io);
      const answer =
        advance !== undefined
          ? await adminCall(admin, 'POST', '/v1/sandbox/clock', { advance_seconds: advance })
          : flags['reset'] === true
            ? await adminCall(admin, 'POST', '/v1/sandbox/clock', { offset_seconds: 0 })
            : await adminCall(admin, 'GET', '/v1/sandbox/clock');
      if (flags['json'] === true) writeLine(io.stdout, JSON.stringify(answer));
      else writeLine(io.stdout, `Sandbox clock: ${String(answer['now'])} (${String(answer['clock_offset_seconds'])} s ahead of the real clock)`);
      return EXIT.ok;
    }),
};
