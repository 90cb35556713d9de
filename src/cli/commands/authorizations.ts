/**
 * `latch authorizations`: the authorizations this device signed, newest first, with who asked for
 * each and its status now (GET /authorizations). The owner sees all (or one agent's, --agent NAME);
 * an agent (LATCH_AGENT) sees its own.
 */
import type { OwnedAuthorization } from '../../client/types.js';
import { AUTHORIZATION_STATUSES } from '../../core/model.js';
import { isAgentNameShape } from '../../ids/agent-name.js';
import { UsageError } from '../command.js';
import { checkId, choiceFlag, integerFlag, optional, stringFlag } from '../daemon-calls/command-args.js';
import { daemonCallCommand } from '../daemon-calls/daemon-call-command.js';
import { printable, table } from '../daemon-calls/views.js';

const USAGE = `Usage: latch authorizations [--agent NAME] [--card card_id] [--status STATUS] [--limit N]
                            [--starting-after pw_id] [--json]

Lists the authorizations this device signed, newest first (GET /authorizations): who asked for
each, its card, merchant, amount, kind, status now (the cloud's: active, used, expired, revoked)
and when it expires. Listing also teaches the daemon what became of each (a used one frees its
budget to the charged amount).

Options:
  --agent NAME            only this agent's (or owner's); the command runs as the owner. Without
                          it, LATCH_AGENT set means the agent lists its own
  --card ID               only this card's
  --status STATUS         only those in this status: ${AUTHORIZATION_STATUSES.join(', ')}
  --limit N               1 to 100, default 20
  --starting-after ID     the page after this authorization
  --json                  print {authorizations: [...], has_more}

Exit codes: 0 ok; 2 bad usage; 7 refused; 8 daemon unreachable; 9 cloud unavailable.`;

interface AuthorizationPage {
  authorizations: OwnedAuthorization[];
  has_more: boolean;
}

/** `latch authorizations` lists authorizations with their callers. */
export const authorizationsCommand = daemonCallCommand<AuthorizationPage>({
  name: 'authorizations',
  summary: 'List the authorizations this device signed, with who asked and their status now',
  usage: USAGE,
  flags: { limit: 'value', 'starting-after': 'value', card: 'value', status: 'value' },
  positionalsMax: 0,
  agentFlagNamesSubject: true,
  prepare: ({ flags }) => {
    const agent = stringFlag(flags, 'agent');
    if (agent !== undefined && agent !== 'owner' && !isAgentNameShape(agent)) throw new UsageError('--agent must be an agent name (see latch agent list) or owner');
    const after = stringFlag(flags, 'starting-after');
    const card = stringFlag(flags, 'card');
    const query = {
      ...optional('limit', integerFlag(flags, 'limit', 1, 100)),
      ...optional('starting_after', after === undefined ? undefined : checkId(after, 'pw', '--starting-after')),
      ...optional('card_id', card === undefined ? undefined : checkId(card, 'card', '--card')),
      ...optional('status', choiceFlag(flags, 'status', AUTHORIZATION_STATUSES)),
      ...optional('agent', agent),
    };
    return (client) => client.authorizations(query);
  },
  human: ({ authorizations, has_more }) => authorizationRows(authorizations, has_more),
});

/** authorizationRows is the table of a page of authorizations, with the next page's command. */
export function authorizationRows(authorizations: readonly OwnedAuthorization[], hasMore: boolean): string[] {
  if (authorizations.length === 0) return ['No authorizations.'];
  const rows = table(
    ['AUTHORIZATION', 'CREATED', 'AGENT', 'MERCHANT', 'AMOUNT', 'KIND', 'STATUS', 'EXPIRES', 'CARD'],
    authorizations.map((a) => [
      a.policy_id,
      a.created_at,
      printable(a.agent),
      printable(a.merchant_name),
      `${a.authorization_type === 'ceiling' ? 'up to ' : ''}${a.amount} ${a.currency}`,
      a.kind,
      a.status,
      a.expires_at,
      a.card_id ?? '',
    ]),
  );
  const last = authorizations[authorizations.length - 1];
  return hasMore && last !== undefined ? [...rows, `More: latch authorizations --starting-after ${last.policy_id}`] : rows;
}
