import type { CoreDeps, OperationContext } from './core-deps.js';
import { buildRevocationPayload, signPayload, type RevocationPayload } from './window-payload.js';

/** A signed revocation; submitting it is POST /v1/authorizations/:id/revoke {jws}. */
export interface SignedRevocation {
  payload: RevocationPayload;
  jws: string;
  keyId: string;
}

/** signRevocation signs a revocation of policyId and records it in the audit log. */
export async function signRevocation(deps: CoreDeps, policyId: string, reason: string | undefined, context: OperationContext): Promise<SignedRevocation> {
  const { key, deviceId } = deps.device();
  const payload = buildRevocationPayload(policyId, deviceId, deps.cloudNowSeconds?.() ?? deps.nowSeconds(), reason);
  const jws = signPayload(payload, key);
  await deps.audit({
    operation: 'sign_revocation',
    policyId,
    cardId: null,
    merchant: null,
    amountMinor: null,
    currency: null,
    keyId: key.keyId,
    caller: context.caller,
    principal: context.principal,
  });
  return { payload, jws, keyId: key.keyId };
}
