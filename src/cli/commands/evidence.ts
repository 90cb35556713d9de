/**
 * `latch evidence PW_ID [--out FILE]` saves one authorization's evidence pack, and `latch evidence
 * verify FILE` checks a pack offline: no daemon, no cloud, no data directory (docs/evidence.md).
 */
import { isWireId } from '../../ids/wire-ids.js';
import { writeFileSync } from 'node:fs';
import { keyIdsOfJwks, verifyEvidence } from '../../evidence/verify-pack.js';
import { EVIDENCE_BYTES_MAX } from '../../evidence/pack.js';
import { UsageError, writeLine, type Command } from '../command.js';
import { checkId, parseCommandArgs, stringFlag } from '../daemon-calls/command-args.js';
import { newCliClient, reportCallError } from '../daemon-calls/daemon-call-command.js';
import { EXIT } from '../exit-codes.js';
import { readInputFile } from '../read-input-file.js';
import { reportError } from '../report-error.js';

const USAGE = `Usage: latch evidence PW_ID [--out FILE] [--agent NAME] [--passphrase-stdin] [--json]

Writes the evidence pack of one authorization (GET /authorizations/:policy_id/evidence): the
device's public key, the signed window, the request and who made it, the policy's decision, the
owner's approval, the audit lines and what the cloud reports, signed as a whole by the device key.
An agent gets only its own authorizations' packs. Check one with \`latch evidence verify FILE\`.

Options:
  --out FILE      write the pack to FILE instead of stdout (exactly as signed)
  --agent NAME    run as this agent (default: LATCH_AGENT, else the owner)
  --json          the pack is JSON already; with --out, print {"policy_id", "file"} instead of a
                  sentence, and a failure as {"error": {...}}

Exit codes: 0 written; 7 refused (authorization_not_found, evidence_unavailable ...); 8 daemon
unreachable; 9 cloud unavailable; 2 bad usage; 1 anything else.`;

const VERIFY_USAGE = `Usage: latch evidence verify FILE [--key-id KID] [--jwks KEYS_FILE] [--require-key] [--json]

Checks an evidence pack offline — no daemon, no cloud, no data directory: the pack's signature and
the window's with the pack's own key, the key id, that the signed payload is the pack, that the
window is what was asked, that the approval names the same request, every audit line's hash and
order, and that no charge the cloud reports exceeds the window. Any byte changed anywhere fails.

The pack carries its own key, so without --key-id or --jwks a pack that holds is only consistent
with itself: anyone can sign a made-up pack with a key of their own. Name the device's key
(latch status shows it as "signing key") to know the pack was signed by that device.

Options:
  --key-id KID      the device key the pack must be signed by (its RFC 7638 thumbprint)
  --jwks KEYS_FILE  a JWKS file of the device keys the pack may be signed by
  --require-key     fail (exit 12) unless --key-id or --jwks names a key: for scripts, so a key
                    that did not reach the command line is a failure, never an unpinned "ok"
  --json            print {"ok", "file", "policy_id", "key_id", "key_pinned"} or
                    {"ok": false, "file", "problem"}
  --agent NAME    accepted, and changes nothing: verifying needs no identity and no data directory

Exit codes: 0 everything holds (pinned to the named key, or, without one, only consistent with
itself); 6 something does not (the first thing is named); 12 --require-key and no key named;
2 bad usage, a missing file, or one that is not a regular file (a FIFO, a device); 1 the file
cannot be read.`;

/** `latch evidence PW_ID` writes one authorization's evidence pack. */
export const evidenceCommand: Command = {
  name: 'evidence',
  summary: "Save an authorization's evidence pack, signed by the device, for a dispute",
  usage: USAGE,
  async run(args, io) {
    let client: ReturnType<typeof newCliClient> | undefined;
    let json = false;
    try {
      const { flags, positionals } = parseCommandArgs(args, { out: 'value', agent: 'value', json: 'boolean', 'passphrase-stdin': 'boolean' }, 1);
      json = flags['json'] === true;
      const policyId = positionals[0];
      if (policyId === undefined) throw new UsageError('name the authorization: latch evidence pw_…');
      // An x402 payment's pack is asked for by its authorization id (docs/x402.md).
      if (!isWireId('xa', policyId)) checkId(policyId, 'pw', 'PW_ID');
      const out = stringFlag(flags, 'out');
      client = newCliClient(io, stringFlag(flags, 'agent'), { passphraseStdin: flags['passphrase-stdin'] === true });
      const pack = await client.evidence(policyId);
      if (out === undefined) {
        io.stdout.write(pack);
        return EXIT.ok;
      }
      writeFileSync(out, pack);
      if (json) {
        writeLine(io.stdout, JSON.stringify({ policy_id: policyId, file: out }));
        return EXIT.ok;
      }
      writeLine(io.stdout, `Wrote the evidence pack of ${policyId} to ${out}; check it with: latch evidence verify ${out}`);
      return EXIT.ok;
    } catch (error) {
      return reportCallError(error, io, 'evidence', json);
    } finally {
      client?.close();
    }
  },
};

