import type { Principal } from './principal.js';

/** The local request a core operation serves: its request id and the caller's User-Agent. */
export interface LocalCaller {
  requestId: string;
  userAgent: string;
}

/** How a core operation was asked for: by whom, for which local request, with which key. */
export interface OperationContext {
  principal: Principal;
  caller: LocalCaller;
  idempotencyKey: string | undefined;
  signal?: AbortSignal;
  /**
   * Ends a hold for the owner's decision early (the caller went away, or the daemon is stopping),
   * which then answers with the approval as it stands; signal when absent.
   */
  waitSignal?: AbortSignal;
  /** How long the caller holds on for an owner's decision when its request needs approval (`Prefer: wait=N`). */
  approvalWaitSeconds?: number;
  /** True when the owner's presence was proved for this request (docs/decisions.md §21). */
  ownerPresent?: boolean;
  /** The passkey that proved it, when the owner console did (its audit lines name the credential). */
  presenceCredentialId?: string;
}
