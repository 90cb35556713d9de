/**
 * The identity operations the listeners call (docs/decisions.md §23): sign a request an agent is
 * about to send, and give the signed key directory. No HTTP here: the handler gives checked
 * fields and the caller; the operation applies the merchant deny rules, signs with the caller's
 * own identity key in the cloud's time, and records the signature in audit.log before answering.
 */
import type { Signer } from '../signer/index.js';
import { randomBytes } from 'node:crypto';
import type { Principal } from '../core/principal.js';
import { principalName } from '../core/principal.js';
import type { AuditEntry } from '../datadir/audit-entry.js';
import { LatchError } from '../errors/latch-error.js';
import type { Policy } from '../policy/policy-types.js';
import type { IdentityKeyring } from './identity-keyring.js';
import type { IdentityHolder } from './identity-keys.js';
import { directoryBody, directoryKey, signDirectory, DIRECTORY_SIGNATURE_SECONDS, type DirectoryKey } from './key-directory.js';
import { deniedHostRule } from './merchant-deny.js';
import type { CheckedTarget } from './target-url.js';
import { NONCE_BYTES, signWebRequest, type WebSignatureHeaders, type WebSignatureTag } from './web-bot-auth.js';

/** What the identity operations need from the daemon. */
export interface IdentityDeps {
  keys: IdentityKeyring;
  /** The daemon's signer: the identity purposes (Web Bot Auth, the key directory). */
  signer: Pick<Signer, 'webBotAuth' | 'directoryEntry'>;
  /** This device's clock corrected by the cloud's, in seconds (as windows are signed). */
  cloudNowSeconds(): number;
  /** The policy in force; throws 503 policy_invalid while policy.json is invalid. */
  policy(): Policy;
  /** The published directory's URL (config.json identity_directory_url), or undefined. */
  directoryUrl(): string | undefined;
  /** audit appends a line to audit.log and resolves once it is on disk. */
  audit(entry: AuditEntry): Promise<void>;
  /** Told after a key was used (listed false) or the directory listed (true), so the cloud's copy can follow. */
  keysSeen?(listed: boolean): void;
}

/** A checked request to sign. */
export interface WebSignRequest {
  method: string;
  target: CheckedTarget;
  contentDigest?: string;
  tag: WebSignatureTag;
  expiresInSeconds: number;
}

/** Who asked, for the audit line. */
export interface IdentityCaller {
  principal: Principal;
  requestId: string;
  userAgent: string;
}

/** A signature made for the caller. */
export interface WebSignResult {
  headers: WebSignatureHeaders;
  keyId: string;
  created: number;
  expires: number;
}

/** A signed directory document and its response headers. */
export interface SignedDirectory {
  body: Uint8Array;
  headers: Record<string, string>;
}

/** One holder's identity key as the owner is shown it: the id and the public JWK, never the secret half. */
export interface ShownIdentityKey {
  holder: IdentityHolder;
  keyId: string;
  jwk: DirectoryKey;
}

/** The identity operations. */
export interface IdentityOperations {
  signWebRequest(request: WebSignRequest, caller: IdentityCaller): Promise<WebSignResult>;
  directory(authority: string): SignedDirectory;
  /**
   * publicKey is `latch identity show NAME` done by the daemon (the separate-user setup, where the
   * keys are its files): the holder's key, made on first use as for a signature; agent_not_found
   * for a name that is no agent.
   */
  publicKey(holder: IdentityHolder): ShownIdentityKey;
}

/** identityOperations binds the operations to a daemon's keys, clock, policy and audit log. */
export function identityOperations(deps: IdentityDeps): IdentityOperations {
  return {
    async signWebRequest(request, caller) {
      const agent = principalName(caller.principal);
      // Identity moves no money, so the pause does not apply; the merchant deny rules do.
      const rule = deniedHostRule(deps.policy(), agent, request.target.host);
      if (rule !== undefined) {
        throw new LatchError('policy_denied', { rule, message: `The spending policy refuses every payment at this host (rule ${rule}), so Latch does not present the agent there.` });
      }
      const key = deps.keys.keyOf(agent);
      const created = deps.cloudNowSeconds();
      const expires = created + request.expiresInSeconds;
      const headers = signWebRequest(deps.signer, {
        target: { authority: request.target.authority, path: request.target.path, query: request.target.query, ...(request.contentDigest !== undefined && { contentDigest: request.contentDigest }) },
        tag: request.tag,
        key,
        created,
        expires,
        nonce: randomBytes(NONCE_BYTES).toString('base64'),
        ...optionalUrl(deps.directoryUrl()),
      });
      // On disk before the signature leaves; the query string is never recorded.
      await deps.audit({
        operation: 'web_bot_auth_signed',
        key_id: key.keyId,
        request_id: caller.requestId,
        user_agent: caller.userAgent,
        agent,
        method: request.method,
        host: request.target.host,
        tag: request.tag,
        created,
      });
      deps.keysSeen?.(false);
      return { headers, keyId: key.keyId, created, expires };
    },
    directory(authority) {
      const keys = deps.keys.all().map(({ key }) => key);
      const body = directoryBody(keys);
      const created = deps.cloudNowSeconds();
      const headers = signDirectory(deps.signer, body, keys, authority, created, created + DIRECTORY_SIGNATURE_SECONDS);
      deps.keysSeen?.(true);
      return { body, headers: { ...headers } };
    },
    publicKey(holder) {
      let key;
      try {
        key = deps.keys.keyOf(holder);
      } catch (error) {
        // The keyring's answer for a removed agent is for a token it accepted; the owner asked by name.
        if (error instanceof LatchError && error.code === 'invalid_bearer_token') throw new LatchError('agent_not_found');
        throw error;
      }
      return { holder, keyId: key.keyId, jwk: directoryKey(key) };
    },
  };
}

function optionalUrl(url: string | undefined): { directoryUrl?: string } {
  return url === undefined ? {} : { directoryUrl: url };
}
