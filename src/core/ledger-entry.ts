/**
 * A ledger entry and its journal record (the `authorization` record): its shape, how it is
 * written and how a replayed one is checked. The ledger that keeps entries is
 * authorization-ledger.ts.
 */
import type { StateRecord } from './record-store.js';
import { AUTHORIZATION_STATUSES, AUTHORIZATION_TYPES, LEDGER_KINDS, RECURRING_INTERVALS, type AuthorizationType, type LedgerKind, type RecurringInterval } from './model.js';
import { decisionRecordJson, parseDecisionRecord, type DecisionRecord } from './decision-record.js';
import type { X402Detail } from './x402-states.js';
import { parseX402Detail, x402DetailJson } from './x402-record.js';

/** The state journal's record type of an entry as signed (its later changes: authorization-ledger.ts). */
export const AUTHORIZATION_RECORD_TYPE = 'authorization';

/**
 * A ledger entry's states: the cloud's authorization statuses, and `failed` (the cloud refused
 * it) and `unregistered` (never sent), which only the ledger knows.
 */
export const LEDGER_STATES = [...AUTHORIZATION_STATUSES, 'failed', 'unregistered'] as const;
export type LedgerState = (typeof LEDGER_STATES)[number];

/** A recurring entry's schedule, kept so that budgets count every charge it allows (docs/decisions.md §17.2). */
export interface EntrySchedule {
  interval: RecurringInterval;
  intervalCount: number;
  maxCharges: number | null;
}

export interface AuthorizationEntry {
  policyId: string;
  /** principalName: 'owner' or the agent. */
  agent: string;
  cardId: string | null;
  merchant: string;
  currency: string;
  amountMinor: number;
  kind: LedgerKind;
  authorizationType: AuthorizationType;
  signedAtSeconds: number;
  notAfterSeconds: number;
  /**
   * `unregistered`: signed but, the cloud said, never registered, and now never sent (a cancel by
   * the owner, or a cloud 404 for an entry not being registered; docs/decisions.md §17.1).
   */
  state: LedgerState;
  usedMinor: number | null;
  /** Set for recurring entries (absent in records written before it existed). */
  schedule?: EntrySchedule;
  /** What the evidence pack needs, kept at decision time (docs/decisions.md §22); absent on older entries. */
  evidence?: DecisionRecord;
  /** The window's compact JWS as it was signed, kept once signed (docs/decisions.md §28); absent before. For x402, the receipt. */
  jws?: string;
  /** An x402 entry's terms and state (kind `x402`, docs/x402.md): its ledger state follows from it (core/x402-states.ts). */
  x402?: X402Detail;
}

export type AuthorizationEntryState = AuthorizationEntry['state'];

const STATES: ReadonlySet<string> = new Set(LEDGER_STATES);
const INTERVALS: ReadonlySet<string> = new Set(RECURRING_INTERVALS);
const KINDS: ReadonlySet<string> = new Set(LEDGER_KINDS);
const TYPES: ReadonlySet<string> = new Set(AUTHORIZATION_TYPES);

/** isLedgerState reports whether state is one of LEDGER_STATES. */
export function isLedgerState(state: string): boolean {
  return STATES.has(state);
}

/** entryRecord is the entry's `authorization` journal record. */
export function entryRecord(entry: AuthorizationEntry): StateRecord {
  return {
    type: AUTHORIZATION_RECORD_TYPE,
    policy_id: entry.policyId,
    agent: entry.agent,
    card_id: entry.cardId,
    merchant: entry.merchant,
    currency: entry.currency,
    amount_minor: entry.amountMinor,
    kind: entry.kind,
    authorization_type: entry.authorizationType,
    signed_at: entry.signedAtSeconds,
    not_after: entry.notAfterSeconds,
    state: entry.state,
    used_minor: entry.usedMinor,
    ...(entry.schedule !== undefined && { schedule: { interval: entry.schedule.interval, interval_count: entry.schedule.intervalCount, max_charges: entry.schedule.maxCharges } }),
    ...(entry.evidence !== undefined && { evidence: decisionRecordJson(entry.evidence) }),
    ...(entry.jws !== undefined && { jws: entry.jws }),
    ...(entry.x402 !== undefined && { x402: x402DetailJson(entry.x402) }),
  };
}

/** parseEntryRecord checks a replayed record's shape and throws on anything else. */
export function parseEntryRecord(record: StateRecord): AuthorizationEntry {
  const entry: AuthorizationEntry = {
    policyId: record['policy_id'] as string,
    agent: record['agent'] as string,
    cardId: record['card_id'] as string | null,
    merchant: record['merchant'] as string,
    currency: record['currency'] as string,
    amountMinor: record['amount_minor'] as number,
    kind: record['kind'] as LedgerKind,
    authorizationType: record['authorization_type'] as AuthorizationType,
    signedAtSeconds: record['signed_at'] as number,
    notAfterSeconds: record['not_after'] as number,
    state: record['state'] as AuthorizationEntryState,
    usedMinor: record['used_minor'] as number | null,
  };
  const schedule = record['schedule'] as Record<string, unknown> | undefined;
  if (schedule !== undefined) {
    if (typeof schedule !== 'object' || schedule === null) throw new Error('malformed authorization entry');
    entry.schedule = { interval: schedule['interval'] as RecurringInterval, intervalCount: schedule['interval_count'] as number, maxCharges: schedule['max_charges'] as number | null };
  }
  if (record['evidence'] !== undefined) entry.evidence = parseDecisionRecord(record['evidence']);
  if (record['jws'] !== undefined) {
    if (typeof record['jws'] !== 'string') throw new Error('malformed authorization entry');
    entry.jws = record['jws'];
  }
  if (record['x402'] !== undefined) entry.x402 = parseX402Detail(record['x402']);
  if ((entry.kind === 'x402') !== (entry.x402 !== undefined)) throw new Error('malformed authorization entry');
  checkEntry(entry);
  return entry;
}

/** checkEntry throws on an entry whose fields are not of their types. */
export function checkEntry(entry: AuthorizationEntry): void {
  const whole = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;
  const ok =
    typeof entry.policyId === 'string' &&
    entry.policyId !== '' &&
    typeof entry.agent === 'string' &&
    (entry.cardId === null || typeof entry.cardId === 'string') &&
    typeof entry.merchant === 'string' &&
    typeof entry.currency === 'string' &&
    whole(entry.amountMinor) &&
    KINDS.has(entry.kind) &&
    TYPES.has(entry.authorizationType) &&
    whole(entry.signedAtSeconds) &&
    whole(entry.notAfterSeconds) &&
    STATES.has(entry.state) &&
    (entry.usedMinor === null || whole(entry.usedMinor)) &&
    (entry.schedule === undefined ||
      (INTERVALS.has(entry.schedule.interval) && whole(entry.schedule.intervalCount) && entry.schedule.intervalCount > 0 && (entry.schedule.maxCharges === null || whole(entry.schedule.maxCharges))));
  if (!ok) throw new Error('malformed authorization entry');
}
