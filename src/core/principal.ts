/**
 * Who is asking (decisions §15.1): the owner, who holds the daemon token, or an agent, who holds
 * its own token. The front door decides it once per request; the core and the audit log only
 * ever see this value, never a token.
 */
export type Principal = { kind: 'owner' } | { kind: 'agent'; name: string };

/** The owner: the holder of the daemon token. */
export const OWNER: Principal = Object.freeze({ kind: 'owner' });

/** principalName is what audit lines and policies call the caller: `owner` or the agent's name. */
export function principalName(principal: Principal): string {
  return principal.kind === 'owner' ? 'owner' : principal.name;
}
