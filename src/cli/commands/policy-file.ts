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
import { PolicyInvalidError } from '../../policy/policy-invalid-error.js';
import type { Policy } from '../../policy/policy-types.js';
import { STARTER_POLICY_TEXT } from '../../policy/starter-policy.js';
import { UsageError, writeLine, type CliIo, type Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { parseFlags } from '../flags.js';
import { reportError } from '../report-error.js';
import { privateHome } from '../private-home.js';

/** `latch policy check-file [FILE]` validates a policy file without a daemon. */
export const policyCheckFileCommand: Command = {
  name: 'policy check-file',
  summary: 'Check a policy.json without a daemon: valid, or the field that is wrong',
  usage: `Usage: latch policy check-file [FILE]

Parses FILE exactly as the daemon parses policy.json and prints either
  OK: N rules, M budgets, K velocity limits; sha256 …
or the field that is wrong, e.g.
  policy.json is invalid at rules[2].max_amount: must be a decimal amount in a string, like "12.50".
Without FILE it checks $LATCH_HOME/policy.json with the daemon's data-file checks (a regular file
of this user, mode 0600, no symbolic link); a FILE you name (a draft, say) is only parsed.

Exit codes: 0 valid (or no policy.json: everything is allowed); 6 invalid; 2 bad usage or FILE
cannot be read; 3 $LATCH_HOME/policy.json is unsafe (permissions, owner, a link).`,
  run: async (args, io) => {
    try {
      const [file, ...rest] = args;
      if (file !== undefined && file.startsWith('--')) throw new UsageError(`unknown option ${file}`);
      parseFlags(rest, {});
      return file === undefined ? checkDefaultFile(io) : checkNamedFile(file, io);
    } catch (error) {
      return reportError(error, io, 'policy check-file');
    }
  },
};

function checkDefaultFile(io: CliIo): number {
  const file = policyPath(resolveHome(io.env));
  const loaded = loadPolicyFile(file);
  if ('invalid' in loaded) return reportInvalid(file, loaded.invalid, io);
  if (loaded.policy.source === 'default') {
    writeLine(io.stdout, `No policy file at ${file}: the daemon allows every request (the default policy). Write one with: latch policy init`);
    return EXIT.ok;
  }
  return reportValid(loaded.policy, io);
}

function checkNamedFile(file: string, io: CliIo): number {
  try {
    return reportValid(parsePolicyBytes(readAtMost(file, POLICY_FILE_BYTES_MAX + 1)), io);
  } catch (error) {
    if (error instanceof PolicyInvalidError) return reportInvalid(file, error, io);
    throw error;
  }
}

function reportValid(policy: Policy, io: CliIo): number {
  writeLine(io.stdout, `OK: ${policy.rules.length} rules, ${policy.budgets.length} budgets, ${policy.velocity.length} velocity limits; sha256 ${policy.sha256}`);
  return EXIT.ok;
}

function reportInvalid(file: string, error: PolicyInvalidError, io: CliIo): number {
  // The parser's message starts with "policy.json FIELD: " and never repeats a value from the file.
  const prefix = `policy.json ${error.field}: `;
  const why = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  writeLine(io.stdout, `${file} is invalid at ${error.field}: ${why}`);
  return EXIT.verifyFailed;
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
export const policyInitCommand: Command = {
  name: 'policy init',
  summary: 'Write a starter policy.json (refuses to overwrite one)',
  usage: `Usage: latch policy init

Writes a starter spending policy to $LATCH_HOME/policy.json (mode 0600, created only if there is
none): everything stays allowed by default, a first purchase at a new merchant and purchases of
100.00 or more ask you, agents cannot start subscriptions, and agents share a 200.00 daily budget
and a burst limit. Edit it to suit you (docs/policy.md explains every field), then check it with
latch policy check-file. A running daemon applies it, and every later change, without a restart.

Exit codes: 0 written; 3 a policy.json already exists (left unchanged) or the data directory is unsafe.`,
  run: async (args, io) => {
    try {
      parseFlags(args, {});
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
      writeLine(io.stdout, `Wrote ${file} (0600): ${policy.rules.length} rules, ${policy.budgets.length} budgets, ${policy.velocity.length} velocity limits.`);
      writeLine(io.stdout, 'A running daemon applies it now. Edit it to suit you (see docs/policy.md), then run: latch policy check-file');
      writeLine(io.stdout, 'To see what it decides: latch policy check --card card_… --merchant shop.example --amount 12.00 [--agent NAME]');
      return EXIT.ok;
    } catch (error) {
      return reportError(error, io, 'policy init');
    }
  },
};

/** `latch policy remove` takes the owner's policy away, explicitly and audited. */
export const policyRemoveCommand: Command = {
  name: 'policy remove',
  summary: 'Remove policy.json: the daemon then allows every request (audited)',
  usage: `Usage: latch policy remove

Removes $LATCH_HOME/policy.json and tells a running daemon that you meant it: from the next request
on every request is allowed, as with no policy at all. Deleting policy.json any other way (an
editor saving by rename, rm) does not do that: a daemon that has loaded a policy keeps it until
this command runs (docs/decisions.md §17.4). The audit log gets a policy_removed line with the
removed policy's SHA-256.

Exit codes: 0 removed (or there was none); 3 unsafe data directory; 1 anything else.`,
  run: async (args, io) => {
    try {
      parseFlags(args, {});
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
      writeLine(io.stdout, removed ? `Removed ${file}: the daemon now allows every request (no policy).` : `There was no ${file}; a running daemon now applies no policy either.`);
      return EXIT.ok;
    } catch (error) {
      return reportError(error, io, 'policy remove');
    }
  },
};
