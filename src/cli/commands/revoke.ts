import type { OwnedAuthorization } from '../../client/types.js';
import { UsageError } from '../command.js';
import { checkId, stringFlag, writeOptions } from '../daemon-calls/command-args.js';
import { daemonCallCommand } from '../daemon-calls/daemon-call-command.js';
import { authorizationLines } from '../daemon-calls/views.js';
import { revokeAll } from '../daemon-calls/revoke-all.js';

const USAGE = `Usage: latch revoke <policy_id> [--reason <text>] [--idempotency-key <key>] [--json]
       latch revoke --all [--agent NAME] [--reason <text>] [--json]

Revokes an authorization before it is used (POST /authorizations/:policy_id/cancel): the daemon
signs a revocation with the device key, submits it to the cloud and releases the budget the
authorization held. A revoked authorization approves no further charge. Revoking one that is
already revoked succeeds and shows it as it is; a used or expired one is refused
(authorization_not_active). As an agent (LATCH_AGENT) it revokes that agent's own only.

With --all, revokes every active authorization this device signed (the same cancel for each one
GET /authorizations lists as active, until none is left) — the owner's brake for
what is already out there; pair it with latch pause so that nothing new is signed meanwhile. With
--agent NAME it runs as that agent, so it revokes that agent's authorizations only.

Options:
  --all                   revoke every active authorization (instead of one policy_id)
  --reason TEXT           why, kept with the revocation (at most 200 characters)
  --idempotency-key KEY   repeat the submission safely (one policy_id only)
  --json                  print the authorization with the agent that asked for it, or with
                          --all {revoked: [...], already_ended: [...]}

Exit codes: 0 revoked; 7 refused (authorization_not_found, not active ...); 8 daemon
unreachable; 9 cloud unavailable; 2 bad usage.`;

/** `latch revoke <policy_id>` signs and submits a revocation. */
export const revokeCommand = daemonCallCommand<OwnedAuthorization | RevokeAllAnswer>({
  name: 'revoke',
  summary: 'Revoke an authorization, or --all of them (the daemon signs and submits the revocation)',
  usage: USAGE,
  flags: { reason: 'value', 'idempotency-key': 'value', all: 'boolean' },
  positionalsMax: 1,
  prepare: ({ flags, positionals }) => {
    const reason = stringFlag(flags, 'reason');
    if (flags['all'] === true) {
      if (positionals.length > 0) throw new UsageError('give either a policy_id or --all, not both');
      if (flags['idempotency-key'] !== undefined) throw new UsageError('--idempotency-key applies to one policy_id, not --all');
      return async (client) => {
        const done = await revokeAll(client, { reason: reason ?? 'revoked with latch revoke --all' });
        return { revoked: done.revoked, already_ended: done.alreadyEnded };
      };
    }
    const policyId = positionals[0];
    if (policyId === undefined) throw new UsageError('the policy_id to revoke is required (or --all)');
    checkId(policyId, 'pw', 'policy_id');
    return (client) => client.revoke({ policy_id: policyId, ...(reason !== undefined && { reason }) }, writeOptions(flags));
  },
  human: (answer) => {
    if (!('revoked' in answer)) return authorizationLines(answer, 'Revoked');
    const lines = answer.revoked.map((id) => `Revoked ${id}.`);
    if (answer.already_ended.length > 0) lines.push(`${answer.already_ended.length} ended on their own meanwhile (used or expired): ${answer.already_ended.join(', ')}.`);
    lines.push(answer.revoked.length === 0 ? 'No active authorization was left to revoke.' : `Revoked ${answer.revoked.length} authorization${answer.revoked.length === 1 ? '' : 's'}.`);
    return lines;
  },
});

/** What --all prints with --json. */
interface RevokeAllAnswer {
  revoked: string[];
  already_ended: string[];
}
