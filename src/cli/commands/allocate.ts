import type { Allocation } from '../../client/types.js';
import { amountFlag, checkId, requiredFlag, writeOptions } from '../daemon-calls/command-args.js';
import { daemonCallCommand } from '../daemon-calls/daemon-call-command.js';

const USAGE = `Usage: latch allocate --card <card_id> --amount <decimal> [--idempotency-key <key>] [--json]

Moves funds from the wallet to a card (POST /wallet/allocate), 1 USDT to 1 USD. Ask the user
before allocating: it moves their money.

Options:
  --card ID               the card, e.g. card_…
  --amount DECIMAL        e.g. 25.00
  --idempotency-key KEY   repeat a request safely
  --json                  print {card_id, allocated, new_balance}

Exit codes: 0 allocated; 7 refused (insufficient_funds, card_not_found ...); 8 daemon
unreachable; 9 cloud unavailable; 2 bad usage or a value the daemon refused.`;

/** `latch allocate` moves wallet funds to a card. */
export const allocateCommand = daemonCallCommand<Allocation>({
  name: 'allocate',
  summary: 'Move wallet funds to a card',
  usage: USAGE,
  flags: { card: 'value', amount: 'value', 'idempotency-key': 'value' },
  positionalsMax: 0,
  prepare: ({ flags }) => {
    const input = { card_id: checkId(requiredFlag(flags, 'card'), 'card', '--card'), amount: amountFlag(flags, 'amount') ?? requiredFlag(flags, 'amount') };
    return (client) => client.allocate(input, writeOptions(flags));
  },
  human: (allocation) => [`Allocated ${allocation.allocated} to ${allocation.card_id}; its balance is now ${allocation.new_balance}.`],
});
