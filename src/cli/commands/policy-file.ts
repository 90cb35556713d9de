/**
 * `latch policy check-file`, `latch policy init` and `latch policy remove`: the owner's policy.json
 * without a daemon. check-file parses a file exactly as the daemon does; init writes the starter
 * policy, never over an existing one; remove takes it away explicitly, audited.
 */
import { closeSync, constants, openSync, readSync, unlinkSync } from 'node:fs';
import { createExclusive, writeFileAtomic } from '../../datadir/atomic-file.js';
import { sharedAuditWriter } from '../../datadir/audit-writer.js';
import { DataDirError } from '../../datadir/data-dir-error.js';
import { resolveHome } from '../../datadir/home.js';
import { loadPolicyFile, policyPath, policyRemovedPath } from '../../daemon/policy-source.js';
import { parsePolicyBytes, POLICY_FILE_BYTES_MAX } from '../../policy/policy-file.js';
import { policySummary } from '../../policy-text/policy-summary.js';
import { PolicyInvalidError } from '../../policy/policy-invalid-error.js';
import { policyWarnings, type PolicyWarning } from '../../policy-text/policy-warnings.js';
import type { Policy } from '../../policy/policy-types.js';
import { STARTER_POLICY_TEXT } from '../../policy-text/starter-policy.js';
import { UsageError, type CliIo } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { localCommand } from '../local-command.js';
import { privateHome } from '../private-home.js';
import { LatchClient } from '../../client/latch-client.js';
import { latchVersion } from '../../version.js';
import { withOwnerPresence } from '../owner-session.js';

/** What `latch policy check-file` found: valid (with its counts) or the field that is wrong. */
type FileCheck =
  | {
      valid: true;
      file: string;
      source: 'file' | 'default';
      rules: number;
      budgets: number;
      velocity: number;
      sha256: string;
      summary: string;
      warnings: PolicyWarning[];
    }
  | { valid: false; file: string; field: string; message: string };

/** `latch policy check-file [FILE]` validates a policy file without a daemon. */
export const policyCheckFileCommand = localCommand<FileCheck>({
  name: 'policy check-file',
  summary: 'Check a policy.json without a daemon: valid, or the field that is wrong',
  usage: `Usage: latch policy check-file [FILE] [--json]

Parses FILE exactly as the daemon parses policy.json and prints either
  OK: N rules, M budgets, K velocity limits; sha256 …
or the field that is wrong, e.g.
  policy.json is invalid at rules[2].max_amount: must be a decimal amount in a string, like "12.50".
A valid file may also get a warning for every rule that can never change a decision (an "allow"
rule under "default": "allow" — its max_amount is no cap), with what would work (docs/policy.md, Caps).
Without FILE it checks $LATCH_HOME/policy.json with the daemon's data-file checks (a regular file
of this user, mode 0600, no symbolic link); a FILE you name (a draft, say) is only parsed.
--json prints {"valid": true, "file", "source", "rules", "budgets", "velocity", "sha256", "summary",
"warnings": [{"field", "id", "message"}]}
or {"valid": false, "file", "field", "message"}.

Exit codes: 0 valid, warnings or not (or no policy.json: everything is allowed); 6 invalid; 2 bad usage or FILE
cannot be read; 3 $LATCH_HOME/policy.json is unsafe (permissions, owner, a link); 7 --agent given.`,
  flags: {},
  positionalsMax: 1,
  perform: ({ positionals }, io) => {
    const file = positionals[0];
    return file === undefined ? checkDefaultFile(io) : checkNamedFile(file);
  },
  human(result) {
    if (!result.valid) return [`${result.file} is invalid at ${result.field}: ${result.message}`];
    if (result.source === 'default') return [`No policy file at ${result.file}: the daemon allows every request (the default policy). Write one with: latch policy init`];
    return [`OK: ${result.summary}; sha256 ${result.sha256}`, ...warningLines(result.warnings)];
  },
  exitCode: (result) => (result.valid ? EXIT.ok : EXIT.verifyFailed),
});

