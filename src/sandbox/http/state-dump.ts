import { formatMinor } from '../../money/amount.js';
import { isoSeconds } from '../../time/iso-time.js';
import type { SandboxState } from '../ledger/state.js';
import { authorizationView, cardView, transactionView } from './views.js';

/**
 * stateDump is `GET /v1/sandbox/state`: everything tests need to check the ledger's invariants,
 * with the internal fields the cloud API hides (accounts, holds). It never includes secrets:
 * setup tokens appear without their hashes, idempotency records and nonces only as counts.
 */
export function stateDump(state: SandboxState, now: number): Record<string, unknown> {
  return {
    now: isoSeconds(now),
    clock_offset_seconds: state.clock_offset_seconds,
    journal_seq: state.seq,
    accounts: [...state.accounts.values()].map((account) => ({
      account_id: account.account_id,
      usdt: formatMinor(account.wallet.usdt),
      allocated: formatMinor(account.wallet.allocated),
      available: formatMinor(account.wallet.available),
    })),
    cards: [...state.cards.values()].map((card) => ({ ...cardView(state, card, now), account_id: card.account_id })),
    devices: [...state.devices.values()].map((device) => ({
      device_id: device.device_id,
      account_id: device.account_id,
      key_id: device.key_id,
      name: device.name,
      created_at: isoSeconds(device.created_at),
    })),
    setup_tokens: [...state.setup_tokens.values()].map((token) => ({ account_id: token.account_id, expires_at: isoSeconds(token.expires_at), used: token.used })),
    authorizations: [...state.authorizations.values()].map((authorization) => ({
      ...authorizationView(authorization, now),
      account_id: authorization.account_id,
      hold: formatMinor(authorization.hold),
    })),
    transactions: [...state.transactions.values()].map((transaction) => ({ ...transactionView(transaction), account_id: transaction.account_id })),
    idempotency_records: state.idempotency.size,
    remembered_nonces: state.nonces.size,
  };
}
