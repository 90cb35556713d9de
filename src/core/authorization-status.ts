/**
 * Learning what became of an authorization: every authorization the cloud gateway returns (a
 * read, a list, a revocation, a registration) carries its status, and the authorization ledger
 * is told of the ones no longer active, so budgets release exposure only on what the cloud said.
 */
import type { AuthorizationRecorder } from './core-deps.js';
import type { CloudGateway } from './cloud-gateway.js';
import type { Authorization } from './model.js';

/** observingGateway wraps gateway so that each authorization it returns reports its status to ledger. */
export function observingGateway<G extends CloudGateway>(gateway: G, ledger: Pick<AuthorizationRecorder, 'noteStatus'>): G {
  const note = async (authorization: Authorization): Promise<Authorization> => {
    // The cloud does not say here what was charged; a used window keeps its full amount counted
    // (never less than was charged).
    if (authorization.status !== 'active') await ledger.noteStatus(authorization.policyId, authorization.status, null);
    return authorization;
  };
  return {
    ...gateway,
    registerAuthorization: async (jws, call) => note(await gateway.registerAuthorization(jws, call)),
    revokeAuthorization: async (policyId, jws, call) => note(await gateway.revokeAuthorization(policyId, jws, call)),
    getAuthorization: async (policyId, call) => note(await gateway.getAuthorization(policyId, call)),
    listAuthorizations: async (query, call) => {
      const page = await gateway.listAuthorizations(query, call);
      for (const authorization of page.authorizations) await note(authorization);
      return page;
    },
  };
}
