import { assertAgentTokensPrivate } from './agents.js';
import { rotateToken } from './token.js';

/**
 * regenerateCredentials replaces the daemon token with a fresh one (one atomic file replacement)
 * and checks every agent token file. The daemon calls it at each start, after it holds its ports
 * and before it serves, so a daemon token captured while it was down is dead. Agent tokens are
 * kept (docs/decisions.md §36): an agent's client verifies the daemon with a proof keyed by its
 * own token before it sends it, and in the separate-user setup the token lives in another
 * account, which a restart must not cut off.
 */
export function regenerateCredentials(home: string): void {
  rotateToken(home);
  assertAgentTokensPrivate(home);
}
