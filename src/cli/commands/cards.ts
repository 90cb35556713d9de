import type { CardDetail, CardList } from '../../client/types.js';
import { checkId } from '../daemon-calls/command-args.js';
import { daemonCallCommand } from '../daemon-calls/daemon-call-command.js';
import { cardDetail, cardRows } from '../daemon-calls/views.js';

const USAGE = `Usage: latch cards [card_id] [--json]

Lists the account's cards (GET /cards), or shows one card with its daily limit and what was spent
today (GET /cards/:card_id). Only safe metadata: id, label, last four digits, status, balance.
Card numbers and CVVs are never shown or accepted.

Options:
  --json    print the daemon's object: {cards: [...]} or the single card

Exit codes: 0 ok; 7 refused (card_not_found ...); 8 daemon unreachable; 9 cloud unavailable;
2 bad usage; 3 unusable token file; 1 anything else.`;

/** `latch cards [card_id]` lists cards or shows one. */
export const cardsCommand = daemonCallCommand<CardList | CardDetail>({
  name: 'cards',
  summary: 'List cards, or show one card with its daily limit',
  usage: USAGE,
  flags: {},
  positionalsMax: 1,
  prepare: ({ positionals }) => {
    const cardId = positionals[0];
    if (cardId === undefined) return (client) => client.cards();
    checkId(cardId, 'card', 'card_id');
    return (client) => client.card(cardId);
  },
  human: (result) => ('cards' in result ? cardRows(result.cards) : cardDetail(result)),
});
