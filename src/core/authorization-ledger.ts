/**
 * The durable record of every authorization this device signed for registration (A's
 * /authorize, /merchant-bind and /recurring, B's /authorize), with what the daemon has learned
 * of its fate since. The pipeline writes an entry to state.journal before its window goes
 * anywhere (for a window to register, with that window: docs/decisions.md §28.10), so that after
 * a restart or a kill -9 the daemon still knows every window that may be spent: spending budgets
 * are rebuilt from it, and GET /authorizations lists it.
 *
 * Memory holds the entries of the retention period in one Map, in signing order; the listing's
 * pages per agent and per card follow it (`follow`, src/operations/ledger-pages.ts).
 */
import type { RecordStore, StateRecord } from './record-store.js';
import { AUTHORIZATION_STATUSES, AUTHORIZATION_TYPES, LEDGER_KINDS, RECURRING_INTERVALS, type AuthorizationType, type LedgerKind, type RecurringInterval } from './model.js';

/**
 * A ledger entry's states: the cloud's authorization statuses, and `failed` (the cloud refused
 * it) and `unregistered` (never sent), which only the ledger knows.
 */
export const LEDGER_STATES = [...AUTHORIZATION_STATUSES, 'failed', 'unregistered'] as const;
export type LedgerState = (typeof LEDGER_STATES)[number];
import { decisionRecordJson, parseDecisionRecord, type DecisionRecord } from './decision-record.js';
import { mandatesJson, parseMandates, type Ap2MandateRecord } from '../ap2/mandate-record.js';
import { applyX402Transition, checkTransition, ledgerStateOf, type X402Detail, type X402Transition } from './x402-states.js';
import { parseX402Detail, parseX402Transition, x402DetailJson, x402TransitionJson } from './x402-record.js';

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

/** What follows the entries kept (StoredAuthorizationLedger.follow): told of each added and each forgotten. */
export interface EntryFollower {
  added(entry: Readonly<AuthorizationEntry>): void;
  forgotten(entry: Readonly<AuthorizationEntry>): void;
}

/** Called after an entry's state changed durably (and while replaying), so budgets can follow. */
export type AuthorizationStatusListener = (entry: Readonly<AuthorizationEntry>) => void;

/** The state journal's record types: the entry as signed, and a later change of its state. */
export const AUTHORIZATION_RECORD_TYPE = 'authorization';
export const AUTHORIZATION_STATUS_RECORD_TYPE = 'authorization_status';
/**
 * The record of the JWS signed for an entry, written after the entry by the versions before
 * docs/decisions.md §28.10, which writes the JWS in the entry's own record; replayed, never written.
 */
export const AUTHORIZATION_SIGNATURE_RECORD_TYPE = 'authorization_signature';
/** The journal record of the AP2 open mandates signed for a recorded entry (docs/ap2.md). */
export const AP2_MANDATES_RECORD_TYPE = 'ap2_mandates';
/** The journal record of one change of an x402 entry (core/x402-states.ts). */
export const X402_TRANSITION_RECORD_TYPE = 'x402_transition';

/**
 * How long an entry is kept after it can no longer be spent (signed more than this long ago, and
 * no longer active or past its not_after): longer than any budget window (30 days), so budgets
 * are always rebuilt exactly.
 */
export const AUTHORIZATION_RETENTION_SECONDS = 90 * 86_400;

const STATES: ReadonlySet<string> = new Set(LEDGER_STATES);
const INTERVALS: ReadonlySet<string> = new Set(RECURRING_INTERVALS);
/**
 * The state of a window rolled back, never to be sent. A `failed` one may be sent again: the
 * cloud refused it under its Idempotency-Key and replays that refusal.
 */
const NEVER_SENT: ReadonlySet<string> = new Set(['unregistered']);
const KINDS: ReadonlySet<string> = new Set(LEDGER_KINDS);
const TYPES: ReadonlySet<string> = new Set(AUTHORIZATION_TYPES);

/**
 * StoredAuthorizationLedger keeps the entries in memory and, with a RecordStore, in state.journal
 * (register before store.open(); the entries are replayed when it opens).
 */
