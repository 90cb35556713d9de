import type { CallerContext, CloudClient } from '../cloud/cloud-client.js';
import type { SigningKey } from '../cloud/signing-key.js';
import { randomId } from '../ids/random-id.js';
import type { SignedWindowCache } from './signed-window-cache.js';

/** One line of the audit log for a policy-window or revocation signature (decisions §11). */
export interface SignatureAudit {
  operation: string;
  policyId: string;
  cardId: string | null;
  merchant: string | null;
  amountMinor: number | null;
  currency: string | null;
  keyId: string;
  caller: CallerContext;
}

/**
 * CoreDeps is everything the core operations need from the daemon, as plain functions, so the
 * core has no HTTP and tests can supply their own.
 */
export interface CoreDeps {
  /** The cloud client for the configured cloud, or throws device_not_enrolled. */
  cloud(): CloudClient;
  /** The enrolled device: key and device id, or throws device_not_enrolled. */
  device(): { key: SigningKey; deviceId: string };
  /** Appends to the audit log durably; called before any response that carries the signature. */
  audit(record: SignatureAudit): Promise<void>;
  nowSeconds(): number;
  /**
   * Windows signed for requests that carried an Idempotency-Key, so a retry re-sends the same
   * window; without it every request signs afresh.
   */
  signedWindows?: SignedWindowCache;
}

/** How a core operation was asked for: the caller and an optional idempotency key. */
export interface OperationContext {
  caller: CallerContext;
  idempotencyKey: string | undefined;
  signal?: AbortSignal;
}

/**
 * idempotencyKeyOf returns the caller's Idempotency-Key, or a fresh one, so that the daemon's own
 * bounded retry of a money-moving request can never apply it twice (decisions §9).
 */
export function idempotencyKeyOf(context: OperationContext): string {
  return context.idempotencyKey ?? randomId('idem');
}
