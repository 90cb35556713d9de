import type { TransactionDetail, TransactionPage } from '../../client/types.js';
import { UsageError } from '../command.js';
import { checkId, choiceFlag, integerFlag, optional, stringFlag } from '../daemon-calls/command-args.js';
import { daemonCallCommand } from '../daemon-calls/daemon-call-command.js';
import { transactionDetail, transactionRows } from '../daemon-calls/views.js';
import { TRANSACTION_STATUSES } from '../../operations/read-model.js';

const USAGE = `Usage: latch transactions [tx_id] [--limit N] [--starting-after tx_id] [--card card_id]
                          [--status authorized|settled|expired|revoked|declined] [--json]

Lists transactions, newest first (GET /transactions), or shows one with the signed policy window
it was made under (GET /transactions/:tx_id).

Options:
  --limit N               1 to 100, default 20
  --starting-after ID     the page after this transaction
  --card ID               only this card's transactions
  --status STATUS         only transactions in this status
  --json                  print {transactions: [...], has_more} or the single transaction

Exit codes: 0 ok; 7 refused (transaction_not_found ...); 8 daemon unreachable; 9 cloud
unavailable; 2 bad usage.`;

const STATUSES = TRANSACTION_STATUSES;

/** `latch transactions [tx_id]` lists transactions or shows one. */
export const transactionsCommand = daemonCallCommand<TransactionPage | TransactionDetail>({
  name: 'transactions',
  summary: 'List transactions, or show one with its signed policy window',
  usage: USAGE,
  flags: { limit: 'value', 'starting-after': 'value', card: 'value', status: 'value' },
  positionalsMax: 1,
  prepare: ({ flags, positionals }) => {
    const txId = positionals[0];
    if (txId !== undefined) {
      checkId(txId, 'tx', 'tx_id');
      if (Object.keys(flags).some((name) => name !== 'json')) throw new UsageError('filters apply to the list only, not to one transaction');
      return (client) => client.transaction(txId);
    }
    const after = stringFlag(flags, 'starting-after');
    const card = stringFlag(flags, 'card');
    const query = {
      ...optional('limit', integerFlag(flags, 'limit', 1, 100)),
      ...optional('starting_after', after === undefined ? undefined : checkId(after, 'tx', '--starting-after')),
      ...optional('card_id', card === undefined ? undefined : checkId(card, 'card', '--card')),
      ...optional('status', choiceFlag(flags, 'status', STATUSES)),
    };
    return (client) => client.transactions(query);
  },
  human: (result) => ('transactions' in result ? transactionRows(result.transactions, result.has_more) : transactionDetail(result)),
});
