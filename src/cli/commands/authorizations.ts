/**
 * `latch authorizations`: the authorizations this device signed, newest first, with who asked for
 * each and its status now (GET /authorizations). The owner sees all (or one agent's, --agent NAME);
 * an agent (LATCH_AGENT) sees its own.
 */
import type { OwnedAuthorization } from '../../client/types.js';
import { AUTHORIZATION_STATUSES, REQUEST_KINDS, X402_STATES } from '../../core/model.js';
import { isWireId } from '../../ids/wire-ids.js';
import { isAgentNameShape } from '../../ids/agent-name.js';
import { UsageError } from '../command.js';
import { checkId, choiceFlag, integerFlag, optional, stringFlag } from '../daemon-calls/command-args.js';
import { daemonCallCommand } from '../daemon-calls/daemon-call-command.js';
import { printable, table } from '../daemon-calls/views.js';

/** The statuses a listing filters on: a window's at the cloud, and an x402 payment's states. */
const STATUSES = [...AUTHORIZATION_STATUSES, ...X402_STATES.filter((state) => !(AUTHORIZATION_STATUSES as readonly string[]).includes(state))];

const USAGE = `Usage: latch authorizations [--agent NAME] [--card card_id] [--kind KIND] [--status STATUS] [--limit N]
                            [--starting-after pw_id|xa_id] [--json]

Lists the authorizations this device signed, newest first (GET /authorizations): who asked for
each, its card, merchant, amount, kind, status now (the cloud's: active, used, expired, revoked)
and when it expires. Listing also teaches the daemon what became of each (a used one frees its
budget to the charged amount).

Options:
  --agent NAME            only this agent's (or owner's); the command runs as the owner. Without
                          it, LATCH_AGENT set means the agent lists its own
  --card ID               only this card's
  --kind KIND             only this kind: ${REQUEST_KINDS.join(', ')}
  --status STATUS         only those in this status: ${STATUSES.join(', ')}
                          (an x402 payment's states: ${X402_STATES.join(', ')})
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
  flags: { limit: 'value', 'starting-after': 'value', card: 'value', status: 'value', kind: 'value' },
  positionalsMax: 0,
  agentFlagNamesSubject: true,
  prepare: ({ flags }) => {
    const agent = stringFlag(flags, 'agent');
    if (agent !== undefined && agent !== 'owner' && !isAgentNameShape(agent)) throw new UsageError('--agent must be an agent name (see latch agent list) or owner');
    const after = stringFlag(flags, 'starting-after');
    const card = stringFlag(flags, 'card');
    const query = {
      ...optional('limit', integerFlag(flags, 'limit', 1, 100)),
      ...optional('starting_after', after === undefined ? undefined : ledgerId(after)),
      ...optional('card_id', card === undefined ? undefined : checkId(card, 'card', '--card')),
      ...optional('status', choiceFlag(flags, 'status', STATUSES)),
      ...optional('kind', choiceFlag(flags, 'kind', REQUEST_KINDS)),
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
      idOf(a),
      a.created_at,
      printable(a.agent),
      printable(a.merchant_name),
      `${upTo(a) ? 'up to ' : ''}${a.amount} ${a.currency}`,
      a.kind,
      a.status,
      a.expires_at,
      a.card_id ?? '',
    ]),
  );
  const last = authorizations[authorizations.length - 1];
  return hasMore && last !== undefined ? [...rows, `More: latch authorizations --starting-after ${idOf(last)}`] : rows;
}

/** idOf is a listed authorization's id: a window's policy_id, an x402 payment's authorization_id (docs/x402.md). */
function idOf(authorization: OwnedAuthorization): string {
  const x402 = authorization as unknown as { authorization_id?: string };
  return authorization.policy_id ?? x402.authorization_id ?? '';
}

/** upTo reports whether the amount is a maximum: a ceiling window, or an x402 upto payment. */
function upTo(authorization: OwnedAuthorization): boolean {
  return authorization.authorization_type === 'ceiling' || (authorization as unknown as { scheme?: string }).scheme === 'upto';
}

/** ledgerId checks --starting-after: a policy id, or an x402 authorization's id. */
function ledgerId(value: string): string {
  if (isWireId('xa', value)) return value;
  return checkId(value, 'pw', '--starting-after');
}
