import type { Authorization, PendingApproval } from '../../client/types.js';
import { isPendingApproval } from '../../client/pending-approval.js';
import { EXIT } from '../exit-codes.js';
import { amountFlag, checkId, choiceFlag, integerFlag, optional, requiredFlag, stringFlag, authorizeOptions } from '../daemon-calls/command-args.js';
import { daemonCallCommand } from '../daemon-calls/daemon-call-command.js';
import { pendingApprovalLines } from '../daemon-calls/approval-views.js';
import { authorizationLines } from '../daemon-calls/views.js';
import { AUTHORIZATION_TYPES, RECURRING_INTERVALS, type RecurringInterval } from '../../core/model.js';

const USAGE = `Usage: latch recurring --card <card_id> --merchant <domain> --amount <decimal>
                       --interval day|week|month|year [--interval-count N]
                       [--type exact|ceiling] [--currency USD] [--starts-at <ISO time>]
                       [--ends-at <ISO time>] [--max-charges N] [--reference <text>] [--wait <seconds>] [--idempotency-key <key>] [--json]

Creates a recurring subscription authorization (POST /recurring): at most one approved charge
by this merchant per period, of at most the amount (--type ceiling, the default) or exactly it.

Options:
  --card ID               the card, e.g. card_…
  --merchant DOMAIN       the merchant's domain
  --amount DECIMAL        per period, e.g. 9.99
  --interval UNIT         day, week, month or year
  --interval-count N      periods of N units (default 1)
  --type exact|ceiling    default ceiling
  --currency CODE         default USD
  --starts-at TIME        ISO 8601 with a zone, e.g. 2026-12-01T00:00:00Z (default now)
  --ends-at TIME          when the schedule ends
  --max-charges N         stop after N approved charges
  --reference TEXT        what it is for (an order id or note, at most 200 characters);
                          signed into the authorization and kept in the audit log
  --wait SECONDS          when the owner must approve, wait up to this long (1-60) for the decision
  --idempotency-key KEY   repeat a request safely
  --json                  print the authorization object

Exit codes: 0 created; 10 waiting for the owner's approval (ap_…: latch approvals); 7 refused; 8 daemon unreachable; 9 cloud unavailable;
2 bad usage or a value the daemon refused.`;

/** `latch recurring` creates a recurring subscription authorization. */
export const recurringCommand = daemonCallCommand<Authorization | PendingApproval>({
  name: 'recurring',
  summary: 'Authorize a subscription: one charge per period, up to an amount',
  usage: USAGE,
  flags: {
    card: 'value',
    merchant: 'value',
    amount: 'value',
    interval: 'value',
    'interval-count': 'value',
    type: 'value',
    currency: 'value',
    'starts-at': 'value',
    'ends-at': 'value',
    'max-charges': 'value',
    'idempotency-key': 'value',
    reference: 'value',
    wait: 'value',
  },
  positionalsMax: 0,
  prepare: ({ flags }) => {
    const input = {
      card_id: checkId(requiredFlag(flags, 'card'), 'card', '--card'),
      merchant_name: requiredFlag(flags, 'merchant'),
      amount: amountFlag(flags, 'amount') ?? requiredFlag(flags, 'amount'),
      interval: choiceFlag(flags, 'interval', RECURRING_INTERVALS) ?? (requiredFlag(flags, 'interval') as RecurringInterval),
      ...optional('interval_count', integerFlag(flags, 'interval-count', 1, 365)),
      ...optional('authorization_type', choiceFlag(flags, 'type', AUTHORIZATION_TYPES)),
      ...optional('currency', stringFlag(flags, 'currency')),
      ...optional('starts_at', stringFlag(flags, 'starts-at')),
      ...optional('ends_at', stringFlag(flags, 'ends-at')),
      ...optional('max_charges', integerFlag(flags, 'max-charges', 1, 1000)),
      ...optional('reference', stringFlag(flags, 'reference')),
    };
    return (client) => client.recurring(input, authorizeOptions(flags));
  },
  human: (result) => (isPendingApproval(result) ? pendingApprovalLines(result) : authorizationLines(result, 'Recurring authorization created')),
  exitCode: (result) => (isPendingApproval(result) ? EXIT.pendingApproval : EXIT.ok),
});
