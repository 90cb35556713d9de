/**
 * The x402 guard bound to one daemon (docs/x402.md): the assets that count, read from the policy in
 * force; its audit lines, each on disk in audit.log before its answer; the index of its entries
 * over the authorization ledger; and the operations its routes and the MCP tool call.
 */
import type { AuthorizationEntry, StoredAuthorizationLedger } from '../core/authorization-ledger.js';
import type { CoreDeps } from '../core/core-deps.js';
import { principalName } from '../core/principal.js';
import { requestX402Authorization } from '../core/x402-authorize.js';
import type { X402AuditLine, X402Deps } from '../core/x402-deps.js';
import { X402Index } from '../core/x402-index.js';
import { bindPayload, expireDue, releaseEntry, reportSettlement } from '../core/x402-lifecycle.js';
import type { AuditEntry } from '../datadir/audit-entry.js';
import { currencyDecimals, formatMinor } from '../money/amount.js';
import type { PolicyGate } from '../policy/policy-gate.js';
import type { X402Operations } from '../variant-a/x402-routes.js';

/** x402Deps is what the core's x402 steps need, from the policy gate, the audit log and the ledger. */
export function x402Deps(policy: Pick<PolicyGate, 'effective'>, ledger: StoredAuthorizationLedger, appendAudit: (entry: AuditEntry) => Promise<unknown>): X402Deps {
  return {
    assets: () => policy.effective().x402Assets,
    audit: async (line) => {
      await appendAudit(x402AuditEntry(line));
    },
    index: new X402Index(ledger),
    running: new Map(),
  };
}

/** bindX402 gives the x402 routes the core's operations. */
export function bindX402(deps: CoreDeps): X402Operations {
  return {
    assets: () => deps.x402.assets(),
    authorize: async (input, context) => {
      await expireDue(deps);
      return requestX402Authorization(deps, input, context);
    },
    bind: (id, accepted, payloadSha256, context) => bindPayload(deps, id, accepted, payloadSha256, context),
    report: (id, report, context) => reportSettlement(deps, id, report, context),
    release: (id, context) => releaseEntry(deps, id, context),
  };
}

/** x402AuditEntry is one x402 audit line: the entry's terms and state, and for a settlement what settled. */
export function x402AuditEntry(line: X402AuditLine): AuditEntry {
  const { entry } = line;
  const detail = entry.x402 as NonNullable<AuthorizationEntry['x402']>;
  const decimals = currencyDecimals(entry.currency) ?? 2;
  const settle = detail.report?.kind === 'settle_response' ? detail.report.settleResponse : undefined;
  const settled = line.operation === 'x402_settled' || line.operation === 'x402_settlement_anomaly';
  return {
    operation: line.operation,
    policy_id: entry.policyId,
    card_id: null,
    merchant: entry.merchant,
    amount: formatMinor(entry.amountMinor, decimals),
    currency: entry.currency,
    key_id: line.operation === 'x402_authorized' ? detail.keyId : null,
    request_id: line.context?.caller.requestId ?? null,
    user_agent: line.context?.caller.userAgent ?? null,
    agent: line.context === undefined ? entry.agent : principalName(line.context.principal),
    kind: 'x402',
    scheme: detail.requirements.scheme,
    network: detail.requirements.network,
    asset: detail.requirements.asset,
    pay_to: detail.requirements.payTo,
    amount_max: detail.requirements.amount,
    requirements_sha256: detail.requirementsSha256,
    ...(line.operation === 'x402_authorized' && { request_sha256: detail.requestSha256, ...(detail.approvalId !== null && { approval_id: detail.approvalId }) }),
    ...(line.operation === 'x402_bound' && detail.payloadSha256 !== null && { payload_sha256: detail.payloadSha256 }),
    ...(settled && {
      settled_amount: detail.settledMinor === null ? null : formatMinor(detail.settledMinor, decimals),
      transaction: typeof settle?.['transaction'] === 'string' ? settle['transaction'].slice(0, 256) : null,
      settled_network: typeof settle?.['network'] === 'string' ? settle['network'].slice(0, 64) : null,
      settled_atomic: typeof settle?.['amount'] === 'string' ? settle['amount'].slice(0, 80) : null,
    }),
    ...(line.reason !== undefined && { reason: line.reason }),
  };
}
