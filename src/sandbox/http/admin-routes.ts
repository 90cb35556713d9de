/**
 * The sandbox-only endpoints under /v1/sandbox/ (docs/decisions.md §12), guarded by the admin key: what a
 * dashboard and a card network would do to a real cloud, plus a movable ledger clock and a dump.
 */
import { invalidRequest } from '../../errors/latch-error.js';
import type { Route } from '../../http/route.js';
import { LOOKUP_ID_SHAPE } from '../../ids/wire-ids.js';
import { isoSeconds } from '../../time/iso-time.js';
import { normalizeMerchant } from '../../validate/merchant.js';
import { amount, int, oneOf, parsedStr, str, validateBody } from '../../validate/schema.js';
import {
  DEFAULT_DAILY_LIMIT_MINOR,
  SETUP_TOKEN_LIFETIME_SECONDS,
  WALLET_MINOR_MAX,
  createCard,
  createSetupToken,
  deposit,
  updateCard,
} from '../ops/accounts.js';
import { charge } from '../ops/charge.js';
import { removeDevice } from '../ops/devices.js';
import { adminRoute } from './guards.js';
import type { SandboxContext } from './sandbox-context.js';
import { stateDump } from './state-dump.js';
import { cardView, transactionView, walletView } from './views.js';

const ID_TEXT = { maxLength: 80, pattern: LOOKUP_ID_SHAPE, describe: 'an id like acct_...' } as const;
const LABEL_TEXT = { maxLength: 64 } as const;
/** Setup tokens live 1 second to 7 days; the default is 15 minutes. */
const SETUP_TOKEN_LIFETIME_MAX = 7 * 86_400;
/** The clock moves at most ten years per call. */
const CLOCK_ADVANCE_MAX = 10 * 366 * 86_400;
/** The clock runs at most ten years ahead of the real clock in all. */
const CLOCK_OFFSET_MAX = 10 * 366 * 86_400;
const CURRENCY_TEXT = { pattern: /^[A-Z]{3}$/, describe: 'three upper-case letters', maxLength: 3 } as const;

/** adminRoutes returns the `/v1/sandbox` route table. */
export function adminRoutes(sandbox: SandboxContext): Route[] {
  const route = (method: Route['method'], pattern: string, handler: Route['handler']): Route => ({ method, pattern, access: 'public', handler });
  return [
    // Not idempotent: its answer holds a secret, which is never written to the journal.
    route('POST', '/v1/sandbox/setup-tokens', adminRoute(sandbox, false, (txn, context) => {
      const input = validateBody(context.body, {
        account_id: str(ID_TEXT),
        lifetime_seconds: int({ min: 1, max: SETUP_TOKEN_LIFETIME_MAX, default: SETUP_TOKEN_LIFETIME_SECONDS }),
      });
      const token = createSetupToken(txn, input.account_id, input.lifetime_seconds);
      return { status: 201, body: { setup_token: token.token, expires_at: isoSeconds(token.expiresAt), account_id: token.accountId } };
    })),
    route('POST', '/v1/sandbox/deposits', adminRoute(sandbox, true, (txn, context) => {
      const input = validateBody(context.body, { account_id: str({ required: true, ...ID_TEXT }), amount: amount({ required: true, maxMinor: WALLET_MINOR_MAX }) });
      return { status: 200, body: walletView(deposit(txn, input.account_id, input.amount)) };
    })),
    route('POST', '/v1/sandbox/cards', adminRoute(sandbox, true, (txn, context) => {
      const input = validateBody(context.body, {
        account_id: str({ required: true, ...ID_TEXT }),
        label: str({ required: true, ...LABEL_TEXT }),
        daily_limit: amount({ allowZero: true, maxMinor: WALLET_MINOR_MAX, default: DEFAULT_DAILY_LIMIT_MINOR }),
        balance: amount({ allowZero: true, maxMinor: WALLET_MINOR_MAX, default: 0 }),
      });
      const card = createCard(txn, { accountId: input.account_id, label: input.label, dailyLimit: input.daily_limit, balance: input.balance });
      return { status: 201, body: cardView(txn.state, card, txn.now) };
    })),
    route('PATCH', '/v1/sandbox/cards/:card_id', adminRoute(sandbox, true, (txn, context) => {
      const input = validateBody(context.body, {
        label: str(LABEL_TEXT),
        daily_limit: amount({ allowZero: true, maxMinor: WALLET_MINOR_MAX }),
        status: oneOf(['closed'] as const),
      });
      const card = updateCard(txn, context.params['card_id'] as string, { label: input.label, dailyLimit: input.daily_limit, close: input.status === 'closed' });
      return { status: 200, body: cardView(txn.state, card, txn.now) };
    })),
    route('POST', '/v1/sandbox/charges', adminRoute(sandbox, true, (txn, context) => {
      const input = validateBody(context.body, {
        card_id: str({ required: true, ...ID_TEXT }),
        merchant: parsedStr(normalizeMerchant, { required: true, maxLength: 1024 }),
        amount: amount({ required: true, allowZero: true, maxMinor: WALLET_MINOR_MAX }),
        currency: str({ ...CURRENCY_TEXT, default: 'USD' }),
      });
      const result = charge(txn, { cardId: input.card_id, merchant: input.merchant, amount: input.amount, currency: input.currency });
      const body: Record<string, unknown> = { decision: result.decision };
      if (result.declineCode !== null) body['decline_code'] = result.declineCode;
      body['transaction'] = transactionView(result.transaction);
      return { status: 200, body };
    })),
    route('POST', '/v1/sandbox/clock', adminRoute(sandbox, true, (txn, context) => {
      const input = validateBody(context.body, {
        advance_seconds: int({ min: 1, max: CLOCK_ADVANCE_MAX }),
        offset_seconds: int({ min: 0, max: CLOCK_OFFSET_MAX }),
      });
      if ((input.advance_seconds === undefined) === (input.offset_seconds === undefined)) {
        throw invalidRequest('advance_seconds', 'Send exactly one of advance_seconds (move the clock forward) or offset_seconds (set how far ahead of the real clock it runs; 0 resets it).');
      }
      const before = txn.state.clock_offset_seconds;
      if (input.advance_seconds !== undefined) {
        if (before + input.advance_seconds > CLOCK_OFFSET_MAX) throw invalidRequest('advance_seconds', `The sandbox clock runs at most ${CLOCK_OFFSET_MAX} seconds ahead; reset it with {"offset_seconds": 0}.`);
        txn.emit({ type: 'clock_advanced', seconds: input.advance_seconds });
      } else {
        txn.emit({ type: 'clock_set', offset_seconds: input.offset_seconds as number });
      }
      const offset = txn.state.clock_offset_seconds;
      return { status: 200, body: { now: isoSeconds(txn.now - before + offset), clock_offset_seconds: offset } };
    })),
    route('GET', '/v1/sandbox/clock', adminRoute(sandbox, false, (txn) => ({ status: 200, body: { now: isoSeconds(txn.now), clock_offset_seconds: txn.state.clock_offset_seconds } }))),
    route('GET', '/v1/sandbox/state', adminRoute(sandbox, false, (txn) => ({ status: 200, body: stateDump(txn.state, txn.now) }))),
    route('DELETE', '/v1/sandbox/devices/:device_id', adminRoute(sandbox, false, (txn, context) => {
      const device = removeDevice(txn, context.params['device_id'] as string);
      return { status: 200, body: { device_id: device.device_id, key_id: device.key_id, deleted: true } };
    })),
  ];
}
