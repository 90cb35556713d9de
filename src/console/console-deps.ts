/** What the console's routes call; the daemon binds it (src/daemon/console-binding.ts). */
import type { PolicyWarning } from '../policy/policy-warnings.js';
import type { Approval } from '../core/approval.js';
import type { AuditVerification } from '../datadir/audit-verify.js';
import type { StoredPasskey } from '../datadir/passkeys.js';
import type { RouteResult } from '../http/route.js';
import type { JsonValue } from '../json/parse-json.js';
import type { PasskeyCredential } from '../webauthn/verify.js';
import type { ActivityLine } from './activity.js';
import type { ConsoleSessions } from './console-sessions.js';
import type { EventStreamResult } from './console-front-door.js';
import type { PresenceChallenges } from './presence-challenges.js';
import type { SpendingSummary } from './spending-summary.js';

/**
 * How the owner's presence was proven for one console action: by a passkey here, by the passphrase
 * (checked under the one lockout), or — while no presence factor is configured — by the session.
 */
export type PresenceEvidence = { readonly factor: 'session' } | { readonly factor: 'passphrase' } | { readonly factor: 'passkey'; readonly credentialId: string };

/** A call to one of Variant A's routes, as the owner, with the presence this console action proved. */
export interface OwnerCall {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The A listener's path, e.g. `/approvals/ap_…/approve`. */
  readonly path: string;
  readonly body: JsonValue | undefined;
  /** The body's bytes when they matter as sent (PUT /policy stores them); else the JSON of body. */
  readonly rawBody?: Uint8Array;
  readonly presence: PresenceEvidence;
  readonly requestId: string;
  readonly userAgent: string;
  readonly signal: AbortSignal;
}

export interface ConsoleDeps {
  sessions: ConsoleSessions;
  challenges: PresenceChallenges;
  /** The console's bound port (its origin is http://localhost:PORT). */
  port: () => number;
  callA(call: OwnerCall): Promise<RouteResult>;
  presence: {
    /** The configured presence factors: empty, `passphrase`, `passkey` or both. */
    factors(): string[];
    /** checkPassphrase throws invalid_passphrase or too_many_attempts (one lockout for every check). */
    checkPassphrase(passphrase: string): Promise<void>;
  };
  passkeys: {
    list(): StoredPasskey[];
    add(credential: PasskeyCredential, label: string): { id: string; label: string; created_at: string };
    remove(id: string): void;
    recordUse(id: string, signCount: number): void;
  };
  approvals: { get(id: string): Promise<Approval> };
  /** A live stream of `approvals` events for the approvals page. */
  events(): EventStreamResult;
  activity(): ActivityLine[];
  verifyAudit(): AuditVerification;
  paused(): { since: string; reason: string | null } | null;
  spending(): SpendingSummary;
  policy: {
    /** The summary, hash and warnings (rules that can never change a decision) of a candidate policy. */
    validate(text: string): { summary: string; sha256: string; warnings: PolicyWarning[] };
    dryRun(text: string, request: Record<string, JsonValue>): { decision: string; rule: string; reasons: string[] };
  };
}
