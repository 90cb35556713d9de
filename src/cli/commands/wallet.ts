import type { Wallet } from '../../client/types.js';
import { daemonCallCommand } from '../daemon-calls/daemon-call-command.js';
import { fields } from '../daemon-calls/views.js';

const USAGE = `Usage: latch wallet [--json]

Shows the wallet balance (GET /wallet/balance): the total in USDT, what is allocated to cards,
and what is available to allocate with 'latch allocate'.

Options:
  --json    print {usdt, allocated, available} (decimal strings)

Exit codes: 0 ok; 8 daemon unreachable; 9 cloud unavailable; 7 refused; 2 bad usage.`;

/** `latch wallet` shows the wallet balance. */
export const walletCommand = daemonCallCommand<Wallet>({
  name: 'wallet',
  summary: 'Show the wallet balance: total, allocated to cards, available',
  usage: USAGE,
  flags: {},
  positionalsMax: 0,
  prepare: () => (client) => client.wallet(),
  human: (wallet) =>
    fields([
      ['wallet', `${wallet.usdt} USDT`],
      ['allocated', `${wallet.allocated} USDT`],
      ['available', `${wallet.available} USDT`],
    ]),
});
