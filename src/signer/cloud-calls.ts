/**
 * The cloud calls the device key signs (docs/decisions.md §34.1): the /v1 proxy's allow-listed rows
 * (src/proxy/proxy-routes.ts, which also holds every call the daemon's own cloud gateway makes),
 * HEAD wherever GET is, and the identity directory registration. Enrollment (POST /v1/devices) is
 * signed only by the new key it enrolls (enrollment-store.ts). The cloud client asks the key first
 * (`signsCall`) and refuses anything else with 400 invalid_request; a request outside this table
 * that reaches the signer anyway stops the daemon (signing_purpose_entered, entered.ts).
 */
import { IDENTITY_DIRECTORY_PATH } from '../identity/directory-proof.js';
import { PROXY_ROUTES } from '../proxy/proxy-routes.js';

interface CloudCall {
  readonly method: string;
  readonly path: RegExp;
}

/** A `:param` segment is one id: the characters of a wire id, nothing that could leave the segment. */
function pathPattern(pattern: string): RegExp {
  const segments = pattern.split('/').map((segment) => (segment.startsWith(':') ? '[A-Za-z0-9_-]{1,128}' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${segments.join('/')}$`);
}

const DEVICE_CALLS: readonly CloudCall[] = [
  ...PROXY_ROUTES.flatMap((row) => {
    const path = pathPattern(row.pattern);
    return row.method === 'GET' ? [{ method: 'GET', path }, { method: 'HEAD', path }] : [{ method: row.method, path }];
  }),
  { method: 'PUT', path: pathPattern(IDENTITY_DIRECTORY_PATH) },
];

/** The one call a key being enrolled signs: its own enrollment. */
export const ENROLLMENT_CALL: CloudCall = { method: 'POST', path: pathPattern('/v1/devices') };

/** isDeviceCall reports whether method and path are one of the device key's cloud calls. */
export function isDeviceCall(method: string, path: string): boolean {
  return DEVICE_CALLS.some((call) => call.method === method && call.path.test(path));
}

/** callShape is a request for an invariant's detail: its method and literal segments, each id (or anything else) as `:id`. */
export function callShape(method: string, path: string): string {
  const literal = (segment: string): string => (/^(v1|[a-z-]{0,64})$/.test(segment) ? segment : ':id');
  return `${/^[A-Z]{1,10}$/.test(method) ? method : '?'} ${path.slice(0, 1024).split('/').map(literal).join('/')}`;
}
