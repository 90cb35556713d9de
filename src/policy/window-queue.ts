/**
 * One ledger entry as the windows see it. `exposureMinor` and `counted` change when the entry is
 * settled, released or cancelled; a window subtracts their current values when the entry leaves it.
 */
export interface WindowEntry {
  readonly atSeconds: number;
  exposureMinor: number;
  /** 1 while the authorization counts for velocity, 0 once cancelled. */
  counted: 0 | 1;
}

/** Counts the queue heads examined, so a test can prove evaluation never walks the history. */
export interface HeadCounter {
  headChecks: number;
}

/** Compaction drops the expired prefix once it is this long and at least half the array. */
const COMPACT_AFTER = 1024;

/**
 * WindowQueue keeps a rolling window's running sums over the entries in its scope, in time
 * order. An entry counts while `now − atSeconds < windowSeconds`; expiring pops from the head, so
 * each entry is popped once and every query is amortised O(1). The window's end only moves
 * forward: a clock that steps back does not bring expired entries back.
 */
export class WindowQueue {
  private items: WindowEntry[] = [];
  private head = 0;
  /** Entries at or before this second have left the window. */
  private cutoffSeconds = Number.NEGATIVE_INFINITY;
  private sum = 0;
  private total = 0;

  constructor(
    readonly windowSeconds: number,
    private readonly counter: HeadCounter,
  ) {}

  /** sumMinor is the exposure within the window ending at nowSeconds. */
  sumMinor(nowSeconds: number): number {
    this.expire(nowSeconds);
    return this.sum;
  }

  /** count is the number of authorizations within the window ending at nowSeconds. */
  count(nowSeconds: number): number {
    this.expire(nowSeconds);
    return this.total;
  }

  /**
   * add puts an entry into the window in time order and reports whether it did; an entry already
   * older than the window is left out. Entries almost always arrive in order (a push); an older
   * one, e.g. from a rebuild, is inserted in place.
   */
  add(entry: WindowEntry): boolean {
    if (entry.atSeconds <= this.cutoffSeconds) return false;
    let index = this.items.length;
    while (index > this.head && (this.items[index - 1] as WindowEntry).atSeconds > entry.atSeconds) index--;
    this.items.splice(index, 0, entry);
    this.adjust(entry, entry.exposureMinor, entry.counted);
    return true;
  }

  /** adjust changes the sums for an entry the window still holds (settle, release, cancel). */
  adjust(entry: WindowEntry, exposureDeltaMinor: number, countDelta: number): void {
    if (entry.atSeconds <= this.cutoffSeconds) return;
    this.sum += exposureDeltaMinor;
    this.total += countDelta;
    if (!Number.isSafeInteger(this.sum) || this.sum < 0 || this.total < 0) throw new Error('WindowQueue: sums out of range');
  }

  /** expire moves the window's end to nowSeconds and pops the entries that left it. */
  expire(nowSeconds: number): void {
    this.cutoffSeconds = Math.max(this.cutoffSeconds, nowSeconds - this.windowSeconds);
    while (this.head < this.items.length) {
      this.counter.headChecks++;
      const entry = this.items[this.head] as WindowEntry;
      if (entry.atSeconds > this.cutoffSeconds) break;
      this.sum -= entry.exposureMinor;
      this.total -= entry.counted;
      this.head++;
    }
    if (this.head >= COMPACT_AFTER && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