function checkDefaultFile(io: CliIo): FileCheck {
  const file = policyPath(resolveHome(io.env));
  const loaded = loadPolicyFile(file);
  if ('invalid' in loaded) return invalid(file, loaded.invalid);
  return valid(file, loaded.policy);
}

function checkNamedFile(file: string): FileCheck {
  try {
    return valid(file, parsePolicyBytes(readAtMost(file, POLICY_FILE_BYTES_MAX + 1)));
  } catch (error) {
    if (error instanceof PolicyInvalidError) return invalid(file, error);
    throw error;
  }
}

function valid(file: string, policy: Policy): FileCheck {
  const source = policy.source === 'default' ? 'default' : 'file';
  return {
    valid: true,
    file,
    source,
    rules: policy.rules.length,
    budgets: policy.budgets.length,
    velocity: policy.velocity.length,
    sha256: policy.sha256,
    summary: policySummary(policy),
    warnings: policyWarnings(policy),
  };
}

/** warningLines writes one line per warning, naming the rule where the file has it. */
function warningLines(warnings: readonly PolicyWarning[]): string[] {
  return warnings.map((warning) => `warning: ${warning.field} (${warning.id}): ${warning.message}`);
}

function invalid(file: string, error: PolicyInvalidError): FileCheck {
  // The parser's message starts with "policy.json FIELD: " and never repeats a value from the file.
  const prefix = `policy.json ${error.field}: `;
  const why = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  return { valid: false, file, field: error.field, message: why };
}

/** readAtMost reads up to bytesMax bytes of a file the owner named; a larger file is refused by the parser. */
function readAtMost(file: string, bytesMax: number): Uint8Array {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY);
  } catch (error) {
    throw new UsageError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    const buffer = Buffer.alloc(bytesMax);
    let filled = 0;
    for (let read = -1; read !== 0 && filled < bytesMax; filled += read) read = readSync(fd, buffer, filled, bytesMax - filled, null);
    return buffer.subarray(0, filled);
  } catch (error) {
    throw new UsageError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  } finally {
    closeSync(fd);
  }
}

/** `latch policy init` writes the starter policy to $LATCH_HOME/policy.json, never over one. */
export const policyInitCommand = localCommand<{ file: string; summary: string; sha256: string }>({
  name: 'policy init',
  summary: 'Write a starter policy.json (refuses to overwrite one)',
  usage: `Usage: latch policy init [--json]

Writes a starter spending policy to $LATCH_HOME/policy.json (mode 0600, created only if there is
none): everything stays allowed by default, a first purchase at a new merchant and purchases of
100.00 or more ask you, agents cannot start subscriptions, and agents share a 200.00 daily budget
and a burst limit. Edit it to suit you (docs/policy.md explains every field), then check it with
latch policy check-file. A running daemon applies it, and every later change, without a restart.
--json prints {"file", "summary", "sha256"}.

Exit codes: 0 written; 3 a policy.json already exists (left unchanged) or the data directory is unsafe; 7 --agent given.`,
  flags: {},
  positionalsMax: 0,
  perform(_args, io) {
    // The policy is written only into a directory others cannot change.
    const home = privateHome(io.env);
    const file = policyPath(home);
    try {
      createExclusive(file, STARTER_POLICY_TEXT);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new DataDirError('exists', file, 'A policy.json already exists and was left unchanged', `edit it, check it with latch policy check-file, or move it away (mv ${file} ${file}.old) and run latch policy init again`);
      }
      throw error;
    }
    const policy = parsePolicyBytes(new TextEncoder().encode(STARTER_POLICY_TEXT));
    return { file, summary: policySummary(policy), sha256: policy.sha256 };
  },
  human: ({ file, summary }) => [
    `Wrote ${file} (0600): ${summary}.`,
    'A running daemon applies it now. Edit it to suit you (see docs/policy.md), then run: latch policy check-file',
    'To see what it decides: latch policy check --card card_… --merchant shop.example --amount 12.00 [--agent NAME]',
  ],
});

