import type { Ledger } from '../ledger/ledger.js';
import type { SandboxLimits } from '../ops/limits.js';
import type { FairTurns } from './fair-turns.js';

/** What every sandbox route handler shares: the ledger and the request bookkeeping around it. */
export interface SandboxContext {
  ledger: Ledger;
  limits: SandboxLimits;
  /** The admin key; compared in constant time, never logged or returned. */
  adminKey: string;
  /** Nonces of verified requests whose journal record is not written yet, so a concurrent replay is refused too. */
  pendingNonces: Set<string>;
  /** `scope NUL Idempotency-Key` of requests between arrival and their answer (docs/decisions.md §9: in use). */
  inFlightKeys: Set<string>;
  /** One device request verified per turn of the event loop, so answers are not held behind a batch. */
  turns: FairTurns;
  /** The host:port names of this sandbox (set once it listens); signatures must name one of them. */
  ownAuthorities: Set<string>;
}
