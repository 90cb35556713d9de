import type { LocalCaller } from './operation-context.js';
import type { Principal } from './principal.js';

/** One line of the audit log for a policy-window or revocation signature (docs/decisions.md §11). */
export interface SignatureAudit {
  operation: string;
  policyId: string;
  cardId: string | null;
  merchant: string | null;
  amountMinor: number | null;
  currency: string | null;
  keyId: string;
  caller: LocalCaller;
  principal: Principal;
  /** The caller's purpose signed into the window, when given. */
  reference?: string;
  /** The SHA-256 of the request the window was signed for (docs/decisions.md §22), for a registered window. */
  requestSha256?: string;
  /** An AP2 mandate's line (`ap2_mandate_signed`): the mandates by their sd_hash, and the agent key they bind. */
  mandate?: { mandateId: string; openCheckoutSdHash: string; openPaymentSdHash: string; agentKeyThumbprint: string };
}

/**
 * WindowNotRecorded is how a cloud gateway reports that the audit line of a window it was to send
 * (CloudCall.window) could not be written, so nothing was sent: the window never left the device,
 * and its ledger entry is `failed`. `cause` is the error of the write, which the caller answers.
 */
export class WindowNotRecorded extends Error {
  constructor(override readonly cause: unknown) {
    super('the audit line of the window could not be written; nothing was sent');
    this.name = 'WindowNotRecorded';
  }
}
