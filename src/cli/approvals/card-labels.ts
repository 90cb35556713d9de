import type { LatchClient } from '../../client/latch-client.js';

/**
 * cardLabels maps card ids to their labels, so the owner sees "Groceries (card_…)" rather than an
 * id alone. It is a convenience: when the cards cannot be read (an agent's token, the cloud is
 * down) the ids are shown without labels.
 */
export async function cardLabels(client: LatchClient): Promise<Map<string, string>> {
  try {
    const { cards } = await client.cards();
    return new Map(cards.map((card) => [card.card_id, card.label]));
  } catch {
    return new Map();
  }
}
