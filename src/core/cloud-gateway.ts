/**
 * The cloud as the core sees it: typed calls that return model values. The core never builds a
 * cloud request or reads a cloud answer itself; src/cloud/ implements this over the HTTP client,
 * and tests supply a fake that returns model values.
 */
import type { UpstreamKey } from '../crypto/signing-key.js';
import type { Allocation, Authorization, AuthorizationStatus } from './model.js';
import type { Principal } from './principal.js';
import type { SignatureAudit } from './signature-audit.js';

/**
 * How one cloud call is made: the device key that signs the request (the same key the operation
 * resolved once and signed its window with), who asked, and the request's idempotency key.
 */
export interface CloudCall {
  key: UpstreamKey;
  /** Who asked, for the audit line of the request signature; absent only for enrollment. */
  caller?: { requestId: string; userAgent: string; principal: Principal };
  /** Sent on money-moving calls, so the client's bounded retry cannot apply them twice. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /**
   * The window this request carries to the cloud: its signature is recorded in the same audit
   * line as the request's, written before the request leaves (docs/decisions.md §16.3).
   */
  window?: SignatureAudit;
}

export interface AuthorizationQuery {
  limit: number;
  startingAfter: string | undefined;
  cardId: string | undefined;
  status: AuthorizationStatus | undefined;
}

export interface AuthorizationPage {
  authorizations: Authorization[];
  hasMore: boolean;
}

/**
 * CloudGateway is every cloud call the core makes: the ones that register, revoke or move money, and
 * the authorization reads whose status the ledger notes. The reads of cards, transactions and the
 * wallet, and enrollment, are operations/cloud-reads.ts. Cloud refusals reject with a LatchError.
 */
export interface CloudGateway {
  /** registerAuthorization submits a signed card window; the cloud answers with the authorization. */
  registerAuthorization(jws: string, call: CloudCall): Promise<Authorization>;
  /** revokeAuthorization submits a signed revocation of policyId. */
  revokeAuthorization(policyId: string, jws: string, call: CloudCall): Promise<Authorization>;
  getAuthorization(policyId: string, call: CloudCall): Promise<Authorization>;
  listAuthorizations(query: AuthorizationQuery, call: CloudCall): Promise<AuthorizationPage>;
  allocate(cardId: string, amountMinor: number, call: CloudCall): Promise<Allocation>;
}
