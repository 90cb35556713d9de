import type { CoreDeps, EnrolledDevice, OperationContext } from './core-deps.js';
import { buildRevocationPayload, type RevocationPayload } from './window-payload.js';

/** A signed revocation; submitting it is POST /v1/authorizations/:id/revoke {jws}. */
export interface SignedRevocation {
  payload: RevocationPayload;
  jws: string;
  keyId: string;
}

/**
 * signRevocation signs a revocation of policyId with the device the operation resolved (once per
 * operation, so the revocation and the request that submits it name the same key) and records it
 * in the audit log.
 */
export async function signRevocation(deps: CoreDeps, device: EnrolledDevice, policyId: string, reason: string | undefined, context: OperationContext): Promise<SignedRevocation> {
  const { key, deviceId } = device;
  const payload = buildRevocationPayload(policyId, deviceId, deps.cloudNowSeconds(), reason);
  const jws = deps.signer.revocation(key.keyId, payload);
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