/** The shape of a key id: an RFC 7638 SHA-256 thumbprint in base64url. */
const KEY_ID = /^[A-Za-z0-9_-]{43}$/;

/** expectedKeys reads --key-id and --jwks into the key ids a pack must be signed by (undefined: none named). */
function expectedKeys(keyId: string | undefined, jwksFile: string | undefined): string[] | undefined {
  if (keyId === undefined && jwksFile === undefined) return undefined;
  const ids: string[] = [];
  if (keyId !== undefined) {
    if (!KEY_ID.test(keyId)) throw new UsageError('--key-id must be a key id: 43 base64url characters, as latch status shows the signing key');
    ids.push(keyId);
  }
  if (jwksFile !== undefined) {
    const bytes = readInputFile(jwksFile, JWKS_BYTES_MAX, '--jwks');
    if (bytes === undefined) throw new UsageError(`--jwks ${jwksFile} is larger than a JWKS of device keys can be`);
    const fromJwks = keyIdsOfJwks(bytes.toString('utf8'));
    if (typeof fromJwks === 'string') throw new UsageError(`--jwks ${jwksFile}: ${fromJwks}`);
    ids.push(...fromJwks);
  }
  return ids;
}

/** Why --require-key refused: the problem both outputs name. */
const KEY_NOT_NAMED = '--require-key was given but no device key was named (--key-id KID or --jwks KEYS_FILE)';

/** A JWKS of a few public keys is a few hundred bytes; anything far larger is the wrong file. */
const JWKS_BYTES_MAX = 64 * 1024;

/** `latch evidence verify FILE` checks a pack offline. */
export const evidenceVerifyCommand: Command = {
  name: 'evidence verify',
  summary: 'Check an evidence pack offline (no daemon, cloud or data directory needed)',
  usage: VERIFY_USAGE,
  async run(args, io) {
    try {
      const { flags, positionals } = parseCommandArgs(args, { json: 'boolean', agent: 'value', 'key-id': 'value', jwks: 'value', 'require-key': 'boolean' }, 1);
      const json = flags['json'] === true;
      const file = positionals[0];
      if (file === undefined) throw new UsageError('name the pack: latch evidence verify FILE');
      const expectedKeyIds = expectedKeys(stringFlag(flags, 'key-id'), stringFlag(flags, 'jwks'));
      // A script that demands pinning gets a failure of its own when its key did not reach the
      // command line (an empty variable), never an unpinned "ok".
      if (flags['require-key'] === true && expectedKeyIds === undefined) {
        if (json) writeLine(io.stdout, JSON.stringify({ ok: false, file, problem: KEY_NOT_NAMED }));
        else writeLine(io.stderr, `${file}: not checked: ${KEY_NOT_NAMED}.`);
        return EXIT.keyNotNamed;
      }
      // Read no more than a pack may be, so a wrong file is refused before it is loaded.
      const pack = readInputFile(file, EVIDENCE_BYTES_MAX, 'the pack');
      if (pack === undefined) {
        if (json) writeLine(io.stdout, JSON.stringify({ ok: false, file, problem: 'not an evidence pack: larger than any pack can be' }));
        else writeLine(io.stderr, `${file}: not an evidence pack: larger than any pack can be.`);
        return EXIT.verifyFailed;
      }
      const verdict = verifyEvidence(pack, expectedKeyIds === undefined ? {} : { expectedKeyIds });
      if (json) {
        writeLine(io.stdout, JSON.stringify(verdict.ok ? { ok: true, file, policy_id: verdict.policyId, key_id: verdict.keyId, key_pinned: verdict.keyPinned } : { ok: false, file, problem: verdict.problem }));
        return verdict.ok ? EXIT.ok : EXIT.verifyFailed;
      }
      if (verdict.ok && verdict.keyPinned) {
        writeLine(io.stdout, `${file}: the evidence pack of ${verdict.policyId} holds: signed by key ${verdict.keyId}, the device key you named, and every check passed.`);
        return EXIT.ok;
      }
      if (verdict.ok) {
        writeLine(io.stdout, `${file}: the evidence pack of ${verdict.policyId} is consistent with itself: signed by key ${verdict.keyId}, the key the pack carries, and every check passed.`);
        writeLine(io.stdout, `No device key was named, so this proves only internal consistency, not that this device signed it: name the device's key with --key-id KID or --jwks KEYS_FILE (latch status shows it).`);
        return EXIT.ok;
      }
      writeLine(io.stderr, `${file}: the evidence pack does not hold: ${verdict.problem}.`);
      return EXIT.verifyFailed;
    } catch (error) {
      return reportError(error, io, 'evidence verify');
    }
  },
};
