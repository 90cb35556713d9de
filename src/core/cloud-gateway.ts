/**
 * The cloud as the core sees it: typed calls that return model values. The core never builds a
 * cloud request or reads a cloud answer itself; src/cloud/ implements this over the HTTP client,
 * and tests supply a fake that returns model values.
 */
import type { SigningKey } from '../crypto/signing-key.js';
import type { Ed25519PublicJwk } from '../crypto/jwk.js';
import type { Allocation, Authorization, AuthorizationStatus, Card, Transaction, TransactionPage, TransactionStatus, Wallet } from './model.js';
import type { Principal } from './principal.js';
import type { SignatureAudit } from './signature-audit.js';

/**
 * How one cloud call is made: the device key that signs the request (the same key the operation
 * resolved once and signed its window with), who asked, and the request's idempotency key.
 */
export interface CloudCall {
  key: SigningKey;
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

export interface TransactionQuery {
  limit: number;
  startingAfter: string | undefined;
  cardId: string | undefined;
  status: TransactionStatus | undefined;
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

/** What POST /v1/devices sends: the setup token, the new key's public JWK and a device name. */
export interface DeviceEnrollmentRequest {
  setupToken: string;
  publicJwk: Ed25519PublicJwk;
  deviceName: string;
}

export interface Enrollment {
  deviceId: string;
  keyId: string;
  accountId: string;
}

/** CloudGateway is every cloud call the core makes. Cloud refusals reject with a LatchError. */
export interface CloudGateway {
  /** registerAuthorization submits a signed card window; the cloud answers with the authorization. */
  registerAuthorization(jws: string, call: CloudCall): Promise<Authorization>;
  /** revokeAuthorization submits a signed revocation of policyId. */
  revokeAuthorization(policyId: string, jws: string, call: CloudCall): Promise<Authorization>;
  getAuthorization(policyId: string, call: CloudCall): Promise<Authorization>;
  listAuthorizations(query: AuthorizationQuery, call: CloudCall): Promise<AuthorizationPage>;
  listCards(call: CloudCall): Promise<Card[]>;
  getCard(cardId: string, call: CloudCall): Promise<Card>;
  listTransactions(query: TransactionQuery, call: CloudCall): Promise<TransactionPage>;
  getTransaction(transactionId: string, call: CloudCall): Promise<Transaction>;
  wallet(call: CloudCall): Promise<Wallet>;
  allocate(cardId: string, amountMinor: number, call: CloudCall): Promise<Allocation>;
  /** enrollDevice registers call.key (proof of possession: the request is signed by it). */
  enrollDevice(request: DeviceEnrollmentRequest, call: CloudCall): Promise<Enrollment>;
}
