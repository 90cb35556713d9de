import type { Authorization, PendingApproval } from '../../client/types.js';
import { isPendingApproval } from '../../client/pending-approval.js';
import { EXIT } from '../exit-codes.js';
import { amountFlag, checkId, choiceFlag, integerFlag, optional, requiredFlag, stringFlag, authorizeOptions } from '../daemon-calls/command-args.js';
import { daemonCallCommand } from '../daemon-calls/daemon-call-command.js';
import { pendingApprovalLines } from '../daemon-calls/approval-views.js';
import { authorizationLines } from '../daemon-calls/views.js';
import { TTL_MINUTES_MAX, TTL_MINUTES_MIN } from '../../validate/ttl.js';
import { AUTHORIZATION_TYPES } from '../../core/model.js';

const USAGE = `Usage: latch authorize --card <card_id> --amount <decimal> --merchant <domain>
                       [--currency USD] [--type exact|ceiling] [--ttl <minutes>]
                       [--reference <text>] [--wait <seconds>] [--idempotency-key <key>] [--json]

Creates a scoped authorization (POST /authorize): the card may be charged once by exactly this
merchant domain, for exactly the amount (--type exact, the default) or at most it (--type
ceiling), within --ttl minutes (default 30, at most ${TTL_MINUTES_MAX}). The daemon signs it with the device
key and submits it to the cloud.

If it is refused, nothing is retried with another merchant, a larger amount or a longer TTL:
those would be a different authorization, which needs the user's approval.

Options:
  --card ID               the card, e.g. card_… (see latch cards)
  --amount DECIMAL        e.g. 12.50; exact decimal text, at most two decimals
  --merchant DOMAIN       the merchant's domain, e.g. shop.example.com (exact match, no wildcards)
  --currency CODE         default USD (the card's currency)
  --type exact|ceiling    default exact
  --ttl MINUTES           lifetime, default 30
  --reference TEXT        what it is for (an order id or note, at most 200 characters);
                          signed into the authorization and kept in the audit log
  --wait SECONDS          when the owner must approve, wait up to this long (1-60) for the decision
  --idempotency-key KEY   repeat a request safely: the same key and values give the same result
  --json                  print the authorization object

Exit codes: 0 authorized; 10 waiting for the owner's approval (ap_…: latch approvals; with --wait,
not decided in time); 7 refused (by the policy, the pause or the lockout, insufficient_funds,
card_not_found, scope, an approval denied ...); 8 the daemon is unreachable or did not prove it is
the daemon; 9 the cloud is unavailable; 3 the token file or another data file (policy.json) is
unusable; 2 bad usage or a value the daemon refused; 1 no answer from the daemon (daemon_no_answer:
repeat with the --idempotency-key it prints) or an unexpected failure.`;

/** `latch authorize` creates a scoped card authorization. */
export const authorizeCommand = daemonCallCommand<Authorization | PendingApproval>({
  name: 'authorize',
  summary: 'Authorize one payment: this card, this merchant, this amount, for a few minutes',
  usage: USAGE,
  flags: { card: 'value', amount: 'value', merchant: 'value', currency: 'value', type: 'value', ttl: 'value', 'idempotency-key': 'value', reference: 'value', wait: 'value' },
  positionalsMax: 0,
  prepare: ({ flags }) => {
    const input = {
      card_id: checkId(requiredFlag(flags, 'card'), 'card', '--card'),
      amount: amountFlag(flags, 'amount') ?? requiredFlag(flags, 'amount'),
      merchant_name: requiredFlag(flags, 'merchant'),
      ...optional('currency', stringFlag(flags, 'currency')),
      ...optional('authorization_type', choiceFlag(flags, 'type', AUTHORIZATION_TYPES)),
      ...optional('ttl_minutes', integerFlag(flags, 'ttl', TTL_MINUTES_MIN, TTL_MINUTES_MAX)),
      ...optional('reference', stringFlag(flags, 'reference')),
    };
    return (client) => client.authorize(input, authorizeOptions(flags));
  },
  human: (result) => (isPendingApproval(result) ? pendingApprovalLines(result) : authorizationLines(result, 'Authorized')),
  exitCode: (result) => (isPendingApproval(result) ? EXIT.pendingApproval : EXIT.ok),
});

