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
 *
 * It is a state machine (record-store.ts, docs/decisions.md §33): one apply per record, at replay
 * and live, and every live change goes through store.commit, which applies it in the turn its
 * append is queued and undoes it when the append fails.
 */
import { invariant } from '../errors/invariant.js';
import { NO_UNDO, type RecordStore, type StateRecord, type Undo } from './record-store.js';
import { AUTHORIZATION_RECORD_TYPE, checkEntry, entryRecord, isLedgerState, parseEntryRecord, type AuthorizationEntry, type AuthorizationEntryState } from './ledger-entry.js';
import { mandatesJson, parseMandates, type Ap2MandateRecord } from '../ap2/mandate-record.js';
import { applyX402Transition, checkTransition, ledgerStateOf, type X402Transition } from './x402-states.js';
import { parseX402Transition, x402TransitionJson } from './x402-record.js';

export { AUTHORIZATION_RECORD_TYPE, LEDGER_STATES, type AuthorizationEntry, type AuthorizationEntryState, type EntrySchedule, type LedgerState } from './ledger-entry.js';

/** What follows the entries kept (StoredAuthorizationLedger.follow): told of each added and each forgotten. */
export interface EntryFollower {
  added(entry: Readonly<AuthorizationEntry>): void;
  forgotten(entry: Readonly<AuthorizationEntry>): void;
}

/** Called after an entry's state changed durably (and while replaying), so budgets can follow. */
export type AuthorizationStatusListener = (entry: Readonly<AuthorizationEntry>) => void;

/** The state journal's record type of a later change of an entry's state (the entry as signed: ledger-entry.ts). */
export const AUTHORIZATION_STATUS_RECORD_TYPE = 'authorization_status';
/**
 * The record of the JWS signed for an entry, written after the entry by the versions before
 * docs/decisions.md §28.10, which writes the JWS in the entry's own record; replayed, never written.
 */
export const AUTHORIZATION_SIGNATURE_RECORD_TYPE = 'authorization_signature';
/** The journal record of the AP2 open mandates signed for a recorded entry (docs/ap2.md). */
export const AP2_MANDATES_RECORD_TYPE = 'ap2_mandates';
/** The journal record of one transition of an x402 entry (core/x402-states.ts, docs/x402.md). */
export const X402_TRANSITION_RECORD_TYPE = 'x402_transition';

/**
 * How long an entry is kept after it can no longer be spent (signed more than this long ago, and
 * no longer active or past its not_after): longer than any budget window (30 days), so budgets
 * are always rebuilt exactly.
 */
export const AUTHORIZATION_RETENTION_SECONDS = 90 * 86_400;

/**
 * The state of a window rolled back, never to be sent. A `failed` one may be sent again: the
 * cloud refused it under its Idempotency-Key and replays that refusal.
 */
