/**
 * The cloud calls of the operations outside the audited core: reading cards, transactions and the
 * wallet, and enrolling a device. src/cloud/http-cloud-gateway.ts implements them beside the
 * core's CloudGateway, over the same signing client (so each request is signed and audited alike).
 */
import type { Ed25519PublicJwk } from '../crypto/jwk.js';
import type { CloudCall, CloudGateway } from '../core/cloud-gateway.js';
import type { EnrolledDevice } from '../core/core-deps.js';
import type { Card, Transaction, TransactionPage, TransactionStatus, Wallet } from './read-model.js';

export interface TransactionQuery {
  limit: number;
  startingAfter: string | undefined;
  cardId: string | undefined;
  status: TransactionStatus | undefined;
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

export interface CloudReads {
  listCards(call: CloudCall): Promise<Card[]>;
  getCard(cardId: string, call: CloudCall): Promise<Card>;
  listTransactions(query: TransactionQuery, call: CloudCall): Promise<TransactionPage>;
  getTransaction(transactionId: string, call: CloudCall): Promise<Transaction>;
  wallet(call: CloudCall): Promise<Wallet>;
  /** enrollDevice registers call.key (proof of possession: the request is signed by it). */
  enrollDevice(request: DeviceEnrollmentRequest, call: CloudCall): Promise<Enrollment>;
}

/** The enrolled device with the cloud's reads as well as the core's calls (the daemon's gateway is both). */
export interface ReadingDevice extends EnrolledDevice {
  cloud: CloudGateway & CloudReads;
}
