/**
 * The cloud calls the device key signs (docs/decisions.md §34.1): the /v1 proxy's allow-listed rows
 * (src/proxy/proxy-routes.ts, which also holds every call the daemon's own cloud gateway makes),
 * HEAD wherever GET is, and the identity directory registration. Enrollment (POST /v1/devices) is
 * signed only by the new key it enrolls (enrollment-key.ts). The signer refuses any other method
 * or path, whoever asks: a request outside this table is a programming error, never input.
 */
import { IDENTITY_DIRECTORY_PATH } from '../identity/directory-proof.js';
import { PROXY_ROUTES } from '../proxy/proxy-routes.js';

/** Thrown when the signer is asked to sign a request outside its purposes: a programming error, never input. */
export class SignerRefusal extends Error {
  constructor(purpose: string, why: string) {
    super(`the signer refuses ${purpose}: ${why}`);
    this.name = 'SignerRefusal';
  }
}

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

/** assertDeviceCall refuses a method and path that are not one of the device key's cloud calls. */
export function assertDeviceCall(method: string, path: string): void {
  if (!DEVICE_CALLS.some((call) => call.method === method && call.path.test(path))) throw new SignerRefusal('an upstream request', `${method} ${path} is not a cloud call the device key signs`);
}
