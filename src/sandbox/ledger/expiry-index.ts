/**
 * The active windows in the order they expire, derived by apply and never journaled (like the
 * creation indexes): expiry reads from the front only as far as the clock has passed, instead of
 * looking at every active window on every operation (docs/decisions.md §39.4).
 *
 * A sorted array of [not_after, policy_id], ties by policy_id, so its content depends only on
 * which windows are active: a state replayed from the journal or loaded from a snapshot equals
 * the live one. A new window almost always expires last (pushed at the end); a window that ends
 * early (used, revoked) is found by binary search.
 */
export type ExpiryIndex = Array<[notAfter: number, policyId: string]>;

/** before reports whether entry a sorts before entry b. */
function before(a: readonly [number, string], b: readonly [number, string]): boolean {
  return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
}

/** position is the first index whose entry does not sort before entry (binary search). */
function position(index: ExpiryIndex, entry: readonly [number, string]): number {
  let low = 0;
  let high = index.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (before(index[middle] as [number, string], entry)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** indexExpiry files an active window by its not_after. */
export function indexExpiry(index: ExpiryIndex, notAfter: number, policyId: string): void {
  const entry: [number, string] = [notAfter, policyId];
  const last = index[index.length - 1];
  if (last === undefined || before(last, entry)) index.push(entry);
  else index.splice(position(index, entry), 0, entry);
}

/** unindexExpiry removes a window that ended (expired, revoked, used); absent is a no-op. */
export function unindexExpiry(index: ExpiryIndex, notAfter: number, policyId: string): void {
  const at = position(index, [notAfter, policyId]);
  const found = index[at];
  if (found !== undefined && found[0] === notAfter && found[1] === policyId) index.splice(at, 1);
}

/** expiredBefore lists the windows whose not_after is before now (the window includes not_after), soonest first. */
export function expiredBefore(index: ExpiryIndex, now: number): string[] {
  const due: string[] = [];
  for (const [notAfter, policyId] of index) {
    if (notAfter >= now) break;
    due.push(policyId);
  }
  return due;
}
