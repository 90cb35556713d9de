/**
 * The /v1 proxy's allow-list (docs/decisions.md §29.1): every cloud route the proxy forwards, by
 * method and canonical path, in one table. A request that is not exactly one of these rows is
 * refused before anything is signed; a path with a percent-escape, or whose literal segments are
 * not spelled as here (`/v1/Authorizations`), matches no row. The paths are the cloud API of
 * docs/cloud.md that a device signs for; the admin routes under /v1/sandbox/ and enrollment
 * (POST /v1/devices, signed by the new key) are not forwarded.
 */
import type { WireIdPrefix } from '../ids/wire-ids.js';

/**
 * What a forwarded request does, which decides who may send it and what the proxy checks:
 * - `read` only reads (owner; forwarded while signing is paused; HEAD is derived from GET);
 * - `revoke` only takes authority away (owner; forwarded while paused; frees the budget);
 * - `register_window` registers a window, forwarded only for one this daemon holds (owner present);
 * - `move_money` moves money without a window (owner present; refused while paused).
 */
export type ProxyPurpose = 'read' | 'revoke' | 'register_window' | 'move_money';

/** One forwarded cloud route. */
export interface ProxyRouteSpec {
  readonly method: 'GET' | 'POST';
  /** The canonical path: literal lower-case segments and `:param` segments. */
  readonly pattern: string;
  readonly purpose: ProxyPurpose;
  /** The id each `:param` segment must be, in its canonical form (ids/wire-ids.ts). */
  readonly params?: Readonly<Record<string, WireIdPrefix>>;
}

/** Every route the /v1 proxy forwards. Sorted by pattern, then method. */
export const PROXY_ROUTES: readonly ProxyRouteSpec[] = [
  { method: 'GET', pattern: '/v1/authorizations', purpose: 'read' },
  { method: 'POST', pattern: '/v1/authorizations', purpose: 'register_window' },
  { method: 'GET', pattern: '/v1/authorizations/:policy_id', purpose: 'read', params: { policy_id: 'pw' } },
  { method: 'POST', pattern: '/v1/authorizations/:policy_id/revoke', purpose: 'revoke', params: { policy_id: 'pw' } },
  { method: 'GET', pattern: '/v1/cards', purpose: 'read' },
  { method: 'GET', pattern: '/v1/cards/:card_id', purpose: 'read', params: { card_id: 'card' } },
  { method: 'POST', pattern: '/v1/policy-windows', purpose: 'register_window' },
  { method: 'GET', pattern: '/v1/transactions', purpose: 'read' },
  { method: 'GET', pattern: '/v1/transactions/:transaction_id', purpose: 'read', params: { transaction_id: 'tx' } },
  { method: 'GET', pattern: '/v1/wallet', purpose: 'read' },
  { method: 'POST', pattern: '/v1/wallet/allocate', purpose: 'move_money' },
];

/** The prefix every forwarded path starts with; anything else under it matches the refusing route. */
export const PROXY_PREFIX_PATTERN = '/v1/*';

/** stopsOrReads reports whether a purpose only reads or takes authority away (so the brake lets it through). */
export function stopsOrReads(purpose: ProxyPurpose): boolean {
  return purpose === 'read' || purpose === 'revoke';
}
