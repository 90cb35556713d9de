/**
 * The route table of the compatibility listener (127.0.0.1:7732, docs/decisions.md §2): exactly Variant
 * B's paths and shapes, every one behind the bearer token, /health included. Wallet allocation
 * is the owner's alone, with presence (docs/decisions.md §15.1, §21); every other route admits agents. Kept sorted by
 * pattern, then method (a test checks it).
 */
import type { CoreOperations } from '../operations/operations.js';
import type { Route } from '../http/route.js';
import { readHandlers } from '../variant-common/read-routes.js';
import { allocateHandler } from '../variant-common/wallet-allocation.js';
import { authorizeHandlerB } from './handlers.js';
import { allocationB, cardDetailB, cardSummaryB, transactionDetailB, transactionSummaryB, walletB } from './shapes.js';

/** What Variant B's routes call. */
export interface VariantBDeps {
  operations: CoreOperations;
  health: () => { version: string; uptimeSeconds: number };
}

/** variantBRoutes is Variant B's route table. */
export function variantBRoutes(deps: VariantBDeps): Route[] {
  const { operations } = deps;
  const reads = readHandlers(operations, {
    cardList: (cards) => ({ cards: cards.map(cardSummaryB) }),
    cardDetail: cardDetailB,
    transactionList: (page) => ({ transactions: page.transactions.map(transactionSummaryB) }),
    transactionDetail: transactionDetailB,
    wallet: walletB,
  });
  return [
    { method: 'POST', pattern: '/authorize', access: 'agents', handler: authorizeHandlerB(operations) },
    { method: 'GET', pattern: '/cards', access: 'agents', handler: reads.listCards },
    { method: 'GET', pattern: '/cards/:card_id', access: 'agents', handler: reads.getCard },
    { method: 'GET', pattern: '/health', access: 'agents', handler: () => healthAnswerB(deps.health()) },
    { method: 'GET', pattern: '/transactions', access: 'agents', handler: reads.listTransactions },
    { method: 'GET', pattern: '/transactions/:tx_id', access: 'agents', handler: reads.getTransaction },
    { method: 'POST', pattern: '/wallet/allocate', access: 'owner_present', handler: allocateHandler(operations, allocationB) },
    { method: 'GET', pattern: '/wallet/balance', access: 'agents', handler: reads.walletBalance },
  ];
}

/** B's health is exactly {status, version, uptime_seconds}; it does not read the key. */
function healthAnswerB(health: { version: string; uptimeSeconds: number }) {
  return { status: 200, body: { status: 'ok', version: health.version, uptime_seconds: health.uptimeSeconds } };
}