export class StoredAuthorizationLedger {
  // Map order is signing order: entries are indexed as they are recorded or replayed, and leave oldest first.
  private readonly entries = new Map<string, AuthorizationEntry>();
  private readonly listeners: AuthorizationStatusListener[] = [];
  private readonly followers: EntryFollower[] = [];
  /** Entries recordSigned indexed whose record (with their JWS) is not yet on disk. */
  private readonly notYetDurable = new Set<string>();
  /** Windows on their way to the cloud in this process, with how many sends of each are under way. */
  private readonly registering = new Map<string, number>();

  constructor(
    private readonly store: RecordStore,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
    private readonly retentionSeconds = AUTHORIZATION_RETENTION_SECONDS,
  ) {
    store.register(AUTHORIZATION_RECORD_TYPE, {
      replay: (record) => this.index(parseEntryRecord(record)),
      live: (now) => this.live(now),
    });
    store.register(AUTHORIZATION_STATUS_RECORD_TYPE, {
      replay: (record) => this.replayStatus(record),
      // Compaction writes each entry with its current state, so status records are never live.
      live: () => [],
    });
    store.register(AUTHORIZATION_SIGNATURE_RECORD_TYPE, {
      // An older journal's; compaction writes each entry with its JWS.
      replay: (record) => this.replaySignature(record),
      live: () => [],
    });
    store.register(AP2_MANDATES_RECORD_TYPE, {
      replay: (record) => this.withEntry(record, (entry) => entry.evidence !== undefined && (entry.evidence.mandates = parseMandates(record['mandates']))),
      // Compaction writes each entry with its evidence, the mandates in it.
      live: () => [],
    });
    store.register(X402_TRANSITION_RECORD_TYPE, {
      replay: (record) => this.withEntry(record, (entry) => this.applyX402(entry, parseX402Transition(record['transition']))),
      // Compaction writes each x402 entry with its current detail.
      live: () => [],
    });
  }

  /**
   * follow tells follower of every entry kept, now and as each is recorded or replayed, and of each
   * one forgotten past retention (oldest first): the listing's pages follow the ledger this way
   * (src/operations/ledger-pages.ts) and write nothing to it.
   */
  follow(follower: EntryFollower): void {
    this.followers.push(follower);
    for (const entry of this.entries.values()) follower.added(entry);
  }

  /** forgetExpired forgets now what is past retention, as a record or a compaction would. */
  forgetExpired(): void {
    this.prune(this.nowSeconds());
  }

  /** onStatus calls listener whenever an entry's state changes, including during replay. */
  onStatus(listener: AuthorizationStatusListener): void {
    this.listeners.push(listener);
  }

  /**
   * record makes a new entry durable; the pipeline awaits it before a window to hold is signed
   * (a window to register is recorded with recordSigned), so nobody holds a window the daemon
   * does not know of.
   */
  async record(entry: AuthorizationEntry): Promise<void> {
    await this.write(this.indexNew(entry));
  }

  /**
   * recordSigned makes a new entry durable with the window signed for it, in one record and one
   * append (docs/decisions.md §28.10): the entry is indexed, so the signer finds it active; sign
   * makes the window's JWS in the same turn (it must be synchronous, see write); the entry keeps
   * that JWS, which its evidence pack carries; it resolves to the JWS once the record is on disk.
   * The caller hands the JWS to nobody before then, and `get` leaves it out until then too (an
   * evidence pack reads it there), so a crash or a failed write in between leaves no entry and no
   * window anywhere. A sign that throws leaves the entry `failed`, never written; a write that
   * fails leaves it `failed` without its JWS, so no later compaction writes a window never sent.
   */
  async recordSigned(entry: AuthorizationEntry, sign: () => string): Promise<string> {
    const copy = this.indexNew(entry);
    let jws: string;
    try {
      jws = sign();
    } catch (error) {
      // Nothing was signed: the entry must not count (its reservation is given back).
      this.apply(copy, 'failed', null);
      throw error;
    }
    copy.jws = jws;
    this.notYetDurable.add(copy.policyId);
    try {
      await this.write(copy);
    } catch (error) {
      delete copy.jws;
      throw error;
    } finally {
      this.notYetDurable.delete(copy.policyId);
    }
    return jws;
  }

  /** get returns a copy of the entry of policyId, if it is kept; its JWS only once that is on disk. */
  get(policyId: string): AuthorizationEntry | undefined {
    const entry = this.entries.get(policyId);
    if (entry === undefined) return undefined;
    const copy = { ...entry };
    if (this.notYetDurable.has(policyId)) delete copy.jws;
    return copy;
  }

