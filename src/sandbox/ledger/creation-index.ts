/**
 * A creation-order index of one kind of ledger object (transactions, authorizations), derived by
 * apply and never journaled: every id gets an ordinal when it is created, and each scope (an
 * account, an account's card) keeps its ordinals in ascending order. A newest-first page then
 * starts at the end of its scope's list, or at the cursor found by binary search, and reads only
 * as far as the page needs, instead of filtering every object the ledger has ever had.
 *
 * Plain data (arrays and maps), so that state copies and comparisons treat it like the rest.
 */
export interface CreationIndex {
  /** Ids by ordinal, in creation order. */
  ids: string[];
  ordinals: Map<string, number>;
  /** Per scope key, the ordinals of its ids, ascending. */
  scopes: Map<string, number[]>;
}

/** emptyCreationIndex returns an index with nothing in it. */
export function emptyCreationIndex(): CreationIndex {
  return { ids: [], ordinals: new Map(), scopes: new Map() };
}

/** accountScope and cardScope name the lists a page is read from; a card's list is within its account. */
export function accountScope(accountId: string): string {
  return `a\u0000${accountId}`;
}

export function cardScope(accountId: string, cardId: string): string {
  return `c\u0000${accountId}\u0000${cardId}`;
}

/** indexCreated adds a newly created id to the end of each of its scopes; an id already indexed is left where it is. */
export function indexCreated(index: CreationIndex, id: string, scopes: readonly string[]): void {
  if (index.ordinals.has(id)) return;
  const ordinal = index.ids.length;
  index.ids.push(id);
  index.ordinals.set(id, ordinal);
  for (const scope of scopes) {
    const list = index.scopes.get(scope);
    if (list === undefined) index.scopes.set(scope, [ordinal]);
    else list.push(ordinal);
  }
}

/**
 * newestFirstIds yields the scope's ids from the newest, starting after the id `after` (older
 * than it) when given. It returns false, yielding nothing, when `after` is not in the scope.
 */
export function newestFirstIds(index: CreationIndex, scope: string, after: string | undefined): Iterable<string> | false {
  const list = index.scopes.get(scope) ?? [];
  let end = list.length;
  if (after !== undefined) {
    const ordinal = index.ordinals.get(after);
    const at = ordinal === undefined ? -1 : positionOf(list, ordinal);
    if (at === -1) return false;
    end = at;
  }
  return (function* walk() {
    for (let position = end - 1; position >= 0; position -= 1) yield index.ids[list[position] as number] as string;
  })();
}

/** positionOf finds ordinal in an ascending list by binary search, or -1. */
function positionOf(list: readonly number[], ordinal: number): number {
  let low = 0;
  let high = list.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const value = list[middle] as number;
    if (value === ordinal) return middle;
    if (value < ordinal) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}
