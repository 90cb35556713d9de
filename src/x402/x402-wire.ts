/**
 * The x402 guard's wire shapes (shared/spec/x402.md §2–3): an authorization as POST
 * /x402/authorize, the lifecycle routes and GET /authorizations show it, and an x402 request's
 * terms as an approval shows them to the owner. Written once; the MCP tool, the CLI and the console
 * show these.
 */
import type { AuthorizationEntry } from '../core/authorization-ledger.js';
import type { X402Request } from '../core/authorization-request.js';
import { currencyDecimals, formatMinor } from '../money/amount.js';
import { isoSeconds } from '../time/iso-time.js';

/** x402TermsWire is what the owner approves: the resource, the requirements and the asset as counted. */
export function x402TermsWire(request: X402Request): Record<string, unknown> {
  const { requirements, resource, symbol } = request.x402;
  return {
    resource,
    scheme: requirements.scheme,
    network: requirements.network,
    asset: requirements.asset,
    symbol,
    pay_to: requirements.payTo,
    amount_max: requirements.amount,
    max_timeout_seconds: requirements.maxTimeoutSeconds,
  };
}

/** x402EntryWire is one x402 authorization: its terms, its state and, once reported, what settled. */
export function x402EntryWire(entry: Readonly<Pick<AuthorizationEntry, 'policyId' | 'agent' | 'merchant' | 'currency' | 'amountMinor' | 'signedAtSeconds' | 'notAfterSeconds' | 'jws' | 'x402'>>): Record<string, unknown> {
  const detail = entry.x402;
  if (detail === undefined) throw new Error('x402EntryWire: not an x402 entry');
  const decimals = currencyDecimals(entry.currency) ?? 2;
  const settle = detail.report?.kind === 'settle_response' ? detail.report.settleResponse : undefined;
  return {
    authorization_id: entry.policyId,
    kind: 'x402',
    status: detail.state,
    scheme: detail.requirements.scheme,
    network: detail.requirements.network,
    asset: detail.requirements.asset,
    symbol: detail.symbol,
    pay_to: detail.requirements.payTo,
    amount_max: detail.requirements.amount,
    amount: formatMinor(entry.amountMinor, decimals),
    currency: entry.currency,
    merchant_name: entry.merchant,
    expires_at: isoSeconds(entry.notAfterSeconds),
    receipt: entry.jws ?? null,
    agent: entry.agent,
    created_at: isoSeconds(entry.signedAtSeconds),
    resource_url: detail.resource.url,
    requirements_sha256: detail.requirementsSha256,
    payload_sha256: detail.payloadSha256,
    settled_amount: detail.settledMinor === null ? null : formatMinor(detail.settledMinor, decimals),
    transaction: typeof settle?.['transaction'] === 'string' ? settle['transaction'] : null,
    reported: detail.report === null ? null : detail.report.kind === 'outcome' ? detail.report.outcome : settle?.['success'] === true ? 'settled' : 'settle_failed',
  };
}
