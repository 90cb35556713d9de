/**
 * The x402 authorization as a state machine (shared/spec/x402.md §3):
 *
 *     authorized → bound → settled | failed
 *     authorized → released | expired
 *
 * A hold that is captured, voided or expires at most once. Every change is a named record
 * (X402Transition) that one function, applyX402Transition, turns into the entry's next state —
 * the same function live (in the turn the record is queued) and at replay — and `checkTransition`
 * says, before anything is written, whether a transition is allowed from the state the entry is in.
 * What the budgets see follows from the x402 state (ledgerStateOf): authorized and bound stay
 * counted in full; settled counts what settled; released, failed and expired count nothing.
 */
import type { AuthorizationStatus, X402State } from './model.js';
import type { RecordedDecision } from './decision-record.js';
import type { X402Requirements, X402Resource } from '../x402/requirements.js';

/** What an agent reported of a bound payment: x402's SettleResponse, or that it never got one. */
export type X402Report =
  | { kind: 'settle_response'; settleResponse: Record<string, unknown> }
  | { kind: 'outcome'; outcome: 'verify_failed' | 'transport_error' };

/** The x402 part of a ledger entry: the terms, the decision, and what happened to it since. */
export interface X402Detail {
  state: X402State;
  requirements: X402Requirements;
  /** requirementsSha256(requirements): what the receipt and the evidence pack name. */
  requirementsSha256: string;
  resource: X402Resource;
  /** The caller's reference, as on /authorize (part of the request its SHA-256 covers). */
  reference: string | null;
  symbol: string;
  decimals: number;
  /** requestSha256 of the X402Request, as the approval's audit lines name it. */
  requestSha256: string;
  receivedAtSeconds: number;
  decision: RecordedDecision;
  approvalId: string | null;
  keyId: string;
  /** The caller's Idempotency-Key the entry was made under (its scope and the request fingerprint's hash). */
  idempotency: { scope: string; key: string; fingerprintSha256: string } | null;
  payloadSha256: string | null;
  boundAtSeconds: number | null;
  report: X402Report | null;
  reportedAtSeconds: number | null;
  /** The counted settled amount in minor units, once settled (exact: the amount; upto: what settled, rounded up). */
  settledMinor: number | null;
  /** When it was released, failed or expired. */
  endedAtSeconds: number | null;
}

/** One change of an x402 entry, as state.journal keeps it. */
export type X402Transition =
  | { to: 'bound'; atSeconds: number; payloadSha256: string }
  | { to: 'settled'; atSeconds: number; report: X402Report; settledMinor: number }
  | { to: 'failed'; atSeconds: number; report: X402Report }
  /** A transport_error report: the entry stays bound and counted in full; only the report is kept. */
  | { to: 'reported'; atSeconds: number; report: X402Report }
  | { to: 'released'; atSeconds: number }
  | { to: 'expired'; atSeconds: number };

/** The states a transition may start from. */
const ALLOWED_FROM: Readonly<Record<X402Transition['to'], readonly X402State[]>> = {
  bound: ['authorized'],
  settled: ['bound'],
  failed: ['bound'],
  reported: ['bound'],
  // The owner may release a bound entry (shared/spec/x402.md §3); the route checks who asks.
  released: ['authorized', 'bound'],
  expired: ['authorized'],
};

/** checkTransition reports whether transition may apply to detail now: a report only once, each state once. */
export function checkTransition(detail: Readonly<X402Detail>, transition: X402Transition): boolean {
  if (!ALLOWED_FROM[transition.to].includes(detail.state)) return false;
  // After a transport_error report the entry stays bound, but the first report wins.
  if ((transition.to === 'settled' || transition.to === 'failed' || transition.to === 'reported') && detail.report !== null) return false;
  return true;
}

/**
 * applyX402Transition changes detail in place to the state after transition; it throws on a
 * transition checkTransition refuses (a programmer error live; a corrupt journal at replay).
 */
export function applyX402Transition(detail: X402Detail, transition: X402Transition): void {
  if (!checkTransition(detail, transition)) throw new Error(`x402: no transition to ${transition.to} from ${detail.state}`);
  switch (transition.to) {
    case 'bound':
      detail.state = 'bound';
      detail.payloadSha256 = transition.payloadSha256;
      detail.boundAtSeconds = transition.atSeconds;
      return;
    case 'settled':
      detail.state = 'settled';
      detail.report = transition.report;
      detail.reportedAtSeconds = transition.atSeconds;
      detail.settledMinor = transition.settledMinor;
      return;
    case 'failed':
      detail.state = 'failed';
      detail.report = transition.report;
      detail.reportedAtSeconds = transition.atSeconds;
      detail.endedAtSeconds = transition.atSeconds;
      return;
    case 'reported':
      detail.report = transition.report;
      detail.reportedAtSeconds = transition.atSeconds;
      return;
    case 'released':
    case 'expired':
      detail.state = transition.to;
      detail.endedAtSeconds = transition.atSeconds;
      return;
  }
}

/**
 * ledgerStateOf is what the budgets count for an x402 state: `active` (counted in full) until it
 * settles (`used`, counted at what settled) or ends without paying (`revoked` or `expired`:
 * nothing counted, still one authorization for velocity).
 */
export function ledgerStateOf(detail: Readonly<X402Detail>): { state: AuthorizationStatus; usedMinor: number | null } {
  switch (detail.state) {
    case 'authorized':
    case 'bound':
      return { state: 'active', usedMinor: null };
    case 'settled':
      return { state: 'used', usedMinor: detail.settledMinor };
    case 'failed':
    case 'released':
      return { state: 'revoked', usedMinor: null };
    case 'expired':
      return { state: 'expired', usedMinor: null };
  }
}
