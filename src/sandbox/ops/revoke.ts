import { LatchError, invalidRequest } from '../../errors/latch-error.js';
import type { Txn } from '../ledger/ledger.js';
import type { Authorization } from '../ledger/state.js';
import { SIGNATURE_SKEW_SECONDS } from './limits.js';
import { accountAuthorization } from './queries.js';
import { verifyAccountJws } from './verify-jws.js';
import { readRevocationPayload } from './window-payload.js';

/**
 * revokeWindow verifies a signed revocation and ends the authorization: status `revoked`, its
 * hold released, its `authorized` transaction `revoked` (the card refreezes when nothing else is
 * active, since card status follows the active windows). The path id must be the payload's
 * policy_id, `iat` must be within 5 minutes of the real clock, and only an active authorization
 * can be revoked (`authorization_not_active` otherwise).
 */
export function revokeWindow(txn: Txn, accountId: string, pathPolicyId: string, jws: string): Authorization {
  const { payload } = verifyAccountJws(txn.state, jws, accountId, 'revocation');
  const revocation = readRevocationPayload(payload);
  if (revocation.policyId !== pathPolicyId) throw invalidRequest('policy_id', 'The signed policy_id is not the one in the path.');
  if (Math.abs(revocation.iat - txn.realNow) > SIGNATURE_SKEW_SECONDS) {
    throw new LatchError('signature_expired', { param: 'iat', message: 'The revocation was signed more than 5 minutes from now.' });
  }
  const authorization = accountAuthorization(txn.state, accountId, pathPolicyId);
  if (authorization.status !== 'active') throw new LatchError('authorization_not_active');
  txn.emit({ type: 'authorization_ended', policy_id: pathPolicyId, status: 'revoked' });
  return authorization;
}
