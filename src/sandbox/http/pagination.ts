import { invalidRequest } from '../../errors/latch-error.js';

/** Lists return at most 100 items per page, 20 unless `limit` says otherwise (docs/decisions.md §4). */
export const PAGE_LIMIT_MAX = 100;
export const PAGE_LIMIT_DEFAULT = 20;

/**
 * paginate returns the page after `startingAfter` (an id in items) of at most limit items, and
 * whether more follow. items are already filtered and newest first. An id that is not in the
 * list is refused rather than read as "from the start", which would repeat items to the caller.
 */
export function paginate<T>(items: readonly T[], idOf: (item: T) => string, limit: number, startingAfter: string | undefined): { page: T[]; hasMore: boolean } {
  let start = 0;
  if (startingAfter !== undefined) {
    const index = items.findIndex((item) => idOf(item) === startingAfter);
    if (index === -1) throw invalidRequest('starting_after', 'starting_after is not an id in this list.');
    start = index + 1;
  }
  const page = items.slice(start, start + limit);
  return { page, hasMore: start + limit < items.length };
}

/** newestFirst lists a creation-ordered map's values from the newest, keeping those that pass keep. */
export function newestFirst<T>(values: Iterable<T>, keep: (item: T) => boolean): T[] {
  const kept: T[] = [];
  for (const item of values) if (keep(item)) kept.push(item);
  return kept.reverse();
}
