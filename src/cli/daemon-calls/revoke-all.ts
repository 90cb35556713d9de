import type { LatchClient } from '../../client/latch-client.js';
import { LatchClientError } from '../../client/client-errors.js';

/** What `latch revoke --all` (and `latch agent remove --revoke`) did. */
export interface RevokeAllResult {
  revoked: string[];
  /** Used or expired between the listing and the revocation: nothing left to revoke. */
  alreadyEnded: string[];
}

/** Each page lists at most this many; a walk is bounded by this many pages. */
const PAGE_SIZE = 100;
const PAGES_MAX = 1000;

/**
 * revokeAll revokes, through the daemon, every active authorization the caller may see: all of
 * this device's for the owner (or one agent's with `agent`), an agent's own for an agent. It keeps
 * asking for the first page of active ones until none is left, so authorizations made while it
 * runs are revoked too. One that ended meanwhile is counted, not an error.
 */
export async function revokeAll(client: LatchClient, options: { agent?: string; reason: string }): Promise<RevokeAllResult> {
  const result: RevokeAllResult = { revoked: [], alreadyEnded: [] };
  const seen = new Set<string>();
  for (let pages = 0; pages < PAGES_MAX; pages++) {
    const page = await client.authorizations({ status: 'active', limit: PAGE_SIZE, ...(options.agent !== undefined && { agent: options.agent }) });
    const fresh = page.authorizations.filter((a) => !seen.has(a.policy_id));
    if (fresh.length === 0) return result;
    for (const authorization of fresh) {
      seen.add(authorization.policy_id);
      try {
        await client.revoke({ policy_id: authorization.policy_id, reason: options.reason });
        result.revoked.push(authorization.policy_id);
      } catch (error) {
        if (!(error instanceof LatchClientError) || (error.code !== 'authorization_not_active' && error.code !== 'authorization_expired')) throw error;
        result.alreadyEnded.push(authorization.policy_id);
      }
    }
  }
  return result;
}
