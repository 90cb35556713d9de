/** What the x402 guard adds to the core's dependencies (docs/x402.md). */
import type { AuthorizationEntry } from './authorization-ledger.js';
import type { OperationContext } from './operation-context.js';
import type { X402Index } from './x402-index.js';
import type { Approval } from './approval.js';
import type { X402Asset } from '../x402/assets.js';

/** What POST /x402/authorize answers: the authorized entry, or the approval that holds the request. */
export type X402Result = { outcome: 'authorized'; entry: AuthorizationEntry } | { outcome: 'approval_pending'; approval: Approval };

/** The audit lines of the x402 guard (shared/spec/x402.md §3). */
export type X402AuditOperation = 'x402_authorized' | 'x402_bound' | 'x402_settled' | 'x402_failed' | 'x402_released' | 'x402_expired' | 'x402_settlement_anomaly';

/** One x402 audit line: the entry as it now is, and who caused the change (none for an expiry). */
export interface X402AuditLine {
  operation: X402AuditOperation;
  entry: Readonly<AuthorizationEntry>;
  context: OperationContext | undefined;
  /** Why it was released or failed: `terms_changed`, `payload_creation_failed`, `verify_failed`, ... */
  reason?: string;
}

export interface X402Deps {
  /** The assets that count: policy.json's `x402.assets`, or x402's default USDC entries. */
  assets(): readonly X402Asset[];
  /** Appends one x402 audit line durably; called before the answer it belongs to. */
  audit(line: X402AuditLine): Promise<void>;
  /** The x402 entries by Idempotency-Key, and the unbound ones (follows the ledger). */
  index: X402Index;
  /** Attempts under way per caller key, so a concurrent retry shares one (memory only). */
  running: Map<string, Promise<{ result: X402Result; fingerprint: string }>>;
}