  /**
   * noteStatus records what the cloud (or a refused registration: `failed`) said of an entry.
   * Only an active entry changes: a window is captured, voided or expires at most once, so a
   * repeated or late report is ignored and costs no write. An unknown id is ignored too (a window
   * signed before this ledger existed, or already past retention).
   */
  async noteStatus(policyId: string, state: AuthorizationEntryState, usedMinor?: number | null): Promise<void> {
    const entry = this.entries.get(policyId);
    if (entry === undefined || entry.state !== 'active' || state === 'active') return;
    // An x402 entry changes only by its transitions (noteX402); `failed` here is the pipeline's
    // "never answered" (its receipt or audit line failed), which only an unbound entry can be.
    if (entry.x402 !== undefined && (state !== 'failed' || entry.x402.state !== 'authorized')) return;
    const used = state === 'used' ? (usedMinor ?? entry.amountMinor) : null;
    if (used !== null && (!Number.isSafeInteger(used) || used < 0)) throw new Error('AuthorizationLedger.noteStatus: usedMinor must be a non-negative safe integer');
    this.apply(entry, state, used);
    await this.store.append({ type: AUTHORIZATION_STATUS_RECORD_TYPE, policy_id: policyId, state, used_minor: used });
  }

  /**
   * noteX402 applies one transition of an x402 entry (core/x402-states.ts) in this turn — memory
   * and the budgets' listeners change before the record is queued, so no snapshot can miss it —
   * and resolves once its record is on disk. It answers false, writing nothing, when the entry is
   * not an x402 entry the ledger answered for, or the transition is not allowed from its state.
   */
  async noteX402(policyId: string, transition: X402Transition): Promise<boolean> {
    const entry = this.entries.get(policyId);
    if (entry?.x402 === undefined || entry.state === 'failed' || !checkTransition(entry.x402, transition)) return false;
    this.applyX402(entry, transition);
    await this.store.append({ type: X402_TRANSITION_RECORD_TYPE, policy_id: policyId, transition: x402TransitionJson(transition) });
    return true;
  }

  /** applyX402 is the one way an x402 entry changes, live and at replay: its detail, then its ledger state. */
  private applyX402(entry: AuthorizationEntry, transition: X402Transition): void {
    if (entry.x402 === undefined) throw new Error('x402 transition for an entry that is not x402');
    // An entry that was never answered (failed) stays failed: nothing of it can count again.
    if (entry.state === 'failed') return;
    applyX402Transition(entry.x402, transition);
    const next = ledgerStateOf(entry.x402);
    this.apply(entry, next.state, next.usedMinor);
  }

  /**
   * keepMandates makes the AP2 open mandates signed for a recorded entry durable before they are
   * answered: a retry or an approval is answered with exactly these (docs/ap2.md).
   */
  async keepMandates(policyId: string, mandates: Ap2MandateRecord): Promise<void> {
    const evidence = this.entries.get(policyId)?.evidence;
    if (evidence === undefined) throw new Error('AuthorizationLedger.keepMandates: no recorded decision for this entry');
    await this.store.append({ type: AP2_MANDATES_RECORD_TYPE, policy_id: policyId, mandates: mandatesJson(mandates) });
    evidence.mandates = mandates;
  }

  /**
   * beginRegistration is called right before a window is sent to the cloud, in the same turn as
   * the check that lets it go: it answers false for a window rolled back (unregistered),
   * which must never be sent, and otherwise marks it on its way, so markUnregistered leaves it be.
   * Memory only: a restart ends every send (docs/decisions.md §17.1).
   */
  beginRegistration(policyId: string): boolean {
    const entry = this.entries.get(policyId);
    if (entry !== undefined && NEVER_SENT.has(entry.state)) return false;
    this.registering.set(policyId, (this.registering.get(policyId) ?? 0) + 1);
    return true;
  }

  endRegistration(policyId: string): void {
    const sends = this.registering.get(policyId) ?? 0;
    if (sends <= 1) this.registering.delete(policyId);
    else this.registering.set(policyId, sends - 1);
  }