/** `latch policy remove` takes the owner's policy away, explicitly and audited. */
export const policyRemoveCommand = localCommand<{ file: string; removed: boolean; sha256: string | null }>({
  name: 'policy remove',
  summary: 'Remove policy.json: the daemon then allows every request (audited)',
  usage: `Usage: latch policy remove [--json]

Removes $LATCH_HOME/policy.json and tells a running daemon that you meant it: from the next request
on every request is allowed, as with no policy at all. Deleting policy.json any other way (an
editor saving by rename, rm) does not do that: a daemon that has loaded a policy keeps it until
this command runs (docs/decisions.md §17.4). The audit log gets a policy_removed line with the
removed policy's SHA-256. --json prints {"file", "removed", "sha256"}.

Exit codes: 0 removed (or there was none); 3 unsafe data directory; 7 --agent given; 1 anything else.`,
  flags: {},
  positionalsMax: 0,
  async perform(_args, io) {
    const home = privateHome(io.env);
    const file = policyPath(home);
    const loaded = loadPolicyFile(file);
    const sha256 = 'policy' in loaded && loaded.policy.source === 'file' ? loaded.policy.sha256 : null;
    let removed = true;
    try {
      unlinkSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      removed = false;
    }
    // After the unlink: a marker newer than a policy still in place would end it at its next save.
    writeFileAtomic(policyRemovedPath(home), `${JSON.stringify({ v: 1, removed_at: new Date().toISOString() })}\n`);
    await sharedAuditWriter(home).append({ operation: 'policy_removed', agent: 'owner', policy_sha256: sha256 });
    return { file, removed, sha256 };
  },
  human: ({ file, removed }) => [removed ? `Removed ${file}: the daemon now allows every request (no policy).` : `There was no ${file}; a running daemon now applies no policy either.`],
});

/** `latch policy apply FILE` sends a policy to the running daemon (PUT /policy). */
export const policyApplyCommand = localCommand<{ file: string; sha256: string; previous_sha256: string | null; warnings: PolicyWarning[] }>({
  name: 'policy apply',
  summary: "Replace the daemon's policy with FILE through its API (needs the owner's presence)",
  usage: `Usage: latch policy apply FILE [--passphrase-stdin] [--json]

Sends FILE to the running daemon (PUT /policy), which validates it exactly like policy.json
(nothing changes when it is invalid: the field is named), writes it atomically and audits the
change with the SHA-256 of the old and the new policy. This works when you cannot write the
daemon's data directory (the separate-user setup). When an owner passphrase is set, you are
asked for it (or give it on standard input with --passphrase-stdin); it is sent only after the
daemon has proved the key pinned in $LATCH_HOME (docs/decisions.md §21).

The daemon's warnings (rules that can never change a decision, docs/policy.md "Caps") are printed
after the change; they do not stop it. With --json it prints {"file", "sha256", "previous_sha256",
"warnings"}.

Exit codes: 0 applied; 2 bad usage or unreadable FILE; 6 FILE is not a valid policy; 7 refused; 8 the daemon is not running or not verified; 1 anything else.`,
  flags: { 'passphrase-stdin': 'boolean' },
  positionalsMax: 1,
  async perform({ flags, positionals }, io) {
    const file = positionals[0];
    if (file === undefined) throw new UsageError('latch policy apply needs a FILE');
    const text = new TextDecoder().decode(readAtMost(file, POLICY_FILE_BYTES_MAX + 1));
    const client = new LatchClient({ env: { ...io.env, LATCH_AGENT: '' }, userAgent: `latch-cli/${latchVersion()}` });
    try {
      const applied = await withOwnerPresence(client, io, { passphraseStdin: flags['passphrase-stdin'] === true }, () => client.putPolicy(text));
      return { file, sha256: applied.sha256, previous_sha256: applied.previous_sha256 ?? null, warnings: applied.warnings ?? [] };
    } finally {
      client.close();
    }
  },
  human: ({ file, sha256, warnings }) => [`Applied ${file}: the daemon's policy is now sha256 ${sha256}.`, ...warningLines(warnings)],
});
