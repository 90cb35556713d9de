/**
 * Readers for the cloud's answers. The cloud is outside the trust boundary: every field is
 * checked, money is parsed from decimal text, and anything off-shape is upstream_unavailable.
 */
import { parseAmountText } from '../money/amount.js';
import type { Allocation, Authorization, AuthorizationKind, AuthorizationStatus, AuthorizationType, RecurringInterval } from '../core/model.js';
import type { Card, CardStatus, PolicyWindowView, Transaction, TransactionStatus, Wallet } from '../operations/read-model.js';
import { unexpectedShape } from './cloud-errors.js';
import { AUTHORIZATION_KINDS, AUTHORIZATION_STATUSES, AUTHORIZATION_TYPES, RECURRING_INTERVALS } from '../core/model.js';
import { CARD_STATUSES, TRANSACTION_STATUSES } from '../operations/read-model.js';

type Json = Record<string, unknown>;

function str(object: Json, name: string): string {
  const value = object[name];
  if (typeof value !== 'string' || value.length > 4096) throw unexpectedShape();
  return value;
}

function strOrNull(object: Json, name: string): string | null {
  return object[name] === null || object[name] === undefined ? null : str(object, name);
}

function oneOf<T extends string>(object: Json, name: string, allowed: readonly T[]): T {
  const value = str(object, name);
  if (!(allowed as readonly string[]).includes(value)) throw unexpectedShape();
  return value as T;
}

function money(object: Json, name: string): number {
  const text = str(object, name);
  try {
    return parseAmountText(text, { param: name, allowZero: true });
  } catch {
    throw unexpectedShape();
  }
}

function time(object: Json, name: string): number {
  const value = object[name];
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  const millis = Date.parse(str(object, name));
  if (Number.isNaN(millis)) throw unexpectedShape();
  return Math.floor(millis / 1000);
}

function timeOrNull(object: Json, name: string): number | null {
  return object[name] === null || object[name] === undefined ? null : time(object, name);
}

function intOrNull(object: Json, name: string): number | null {
  const value = object[name];
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw unexpectedShape();
  return value;
}

function obj(value: unknown): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw unexpectedShape();
  return value as Json;
}

function list(object: Json, name: string): unknown[] {
  const value = object[name];
  if (!Array.isArray(value)) throw unexpectedShape();
  return value;
}

/**
 * readHolds reads a card's `held` and `available` (additive v1 fields): both or neither, and
 * available + held must equal the balance, so a card never shows numbers that do not add up.
 */
function readHolds(o: Json, balanceMinor: number): { heldMinor: number | null; availableMinor: number | null } {
  if (o['held'] === undefined && o['available'] === undefined) return { heldMinor: null, availableMinor: null };
  const heldMinor = money(o, 'held');
  const availableMinor = money(o, 'available');
  if (heldMinor + availableMinor !== balanceMinor) throw unexpectedShape();
  return { heldMinor, availableMinor };
}

/** readCard reads a cloud card. */
export function readCard(value: unknown): Card {
  const o = obj(value);
  const balanceMinor = money(o, 'balance');
  return {
    cardId: str(o, 'card_id'),
    label: str(o, 'label'),
    last4: str(o, 'last4'),
    status: oneOf<CardStatus>(o, 'status', CARD_STATUSES),
    balanceMinor,
    ...readHolds(o, balanceMinor),
    currency: str(o, 'currency'),
    dailyLimitMinor: money(o, 'daily_limit'),
    dailySpentMinor: money(o, 'daily_spent'),
  };
}

/** readCardList reads `{cards: [...]}`. */
export function readCardList(value: unknown): Card[] {
  return list(obj(value), 'cards').map(readCard);
}

