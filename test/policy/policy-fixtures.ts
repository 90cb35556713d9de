import type { PolicyRequest } from '../../src/policy/evaluate.js';
import type { LedgerEntry } from '../../src/policy/usage-ledger.js';

/** A fixed clock: 2023-11-14T22:13:20Z. */
export const T0 = 1_700_000_000;
export const DAY = 86_400;

/** The example policy of docs/decisions.md §15.3. */
export const SPEC_POLICY = `{
  "v": 1,
  "default": "allow",
  "new_merchant": "ask",
  "approval_ttl_seconds": 900,
  "rules": [
    { "id": "groceries", "agents": ["shopper"], "merchants": ["grocer.example", "*.grocer.example"],
      "max_amount": "150.00", "decision": "allow" },
    { "id": "large", "min_amount": "50.00", "decision": "ask" },
    { "id": "no-subscriptions", "agents": ["shopper"], "kinds": ["recurring"], "decision": "deny" }
  ],
  "budgets": [
    { "id": "shopper-daily", "agents": ["shopper"], "per": "day", "limit": "200.00", "over": "deny" },
    { "id": "everyone-monthly", "per": "month", "limit": "1000.00", "over": "ask" }
  ],
  "velocity": [
    { "id": "burst", "agents": ["*"], "per_seconds": 3600, "max_count": 10, "over": "deny" }
  ]
}`;

/** request builds the facts of a request: the agent `shopper` paying 10.00 USD at grocer.example by default. */
export function request(overrides: Partial<PolicyRequest> = {}): PolicyRequest {
  const agent = overrides.agent ?? 'shopper';
  return {
    agent,
    isOwner: agent === 'owner',
    cardId: 'card_a1',
    merchant: 'grocer.example',
    kind: 'one_time',
    currency: 'USD',
    amountMinor: 1_000,
    nowSeconds: T0,
    ...overrides,
  };
}

let entryNumber = 0;

/** entry builds a ledger entry with a fresh id; by default what `request()` would reserve. */
export function entry(overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  entryNumber++;
  return {
    id: `pw_test${entryNumber}`,
    agent: 'shopper',
    cardId: 'card_a1',
    merchant: 'grocer.example',
    currency: 'USD',
    amountMinor: 1_000,
    atSeconds: T0,
    ...overrides,
  };
}

/** entryFor is the ledger entry that reserves exactly `req`. */
export function entryFor(req: PolicyRequest): LedgerEntry {
  return entry({ agent: req.agent, cardId: req.cardId, merchant: req.merchant, currency: req.currency, amountMinor: req.amountMinor, atSeconds: req.nowSeconds });
}
