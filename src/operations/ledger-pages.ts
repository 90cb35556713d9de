/**
 * The authorization ledger's entries in signing order, for the listing's pages (newest first, by
 * agent or card: O(limit), never a scan of history). It follows the ledger (core/authorization-ledger.ts,
 * `follow`), decides nothing and writes nothing; the ledger itself keeps its entries in one Map.
 */
import type { AuthorizationEntry, StoredAuthorizationLedger } from '../core/authorization-ledger.js';

/** The most entries one page may ask for. */
export const AUTHORIZATION_PAGE_LIMIT_MAX = 100;

/** What a page asks for: newest first, after startingAfter, of one agent and/or one card. */
export interface LedgerPageQuery {
  agent?: string;
  cardId?: string;
  limit: number;
  startingAfter?: string;
}

/** One index over the entries in signing order: the ids, and each id's position. */
class SigningOrderIndex {
  readonly ids: string[] = [];
  head = 0;
  readonly position = new Map<string, number>();

  append(policyId: string): void {
    this.position.set(policyId, this.ids.length);
    this.ids.push(policyId);
  }

  /** dropHead forgets the oldest id when it is policyId (entries leave every index oldest first). */
  dropHead(policyId: string): void {
    if (this.ids[this.head] !== policyId) return;
    this.position.delete(policyId);
    this.head++;
    if (this.head >= 1024 && this.head * 2 >= this.ids.length) {
      this.ids.splice(0, this.head);
      this.head = 0;
      for (let i = 0; i < this.ids.length; i++) this.position.set(this.ids[i] as string, i);
    }
  }

  get size(): number {
    return this.ids.length - this.head;
  }
}

/** LedgerPages pages one ledger's entries; make one per ledger (it follows the ledger from then on). */
export class LedgerPages {
  private readonly entries = new Map<string, Readonly<AuthorizationEntry>>();
  private readonly all = new SigningOrderIndex();
  private readonly byAgent = new Map<string, SigningOrderIndex>();
  private readonly byCard = new Map<string, SigningOrderIndex>();

  constructor(private readonly ledger: Pick<StoredAuthorizationLedger, 'follow' | 'forgetExpired'>) {
    ledger.follow({ added: (entry) => this.added(entry), forgotten: (entry) => this.forgotten(entry) });
  }

  /** page lists entries newest first (copies), after startingAfter when given. */
  page(query: LedgerPageQuery): { entries: AuthorizationEntry[]; hasMore: boolean } {
    if (!Number.isSafeInteger(query.limit) || query.limit < 1 || query.limit > AUTHORIZATION_PAGE_LIMIT_MAX) throw new Error('LedgerPages.page: limit out of range');
    this.ledger.forgetExpired();
    const index = this.indexFor(query.agent, query.cardId);
    if (index === undefined) return { entries: [], hasMore: false };
    let from = index.ids.length - 1;
    if (query.startingAfter !== undefined) {
      const position = index.position.get(query.startingAfter);
      if (position === undefined) return { entries: [], hasMore: false };
      from = position - 1;
    }
    const entries: AuthorizationEntry[] = [];
    let i = from;
    for (; i >= index.head && entries.length < query.limit; i--) {
      const entry = this.entries.get(index.ids[i] as string) as AuthorizationEntry;
      // With both filters, the smaller index is walked and the other condition checked; the
      // walk is still bounded by the entries of that one agent or card.
      if (matches(entry, query)) entries.push({ ...entry });
    }
    return { entries, hasMore: this.anyMatchBelow(index, i, query) };
  }

  private added(entry: Readonly<AuthorizationEntry>): void {
    this.entries.set(entry.policyId, entry);
    this.all.append(entry.policyId);
    indexIn(this.byAgent, entry.agent).append(entry.policyId);
    if (entry.cardId !== null) indexIn(this.byCard, entry.cardId).append(entry.policyId);
  }

  private forgotten(entry: Readonly<AuthorizationEntry>): void {
    this.entries.delete(entry.policyId);
    this.all.dropHead(entry.policyId);
    this.byAgent.get(entry.agent)?.dropHead(entry.policyId);
    if (entry.cardId !== null) this.byCard.get(entry.cardId)?.dropHead(entry.policyId);
  }

  private indexFor(agent: string | undefined, cardId: string | undefined): SigningOrderIndex | undefined {
    const agentIndex = agent === undefined ? undefined : this.byAgent.get(agent);
    const cardIndex = cardId === undefined ? undefined : this.byCard.get(cardId);
    if (agent !== undefined && cardId !== undefined) {
      if (agentIndex === undefined || cardIndex === undefined) return undefined;
      return agentIndex.size <= cardIndex.size ? agentIndex : cardIndex;
    }
    if (agent !== undefined) return agentIndex;
    if (cardId !== undefined) return cardIndex;
    return this.all;
  }

  private anyMatchBelow(index: SigningOrderIndex, from: number, query: LedgerPageQuery): boolean {
    for (let i = from; i >= index.head; i--) if (matches(this.entries.get(index.ids[i] as string) as AuthorizationEntry, query)) return true;
    return false;
  }
}

function matches(entry: Readonly<AuthorizationEntry>, query: LedgerPageQuery): boolean {
  return (query.agent === undefined || entry.agent === query.agent) && (query.cardId === undefined || entry.cardId === query.cardId);
}

function indexIn(map: Map<string, SigningOrderIndex>, key: string): SigningOrderIndex {
  let index = map.get(key);
  if (index === undefined) {
    index = new SigningOrderIndex();
    map.set(key, index);
  }
  return index;
}