const NEVER_SENT: ReadonlySet<string> = new Set(['unregistered']);

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
  /**
   * The entry record or recordSigned built and checked in this turn, whose record is being
   * committed: its apply takes this object instead of parsing the record back (the same entry,
   * spared a parse), and completes it with its JWS when recordSigned indexed it to be signed.
   */
  private readonly staged = new Map<string, AuthorizationEntry>();
  /** Windows on their way to the cloud in this process, with how many sends of each are under way. */
  private readonly registering = new Map<string, number>();

  constructor(
    private readonly store: RecordStore,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
    private readonly retentionSeconds = AUTHORIZATION_RETENTION_SECONDS,
  ) {
    store.register({
      // authorization_signature is an older journal's, replayed and never written; status, mandate
      // and x402 transition records are never live: compaction writes each entry with its state,
      // evidence and x402 detail.
      recordTypes: [AUTHORIZATION_RECORD_TYPE, AUTHORIZATION_STATUS_RECORD_TYPE, AUTHORIZATION_SIGNATURE_RECORD_TYPE, AP2_MANDATES_RECORD_TYPE, X402_TRANSITION_RECORD_TYPE],
      apply: (record) => this.applyRecord(record),
      live: (now) => this.live(now),
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
   * does not know of. A failed write leaves it `failed` (the undo): it counts nowhere.
   */
  async record(entry: AuthorizationEntry): Promise<void> {
    const copy = this.checkedNew(entry);
    this.staged.set(copy.policyId, copy);
    let durable: Promise<void>;
    try {
      durable = this.store.commit(entryRecord(copy));
    } finally {
      this.staged.delete(copy.policyId);
    }
    await durable;
  }

  /**
   * recordSigned makes a new entry durable with the window signed for it, in one record and one
   * append (docs/decisions.md §28.10): the entry is indexed, so the signer finds it active; sign
   * makes the window's JWS in the same turn (it must be synchronous); the record of the entry with
   * that JWS is committed in that turn too, its apply completing the entry indexed for signing;
   * it resolves to the JWS once the record is on disk. The caller hands the JWS to nobody before
   * then, and `get` leaves it out until then too (an evidence pack reads it there), so a crash or
   * a failed write in between leaves no entry and no window anywhere. A sign that throws leaves
   * the entry `failed`, never written; a write that fails leaves it `failed` without its JWS (the
   * undo), so no later compaction writes a window never sent.
   */
  async recordSigned(entry: AuthorizationEntry, sign: () => string): Promise<string> {
    const copy = this.checkedNew(entry);
    this.index(copy);
    let jws: string;
    try {
      jws = sign();
    } catch (error) {
      // Nothing was signed: the entry must not count (its reservation is given back).
      this.setState(copy, 'failed', null);
      throw error;
    }
    this.notYetDurable.add(copy.policyId);
    this.staged.set(copy.policyId, copy);
    let durable: Promise<void>;
    try {
      durable = this.store.commit(entryRecord({ ...copy, jws }));
    } finally {
      this.staged.delete(copy.policyId);
    }
    try {
      await durable;
    } catch (error) {
      // The undo made it `failed` without its JWS; a commit refused before its apply did not.
      delete copy.jws;
      if (copy.state === 'active') this.setState(copy, 'failed', null);
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
    if (copy.evidence?.mandates !== undefined && this.notYetDurable.has(`${policyId}\u0000mandates`)) {
      copy.evidence = { ...copy.evidence };
      delete copy.evidence.mandates;
    }
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
    invariant(entry.state === 'active' && !this.staged.has(policyId), 'ledger_state_change_from_active', policyId);
    await this.store.commit({ type: AUTHORIZATION_STATUS_RECORD_TYPE, policy_id: policyId, state, used_minor: used });
  }

  /**
   * noteX402 commits one transition of an x402 entry (core/x402-states.ts): the ledger's apply
   * changes its detail and its ledger state (and the budgets' listeners) in this turn, as its
   * record is queued, and undoes it if the append fails; it resolves once the record is on disk.
   * It answers false, writing nothing, when the entry is not an x402 entry the ledger answered
   * for, or the transition is not allowed from its state.
   */
  async noteX402(policyId: string, transition: X402Transition): Promise<boolean> {
    const entry = this.entries.get(policyId);
    if (entry?.x402 === undefined || entry.state === 'failed' || !checkTransition(entry.x402, transition)) return false;
    invariant(!this.staged.has(policyId), 'ledger_state_change_from_active', policyId);
    await this.store.commit({ type: X402_TRANSITION_RECORD_TYPE, policy_id: policyId, transition: x402TransitionJson(transition) });
    return true;
  }

  /**
   * keepMandates makes the AP2 open mandates signed for a recorded entry durable before they are
   * answered: a retry or an approval is answered with exactly these (docs/ap2.md).
   */
  async keepMandates(policyId: string, mandates: Ap2MandateRecord): Promise<void> {
    if (this.entries.get(policyId)?.evidence === undefined) throw new Error('AuthorizationLedger.keepMandates: no recorded decision for this entry');
    // Applied now (a compaction keeps them), handed to no reader of `get` until they are on disk.
    this.notYetDurable.add(`${policyId}\u0000mandates`);
    try {
      await this.store.commit({ type: AP2_MANDATES_RECORD_TYPE, policy_id: policyId, mandates: mandatesJson(mandates) });
    } finally {
      this.notYetDurable.delete(`${policyId}\u0000mandates`);
    }
  }

  /** mandatesKept is true once policyId's mandates are applied: on disk, or on their way there (get hides those). */
  mandatesKept(policyId: string): boolean {
    return this.entries.get(policyId)?.evidence?.mandates !== undefined;
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

  /** checkedNew checks a new entry and returns a copy to record (the live path's checks before its commit). */
  private checkedNew(entry: AuthorizationEntry): AuthorizationEntry {
    const copy = { ...entry };
    if (this.entries.has(entry.policyId)) throw new Error('AuthorizationLedger.record: this policy id is already recorded');
    checkEntry(copy);
    invariant(copy.state === 'active' && copy.usedMinor === null, 'ledger_entry_well_formed', `${copy.policyId} is recorded ${copy.state}`);
    this.prune(this.nowSeconds());
    return copy;
  }

  /** applyRecord is the ledger's one apply, at replay and live (through store.commit); it returns the undo. */
  private applyRecord(record: StateRecord): Undo {
    switch (record.type) {
      case AUTHORIZATION_RECORD_TYPE:
        return this.applyEntry(record);
      case AUTHORIZATION_STATUS_RECORD_TYPE:
        return this.applyStatus(record);
      case AUTHORIZATION_SIGNATURE_RECORD_TYPE:
        return this.applySignature(record);
      case X402_TRANSITION_RECORD_TYPE:
        return this.applyX402(record);
      default:
        return this.applyMandates(record);
    }
  }

  /**
   * applyEntry indexes the record's entry (replayed: parsed from it; live: the entry staged for it),
   * or completes with its JWS the entry recordSigned indexed for signing in this same turn.
   * Undone, the entry stays `failed` without its JWS: it counts nowhere.
   */
  private applyEntry(record: StateRecord): Undo {
    const staged = typeof record['policy_id'] === 'string' ? this.staged.get(record['policy_id']) : undefined;
    const entry = staged ?? parseEntryRecord(record);
    if (staged !== undefined && this.entries.get(staged.policyId) === staged) {
      const jws = record['jws'];
      invariant(record['amount_minor'] === staged.amountMinor && record['merchant'] === staged.merchant && record['currency'] === staged.currency && record['state'] === staged.state && typeof jws === 'string', 'ledger_entry_well_formed', `${staged.policyId} changed while it was signed`);
      staged.jws = jws;
    } else {
      this.index(entry);
    }
    const recorded = entry;
    return () => {
      delete recorded.jws;
      this.setState(recorded, 'failed', null);
    };
  }

  /** applyStatus changes an active entry's state (a repeated or late report changes nothing). */
  private applyStatus(record: StateRecord): Undo {
    const policyId = record['policy_id'];
    const state = record['state'];
    const used = record['used_minor'];
    if (typeof policyId !== 'string' || typeof state !== 'string' || !isLedgerState(state) || state === 'active') throw new Error('malformed authorization_status record');
    if (used !== null && !(Number.isSafeInteger(used) && (used as number) >= 0)) throw new Error('malformed authorization_status record');
    const entry = this.entries.get(policyId);
    if (entry === undefined || entry.state !== 'active') return NO_UNDO;
    const before = { state: entry.state, usedMinor: entry.usedMinor };
    this.setState(entry, state as AuthorizationEntryState, used as number | null);
    return () => this.setState(entry, before.state, before.usedMinor);
  }

  /** applyMandates keeps the AP2 open mandates signed for an entry with its evidence. */
  private applyMandates(record: StateRecord): Undo {
    const mandates = parseMandates(record['mandates']);
    const evidence = this.withEntry(record)?.evidence;
    if (evidence === undefined) return NO_UNDO;
    const before = evidence.mandates;
    evidence.mandates = mandates;
    return () => {
      if (before === undefined) delete evidence.mandates;
      else evidence.mandates = before;
    };
  }

  /**
   * applyX402 is the one way an x402 entry changes, live and at replay: its detail, then its
   * ledger state. An entry that was never answered (failed) stays failed: nothing of it can count
   * again. Undone, the detail and the state are as they were.
   */
  private applyX402(record: StateRecord): Undo {
    const transition = parseX402Transition(record['transition']);
    const entry = this.withEntry(record);
    if (entry === undefined || entry.state === 'failed') return NO_UNDO;
    const detail = entry.x402;
    if (detail === undefined) throw new Error('x402 transition for an entry that is not x402');
    const before = { detail: { ...detail }, state: entry.state, usedMinor: entry.usedMinor };
    applyX402Transition(detail, transition);
    const next = ledgerStateOf(detail);
    this.setState(entry, next.state, next.usedMinor);
    return () => {
      for (const key of Object.keys(detail)) if (!(key in before.detail)) delete (detail as unknown as Record<string, unknown>)[key];
      Object.assign(detail, before.detail);
      this.setState(entry, before.state, before.usedMinor);
    };
  }

  /** applySignature reads an older journal's JWS record (never written now). */
  private applySignature(record: StateRecord): Undo {
    const jws = record['jws'];
    if (typeof jws !== 'string') throw new Error('malformed authorization_signature record');
    const entry = this.withEntry(record);
    if (entry === undefined) return NO_UNDO;
    const before = entry.jws;
    entry.jws = jws;
    return () => {
      if (before === undefined) delete entry.jws;
      else entry.jws = before;
    };
  }

  private setState(entry: AuthorizationEntry, state: AuthorizationEntryState, usedMinor: number | null): void {
    entry.state = state;
    entry.usedMinor = usedMinor;
    for (const listener of this.listeners) listener(entry);
  }

  private index(entry: AuthorizationEntry): void {
    if (this.entries.has(entry.policyId)) throw new Error('duplicate authorization record');
    this.entries.set(entry.policyId, entry);
    for (const follower of this.followers) follower.added(entry);
  }

  private withEntry(record: StateRecord): AuthorizationEntry | undefined {
    const policyId = record['policy_id'];
    if (typeof policyId !== 'string') throw new Error(`malformed ${String(record['type'])} record`);
    return this.entries.get(policyId);
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
