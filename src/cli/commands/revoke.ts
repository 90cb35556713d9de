import type { Cancellation } from '../../client/types.js';
import { UsageError } from '../command.js';
import { checkId, stringFlag, writeOptions } from '../daemon-calls/command-args.js';
import { daemonCallCommand } from '../daemon-calls/daemon-call-command.js';
import { authorizationLines } from '../daemon-calls/views.js';

const USAGE = `Usage: latch revoke <policy_id> [--reason <text>] [--idempotency-key <key>] [--json]

Revokes an authorization before it is used: the daemon signs a revocation with the device key
(POST /sign-revocation), then the CLI submits it to the cloud through the signing proxy
(POST /v1/authorizations/:policy_id/revoke). A revoked authorization approves no further charge.
Revoking one that is already revoked succeeds and shows it as it is; a used or expired one is
refused (authorization_not_active).

Options:
  --reason TEXT           why, kept with the revocation (at most 200 characters)
  --idempotency-key KEY   repeat the submission safely
  --json                  print {revocation: {revocation, jws, key_id}, authorization}

Exit codes: 0 revoked; 7 refused (authorization_not_found, not active ...); 8 daemon
unreachable; 9 cloud unavailable; 2 bad usage.`;

/** `latch revoke <policy_id>` signs and submits a revocation. */
export const revokeCommand = daemonCallCommand<Cancellation>({
  name: 'revoke',
  summary: 'Revoke an authorization (sign a revocation, submit it to the cloud)',
  usage: USAGE,
  flags: { reason: 'value', 'idempotency-key': 'value' },
  positionalsMax: 1,
  prepare: ({ flags, positionals }) => {
    const policyId = positionals[0];
    if (policyId === undefined) throw new UsageError('the policy_id to revoke is required');
    checkId(policyId, 'pw', 'policy_id');
    const reason = stringFlag(flags, 'reason');
    return (client) => client.revoke({ policy_id: policyId, ...(reason !== undefined && { reason }) }, writeOptions(flags));
  },
  human: (cancellation) => authorizationLines(cancellation.authorization, 'Revoked'),
});