/** readAuthorization reads a cloud authorization (docs/decisions.md §4 shape). */
export function readAuthorization(value: unknown): Authorization {
  const o = obj(value);
  const kind = oneOf<AuthorizationKind>(o, 'kind', AUTHORIZATION_KINDS);
  return {
    policyId: str(o, 'policy_id'),
    cardId: strOrNull(o, 'card_id'),
    merchant: str(o, 'merchant_name'),
    amountMinor: money(o, 'amount'),
    currency: str(o, 'currency'),
    authorizationType: oneOf<AuthorizationType>(o, 'authorization_type', AUTHORIZATION_TYPES),
    kind,
    notBefore: time(o, 'not_before'),
    expiresAt: time(o, 'expires_at'),
    status: oneOf<AuthorizationStatus>(o, 'status', AUTHORIZATION_STATUSES),
    createdAt: time(o, 'created_at'),
    transactionId: strOrNull(o, 'transaction_id'),
    recurring:
      kind === 'recurring'
        ? {
            interval: oneOf<RecurringInterval>(o, 'interval', RECURRING_INTERVALS),
            intervalCount: intOrNull(o, 'interval_count') ?? 1,
            maxCharges: intOrNull(o, 'max_charges'),
            currentPeriodStart: timeOrNull(o, 'current_period_start'),
            currentPeriodEnd: timeOrNull(o, 'current_period_end'),
          }
        : null,
  };
}

function readPolicyWindow(value: unknown): PolicyWindowView | null {
  if (value === null || value === undefined) return null;
  const o = obj(value);
  return {
    policyId: str(o, 'policy_id'),
    cardId: strOrNull(o, 'card_id'),
    merchant: str(o, 'merchant'),
    amountMinor: money(o, 'amount'),
    currency: str(o, 'currency'),
    authorizationType: oneOf<AuthorizationType>(o, 'authorization_type', AUTHORIZATION_TYPES),
    notBefore: time(o, 'not_before'),
    notAfter: time(o, 'not_after'),
    keyId: str(o, 'key_id'),
    jws: str(o, 'jws'),
  };
}

/** readTransaction reads a cloud transaction; policy_window is read when present. */
export function readTransaction(value: unknown): Transaction {
  const o = obj(value);
  const transaction: Transaction = {
    id: str(o, 'id'),
    cardId: str(o, 'card_id'),
    amountMinor: money(o, 'amount'),
    currency: str(o, 'currency'),
    merchant: str(o, 'merchant'),
    status: oneOf<TransactionStatus>(o, 'status', TRANSACTION_STATUSES),
    createdAt: time(o, 'created_at'),
    policyId: strOrNull(o, 'policy_id'),
    declineCode: strOrNull(o, 'decline_code'),
  };
  if ('policy_window' in o) transaction.policyWindow = readPolicyWindow(o['policy_window']);
  return transaction;
}

/** readTransactionPage reads `{transactions: [...], has_more}`. */
export function readTransactionPage(value: unknown): { transactions: Transaction[]; hasMore: boolean } {
  const o = obj(value);
  if (typeof o['has_more'] !== 'boolean') throw unexpectedShape();
  return { transactions: list(o, 'transactions').map(readTransaction), hasMore: o['has_more'] };
}

/** readWallet reads `{usdt, allocated, available}`. */
export function readWallet(value: unknown): Wallet {
  const o = obj(value);
  return { usdtMinor: money(o, 'usdt'), allocatedMinor: money(o, 'allocated'), availableMinor: money(o, 'available') };
}

/** readAllocation reads `{card_id, allocated, new_balance}`. */
export function readAllocation(value: unknown): Allocation {
  const o = obj(value);
  return { cardId: str(o, 'card_id'), allocatedMinor: money(o, 'allocated'), newBalanceMinor: money(o, 'new_balance') };
}

/** readEnrollment reads `{device_id, key_id, account_id}`. */
export function readEnrollment(value: unknown): { deviceId: string; keyId: string; accountId: string } {
  const o = obj(value);
  return { deviceId: str(o, 'device_id'), keyId: str(o, 'key_id'), accountId: str(o, 'account_id') };
}
