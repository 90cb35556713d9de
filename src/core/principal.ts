/**
 * Who is calling: the owner (the daemon token) or a named agent (its own token). The front door
 * decides it once per request; the core receives it so that every audit line can name the caller
 * and a spending policy can tell callers apart.
 */
export type Principal = { kind: 'owner' } | { kind: 'agent'; name: string };

/** The owner, as the front door reports a request with the daemon token. */
export const OWNER: Principal = Object.freeze({ kind: 'owner' });

/** principalName gives what audit lines write in their `agent` field: `owner` or the agent's name. */
export function principalName(principal: Principal): string {
  return principal.kind === 'owner' ? 'owner' : principal.name;
}
