import type { Authorization, PendingApproval } from '../../client/types.js';
import { isPendingApproval } from '../../client/pending-approval.js';
import { EXIT } from '../exit-codes.js';
import { amountFlag, checkId, integerFlag, optional, requiredFlag, stringFlag, authorizeOptions } from '../daemon-calls/command-args.js';
import { daemonCallCommand } from '../daemon-calls/daemon-call-command.js';
import { pendingApprovalLines } from '../daemon-calls/approval-views.js';
import { authorizationLines } from '../daemon-calls/views.js';
import { TTL_MINUTES_MAX, TTL_MINUTES_MIN } from '../../validate/ttl.js';

const USAGE = `Usage: latch merchant-bind --card <card_id> --merchant <domain> [--amount <decimal>]
                           [--currency USD] [--ttl <minutes>] [--reference <text>] [--wait <seconds>] [--idempotency-key <key>] [--json]

Creates a merchant-verification authorization (POST /merchant-bind) for a merchant's first-add
card check: amount 0.00 by default and at most 1.00, lifetime 10 minutes by default. The cloud
caps these at 3 per card per rolling 24 hours (verification_cap_exceeded beyond that).

Options:
  --card ID               the card, e.g. card_…
  --merchant DOMAIN       the merchant's domain
  --amount DECIMAL        default 0; at most 1.00
  --currency CODE         default USD
  --ttl MINUTES           default 10
  --reference TEXT        what it is for (an order id or note, at most 200 characters);
                          signed into the authorization and kept in the audit log
  --wait SECONDS          when the owner must approve, wait up to this long (1-60) for the decision
  --idempotency-key KEY   repeat a request safely
  --json                  print the authorization object

Exit codes: 0 created; 10 waiting for the owner's approval (ap_…: latch approvals); 7 refused (verification_cap_exceeded ...); 8 daemon unreachable;
9 cloud unavailable; 2 bad usage or a value the daemon refused.`;

/** `latch merchant-bind` creates a capped merchant-verification authorization. */
export const merchantBindCommand = daemonCallCommand<Authorization | PendingApproval>({
  name: 'merchant-bind',
  summary: "Authorize a merchant's card check (0.00 to 1.00, capped by the cloud)",
  usage: USAGE,
  flags: { card: 'value', merchant: 'value', amount: 'value', currency: 'value', ttl: 'value', 'idempotency-key': 'value', reference: 'value', wait: 'value' },
  positionalsMax: 0,
  prepare: ({ flags }) => {
    const input = {
      card_id: checkId(requiredFlag(flags, 'card'), 'card', '--card'),
      merchant_name: requiredFlag(flags, 'merchant'),
      ...optional('amount', amountFlag(flags, 'amount')),
      ...optional('currency', stringFlag(flags, 'currency')),
      ...optional('ttl_minutes', integerFlag(flags, 'ttl', TTL_MINUTES_MIN, TTL_MINUTES_MAX)),
      ...optional('reference', stringFlag(flags, 'reference')),
    };
    return (client) => client.merchantBind(input, authorizeOptions(flags));
  },
  human: (result) => (isPendingApproval(result) ? pendingApprovalLines(result) : authorizationLines(result, 'Merchant verification authorized')),
  exitCode: (result) => (isPendingApproval(result) ? EXIT.pendingApproval : EXIT.ok),
});
