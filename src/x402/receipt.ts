/**
 * The receipt of an x402 authorization (shared/spec/x402.md §2): a JWS by the device key over the
 * terms, the SHA-256 of the requirements, the agent and the times, with its own `typ`
 * (JWS_TYP.x402Receipt, crypto/signature-purposes.ts), never accepted where a window or a pack is. Its payload is derived from the
 * ledger entry alone, so the signer can rebuild it from what it reads itself and compare.
 */
import type { AuthorizationEntry } from '../core/authorization-ledger.js';
import { formatMinor, currencyDecimals } from '../money/amount.js';

/** What the receipt says. */
export interface X402ReceiptPayload {
  typ: 'x402_receipt';
  authorization_id: string;
  agent: string;
  merchant: string;
  resource_url: string;
  scheme: string;
  network: string;
  asset: string;
  pay_to: string;
  /** The atomic maximum, as the requirements name it. */
  amount_max: string;
  /** As counted, in `currency` (rounded up to its minor unit). */
  amount: string;
  currency: string;
  requirements_sha256: string;
  iat: number;
  exp: number;
}

/** receiptPayload is the receipt of an x402 ledger entry; undefined for any other entry. */
export function receiptPayload(entry: Readonly<AuthorizationEntry>): X402ReceiptPayload | undefined {
  const detail = entry.x402;
  if (detail === undefined) return undefined;
  return {
    typ: 'x402_receipt',
    authorization_id: entry.policyId,
    agent: entry.agent,
    merchant: entry.merchant,
    resource_url: detail.resource.url,
    scheme: detail.requirements.scheme,
    network: detail.requirements.network,
    asset: detail.requirements.asset,
    pay_to: detail.requirements.payTo,
    amount_max: detail.requirements.amount,
    amount: formatMinor(entry.amountMinor, currencyDecimals(entry.currency) ?? 2),
    currency: entry.currency,
    requirements_sha256: detail.requirementsSha256,
    iat: entry.signedAtSeconds,
    exp: entry.notAfterSeconds,
  };
}
