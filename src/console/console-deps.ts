/** What the console's routes call; the daemon binds it (src/daemon/console-binding.ts). */
import type { PolicyWarning } from '../policy-text/policy-warnings.js';
import type { Approval } from '../core/approval.js';
import type { AuditVerification } from '../verify/audit-verify.js';
import type { StoredPasskey } from '../datadir/passkeys.js';
import type { EventStreamResult } from '../http/route.js';
import type { JsonValue } from '../json/parse-json.js';
import type { PasskeyCredential } from '../webauthn/verify.js';
import type { ActivityLine } from './activity.js';
import type { ConsoleSessions } from './console-sessions.js';
import type { PresenceChallenges } from './presence-challenges.js';
import type { SpendingSummary } from './spending-summary.js';

export interface ConsoleDeps {
  sessions: ConsoleSessions;
  challenges: PresenceChallenges;
  /**
   * The challenges of passkey sign-in, kept apart: anyone may ask for one (the page has no session
   * yet), and a flood of them must not push out a challenge made for an approval.
   */
  signinChallenges: PresenceChallenges;
  /** The console's bound port (its origin is http://localhost:PORT). */
  port: () => number;
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
  /** The newest audit lines in words; signed reads only with `reads`. */
  activity(options?: { reads?: boolean }): ActivityLine[];
  verifyAudit(): AuditVerification;
  paused(): { since: string; reason: string | null } | null;
  spending(): SpendingSummary;
  policy: {
    /** The summary, hash and warnings (rules that can never change a decision) of a candidate policy. */
    validate(text: string): { summary: string; sha256: string; warnings: PolicyWarning[] };
    dryRun(text: string, request: Record<string, JsonValue>): { decision: string; rule: string; reasons: string[] };
  };
}
