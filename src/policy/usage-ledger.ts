import { budgetCovers, merchantKeyOf, type ScopeFacts } from './scope-match.js';
import { WindowQueue, type HeadCounter, type WindowEntry } from './window-queue.js';
import { POLICY_WINDOW_SECONDS_MAX, type Policy, type PolicyBudget, type PolicyVelocity } from './policy-types.js';
import type { PolicyUsage } from './evaluate.js';
import { chargesWithin, type ChargeSchedule } from './recurring-exposure.js';

/** One authorization reserved against the policy's limits, as the daemon records it. */
export interface LedgerEntry extends ScopeFacts {
  /** The policy_id once signed, or the reservation id before. */
  readonly id: string;
  readonly amountMinor: number;
  readonly atSeconds: number;
  /** A recurring authorization's schedule: a budget counts every charge that fits its window. */
  readonly schedule?: ChargeSchedule;
}

/**
 * One window's view of an entry: its own exposure (a recurring entry counts amount × the charges
 * that fit that window, docs/decisions.md §17.2) and count, as the window sums them.
 */
interface WindowSlot {
  window: WindowQueue;
  item: WindowEntry;
  /** How many times the entry's amount this window counts (1 but for recurring entries in budgets). */
  multiple: number;
}

interface TrackedEntry extends LedgerEntry, WindowEntry {
  slots: WindowSlot[];
}

/**
 * UsageLedger is the in-memory bookkeeping behind budgets, velocity and new_merchant. It holds
 * no history of its own on disk: the daemon rebuilds it from its durable records by replaying
 * reserve / settle / release / markMerchantKnown. Every budget and velocity limit of the current
 * policy has a WindowQueue over the entries in its scope, so a query costs O(1) amortised and
 * never scans the history. Entries are kept for the longest window any policy may have
 * (30 days), so a policy change rebuilds the windows exactly.
 */
export class UsageLedger implements PolicyUsage {
  /** Queue heads examined so far; evaluation cost is asserted on it, never on time. */
  readonly counter: HeadCounter = { headChecks: 0 };
  private currentPolicy: Policy;
  private readonly budgetWindows = new Map<PolicyBudget, WindowQueue>();
  private readonly velocityWindows = new Map<PolicyVelocity, WindowQueue>();
  private readonly entries = new Map<string, TrackedEntry>();
  private history: TrackedEntry[] = [];
  private historyHead = 0;
  private latestSeconds = Number.NEGATIVE_INFINITY;
  private readonly knownMerchants = new Set<string>();

  constructor(policy: Policy) {
    this.currentPolicy = policy;
    this.usePolicy(policy);
  }

  /** The policy whose budgets and velocity limits the windows track. */
  get policy(): Policy {
    return this.currentPolicy;
  }

  /**
   * usePolicy rebuilds every window for a new policy from the entries of the last 30 days, in
   * O(retained entries × limits), so a reload neither forgets nor double-counts exposure.
   */
  usePolicy(policy: Policy): void {
    this.currentPolicy = policy;
    this.budgetWindows.clear();
    this.velocityWindows.clear();
    for (const budget of policy.budgets) this.budgetWindows.set(budget, this.newWindow(budget.windowSeconds));
    for (const velocity of policy.velocity) this.velocityWindows.set(velocity, this.newWindow(velocity.perSeconds));
    for (let i = this.historyHead; i < this.history.length; i++) {
      const entry = this.history[i] as TrackedEntry;
      if (this.entries.get(entry.id) === entry) entry.slots = this.slotsFor(entry);
    }
  }

  /**
   * reserve counts an authorization before it is signed, in full, in every window whose scope
   * covers it. It stays counted until cancelReservation, settle or release.
   */
  reserve(entry: LedgerEntry): void {
    assertWhole(entry.amountMinor, 'amountMinor');
    assertWhole(entry.atSeconds, 'atSeconds');
    if (this.entries.has(entry.id)) throw new Error('UsageLedger.reserve: this id is already reserved');
    this.prune(entry.atSeconds);
    const tracked: TrackedEntry = { ...entry, exposureMinor: entry.amountMinor, counted: 1, slots: [] };
    // Older than any window can be: it can never count again, so it is not kept.
    if (entry.atSeconds <= this.latestSeconds - POLICY_WINDOW_SECONDS_MAX) return;
    this.insertHistory(tracked);
    this.entries.set(entry.id, tracked);
    tracked.slots = this.slotsFor(tracked);
  }

  /** cancelReservation forgets a reservation whose signing or registration failed before reaching the cloud. */
  cancelReservation(id: string): boolean {
    const entry = this.entries.get(id);
    if (entry === undefined) return false;
    this.change(entry, -entry.exposureMinor, -entry.counted);
    this.entries.delete(id);
    return true;
  }

  /**
   * settle records that the cloud reported the authorization used for `usedMinor`: its exposure
   * becomes the charged amount (never less than what was charged), and its merchant becomes known.
   */
  settle(id: string, outcome: { usedMinor: number }): boolean {
    assertWhole(outcome.usedMinor, 'usedMinor');
    const entry = this.entries.get(id);
    if (entry === undefined) return false;
    this.change(entry, outcome.usedMinor - entry.exposureMinor, 0);
    this.knownMerchants.add(merchantKeyOf(entry));
    return true;
  }

