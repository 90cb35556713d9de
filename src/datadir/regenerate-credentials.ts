import { regenerateAgentTokens } from './agents.js';
import { rotateToken } from './token.js';

/**
 * regenerateCredentials replaces every credential a client presents to the daemon with a fresh
 * one: the daemon token and each agent's token, each file replaced atomically. The daemon calls it
 * at each start, after it holds its ports and before it serves, so a token captured while it was
 * down (by a program that held its port then) is dead.
 */
export function regenerateCredentials(home: string): void {
  rotateToken(home);
  regenerateAgentTokens(home);
}
