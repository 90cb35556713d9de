/**
 * The daemon registers its identity keys with the cloud (docs/decisions.md §23.6), so the cloud
 * can serve them at /.well-known/http-message-signatures-directory: one device-signed PUT with
 * every public key and, for each, a directory signature over the cloud's authority proving the
 * daemon holds it. It registers at start, whenever the set of keys it sees changes (a signature,
 * a directory request, or the minute's check), and daily to renew the proofs. A cloud without the
 * route answers 404: that is logged once per key set and nothing else changes.
 */
import { LatchError } from '../errors/latch-error.js';
import type { IdentityKeyring } from '../identity/identity-keyring.js';
import { directoryKey } from '../identity/key-directory.js';
import type { Signer } from '../signer/index.js';
import { IDENTITY_DIRECTORY_PATH, proofComponents, proofParams } from '../identity/directory-proof.js';
import type { Logger } from '../log/logger.js';
import type { ProxyUpstream } from '../proxy/signing-proxy.js';

/** How long a registered proof holds; registration is renewed after half of it. */
const PROOF_SECONDS = 24 * 3600;
/** How often the daemon looks for a changed key set by itself (an agent removed from the CLI). */
export const REGISTRATION_CHECK_MS = 60_000;

/** What the registrar needs. */
export interface RegistrationDeps {
  keys: IdentityKeyring;
  /** The cloud client and device key; throws device_not_enrolled before enrollment. */
  upstream: () => ProxyUpstream;
  cloudNowSeconds: () => number;
  logger: Logger;
  /** The daemon's signer: the registration proof of each identity key. */
  signer: Pick<Signer, 'registrationProof'>;
}

/** The registrar: `check` registers when something changed; it never throws. */
export interface DirectoryRegistrar {
  check(): void;
  /** The last registration's outcome, for tests: the key ids sent and the cloud's status. */
  last(): { keyIds: string[]; status: number } | undefined;
  /** settled resolves when no registration is in flight. */
  settled(): Promise<void>;
}

/** directoryRegistrar builds the registrar of one daemon. */
export function directoryRegistrar(deps: RegistrationDeps): DirectoryRegistrar {
  let registered: { fingerprint: string; renewAt: number } | undefined;
  let inFlight: Promise<void> | undefined;
  let again = false;
  let outcome: { keyIds: string[]; status: number } | undefined;

  const register = async (): Promise<void> => {
    let upstream: ProxyUpstream;
    try {
      upstream = deps.upstream();
    } catch (error) {
      if (error instanceof LatchError && error.code === 'device_not_enrolled') return;
      throw error;
    }
    // Only keys that exist: registering makes none, so a daemon nobody signs with registers nothing.
    const keys = deps.keys.existing().map(({ key }) => key);
    const keyIds = keys.map((key) => key.keyId);
    if (keys.length === 0 && registered === undefined) return;
    const fingerprint = `${upstream.client.origin.host}|${keyIds.join(',')}`;
    const now = deps.cloudNowSeconds();
    if (registered !== undefined && registered.fingerprint === fingerprint && now < registered.renewAt) return;
    const authority = upstream.client.origin.host.toLowerCase();
    const body = {
      keys: keys.map((key) => {
        const signed = deps.signer.registrationProof(key, 'binding', proofComponents(authority), proofParams(key.keyId, now, now + PROOF_SECONDS));
        return { jwk: directoryKey(key), authority, created: now, expires: now + PROOF_SECONDS, signature: signed.signature.slice('binding=:'.length, -1) };
      }),
    };
    const answer = await upstream.client.send({
      method: 'PUT',
      pathAndQuery: IDENTITY_DIRECTORY_PATH,
      body: new TextEncoder().encode(JSON.stringify(body)),
      contentType: 'application/json',
      key: upstream.key,
    });
    outcome = { keyIds, status: answer.status };
    // A cloud that does not know the route is asked again only when the keys change.
    registered = { fingerprint, renewAt: answer.status === 200 ? now + PROOF_SECONDS / 2 : answer.status === 404 ? Number.MAX_SAFE_INTEGER : now + 300 };
    if (answer.status === 200) deps.logger.info('identity_directory_registered', { keys: keyIds.length });
    else deps.logger.info('identity_directory_not_registered', { status: answer.status, code: errorCode(answer.rawBody) });
  };

  const run = (): void => {
    if (inFlight !== undefined) {
      again = true;
      return;
    }
    inFlight = register()
      .catch((error: unknown) => {
        deps.logger.warn('identity_directory_not_registered', { reason: error instanceof LatchError ? error.code : 'error' });
      })
      .finally(() => {
        inFlight = undefined;
        if (again) {
          again = false;
          run();
        }
      });
  };
  return { check: run, last: () => outcome, settled: async () => {
    while (inFlight !== undefined) await inFlight;
  } };
}

/** errorCode reads the code of a cloud's error body, for the log; never more of it. */
function errorCode(body: Uint8Array): string | null {
  try {
    const code = (JSON.parse(new TextDecoder().decode(body)) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' && /^[a-z_]{1,64}$/.test(code) ? code : null;
  } catch {
    return null;
  }
}