  /**
   * markUnregistered records, durably, that an active entry the cloud answered 404 for was never
   * registered: its reservation is released and its window is never sent afterwards. It does
   * nothing (false) for an entry on its way to the cloud or no longer active.
   */
  async markUnregistered(policyId: string): Promise<boolean> {
    const entry = this.entries.get(policyId);
    // An x402 entry is never at the cloud; it is not rolled back this way.
    if (entry?.x402 !== undefined) return false;
    if (entry === undefined || entry.state !== 'active' || this.registering.has(policyId)) return entry?.state === 'unregistered';
    await this.noteStatus(policyId, 'unregistered');
    return true;
  }

  /** since lists the entries signed at or after atSeconds, oldest first (to rebuild budgets). */
  *since(atSeconds: number): Generator<Readonly<AuthorizationEntry>> {
    for (const entry of this.entries.values()) if (entry.signedAtSeconds >= atSeconds) yield entry;
  }

  /** size is the number of entries held (for tests). */
  get size(): number {
    return this.entries.size;
  }

  /** indexNew checks a new entry and indexes a copy of it, active in memory before it is written. */
  private indexNew(entry: AuthorizationEntry): AuthorizationEntry {
    if (this.entries.has(entry.policyId)) throw new Error('AuthorizationLedger.record: this policy id is already recorded');
    const copy = { ...entry };
    checkEntry(copy);
    this.prune(this.nowSeconds());
    this.index(copy);
    return copy;
  }

  /**
   * write appends an entry just indexed. Its caller must call it in the same turn as indexNew:
   * a compaction writes every indexed entry, so one taken in between would hold the entry and
   * the append would then write it a second time.
   */
  private async write(entry: AuthorizationEntry): Promise<void> {
    try {
      await this.store.append(entryRecord(entry));
    } catch (error) {
      // Not durable, so never handed out: it must not count, here or after a restart.
      this.apply(entry, 'failed', null);
      throw error;
    }
  }

  private apply(entry: AuthorizationEntry, state: AuthorizationEntryState, usedMinor: number | null): void {
    entry.state = state;
    entry.usedMinor = usedMinor;
    for (const listener of this.listeners) listener(entry);
  }

  private index(entry: AuthorizationEntry): void {
    if (this.entries.has(entry.policyId)) throw new Error('duplicate authorization record');
    this.entries.set(entry.policyId, entry);
    for (const follower of this.followers) follower.added(entry);
  }

  private replayStatus(record: StateRecord): void {
    const policyId = record['policy_id'];
    const state = record['state'];
    const used = record['used_minor'];
    if (typeof policyId !== 'string' || typeof state !== 'string' || !STATES.has(state) || state === 'active') throw new Error('malformed authorization_status record');
    if (used !== null && !(Number.isSafeInteger(used) && (used as number) >= 0)) throw new Error('malformed authorization_status record');
    const entry = this.entries.get(policyId);
    if (entry === undefined || entry.state !== 'active') return;
    this.apply(entry, state as AuthorizationEntryState, used as number | null);
  }

  private withEntry(record: StateRecord, apply: (entry: AuthorizationEntry) => unknown): void {
    const policyId = record['policy_id'];
    if (typeof policyId !== 'string') throw new Error(`malformed ${String(record['type'])} record`);
    const entry = this.entries.get(policyId);
    if (entry !== undefined) apply(entry);
  }

  private replaySignature(record: StateRecord): void {
    const policyId = record['policy_id'];
    const jws = record['jws'];
    if (typeof policyId !== 'string' || typeof jws !== 'string') throw new Error('malformed authorization_signature record');
    const entry = this.entries.get(policyId);
    if (entry !== undefined) entry.jws = jws;
  }

  private live(now: number): StateRecord[] {
    this.prune(now);
    const records: StateRecord[] = [];
    for (const entry of this.entries.values()) records.push(entryRecord(entry));
    return records;
  }

  /** prune forgets, oldest first, entries that can no longer be spent and are past retention. */
  private prune(now: number): void {
    for (const [policyId, entry] of this.entries) {
      const spendable = entry.state === 'active' && entry.notAfterSeconds > now;
      if (spendable || entry.signedAtSeconds + this.retentionSeconds > now) return;
      this.entries.delete(policyId);
      for (const follower of this.followers) follower.forgotten(entry);
    }
  }
}

function entryRecord(entry: AuthorizationEntry): StateRecord {
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
function parseEntryRecord(record: StateRecord): AuthorizationEntry {
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

function checkEntry(entry: AuthorizationEntry): void {
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