  /** release records that the authorization expired unused or was revoked: exposure 0, still one authorization for velocity. */
  release(id: string): boolean {
    const entry = this.entries.get(id);
    if (entry === undefined) return false;
    this.change(entry, -entry.exposureMinor, 0);
    return true;
  }

  /** markMerchantKnown records an authorization at the merchant used or approved. */
  markMerchantKnown(merchant: string): void {
    this.knownMerchants.add(merchant);
  }

  merchantKnown(merchant: string): boolean {
    return this.knownMerchants.has(merchant);
  }

  /**
   * excluding is this usage without one entry's own contribution: a window replayed from the
   * signed-window cache is decided again (docs/decisions.md §17.1) against everything but itself,
   * which is already reserved under its policy id.
   */
  excluding(id: string): PolicyUsage {
    const entry = this.entries.get(id);
    const own = (window: WindowQueue | undefined, nowSeconds: number, pick: (item: WindowEntry) => number): number => {
      const slot = entry?.slots.find((candidate) => candidate.window === window);
      if (slot === undefined || slot.item.atSeconds <= nowSeconds - slot.window.windowSeconds) return 0;
      return pick(slot.item);
    };
    return {
      merchantKnown: (merchant) => this.merchantKnown(merchant),
      exposure: (budget, nowSeconds) => this.exposure(budget, nowSeconds) - own(this.budgetWindows.get(budget), nowSeconds, (item) => item.exposureMinor),
      count: (velocity, nowSeconds) => this.count(velocity, nowSeconds) - own(this.velocityWindows.get(velocity), nowSeconds, (item) => item.counted),
    };
  }

  exposure(budget: PolicyBudget, nowSeconds: number): number {
    this.prune(nowSeconds);
    return this.windowOf(this.budgetWindows, budget).sumMinor(nowSeconds);
  }

  count(velocity: PolicyVelocity, nowSeconds: number): number {
    this.prune(nowSeconds);
    return this.windowOf(this.velocityWindows, velocity).count(nowSeconds);
  }

  private newWindow(windowSeconds: number): WindowQueue {
    const window = new WindowQueue(windowSeconds, this.counter);
    if (this.latestSeconds !== Number.NEGATIVE_INFINITY) window.expire(this.latestSeconds);
    return window;
  }

  private slotsFor(entry: TrackedEntry): WindowSlot[] {
    const slots: WindowSlot[] = [];
    const consider = (covers: boolean, window: WindowQueue, multiple: number): void => {
      if (!covers) return;
      const item: WindowEntry = { atSeconds: entry.atSeconds, exposureMinor: entry.exposureMinor * multiple, counted: entry.counted };
      if (window.add(item)) slots.push({ window, item, multiple });
    };
    for (const [budget, window] of this.budgetWindows) consider(budgetCovers(budget, entry), window, chargesWithin(entry.schedule, budget.windowSeconds));
    for (const [velocity, window] of this.velocityWindows) consider(budgetCovers(velocity, entry), window, 1);
    return slots;
  }

  private change(entry: TrackedEntry, exposureDeltaMinor: number, countDelta: number): void {
    for (const slot of entry.slots) {
      const delta = exposureDeltaMinor * slot.multiple;
      slot.window.adjust(slot.item, delta, countDelta);
      slot.item.exposureMinor += delta;
      slot.item.counted = (slot.item.counted + countDelta) as 0 | 1;
    }
    entry.exposureMinor += exposureDeltaMinor;
    entry.counted = (entry.counted + countDelta) as 0 | 1;
  }

  private windowOf<K>(windows: Map<K, WindowQueue>, limit: K): WindowQueue {
    const window = windows.get(limit);
    if (window === undefined) throw new Error('UsageLedger: this limit is not from the ledger policy; call usePolicy first');
    return window;
  }

  private insertHistory(entry: TrackedEntry): void {
    let index = this.history.length;
    while (index > this.historyHead && (this.history[index - 1] as TrackedEntry).atSeconds > entry.atSeconds) index--;
    this.history.splice(index, 0, entry);
  }

  /** prune forgets entries older than the longest window any policy may have. */
  private prune(nowSeconds: number): void {
    if (nowSeconds <= this.latestSeconds) return;
    this.latestSeconds = nowSeconds;
    const cutoff = nowSeconds - POLICY_WINDOW_SECONDS_MAX;
    while (this.historyHead < this.history.length) {
      const entry = this.history[this.historyHead] as TrackedEntry;
      if (entry.atSeconds > cutoff) break;
      if (this.entries.get(entry.id) === entry) this.entries.delete(entry.id);
      this.historyHead++;
    }
    if (this.historyHead >= 1024 && this.historyHead * 2 >= this.history.length) {
      this.history = this.history.slice(this.historyHead);
      this.historyHead = 0;
    }
  }
}

function assertWhole(value: number, name: string): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`UsageLedger: ${name} must be a non-negative safe integer`);
}
