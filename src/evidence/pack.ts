/**
 * The evidence pack, v1 (shared/spec/evidence.md §2; docs/decisions.md §22): one authorization's
 * facts as a JSON object, signed whole by the device key. The members are written in this order,
 * and the file is exactly the JSON of the object (one line, a newline after it), so that any
 * byte changed anywhere is caught.
 */
import type { Ed25519PublicJwk } from '../crypto/jwk.js';
import { JWS_TYP } from '../crypto/signature-purposes.js';
import type { MandateJwk } from '../ap2/mandate-jwks.js';
import type { PolicyWindowPayload } from '../core/window-payload.js';
import type { AuditExcerpt } from './audit-excerpt.js';
import type { RequestView } from './request-view.js';

/** The `typ` of the pack's JWS header (crypto/signature-purposes.ts). */
export const EVIDENCE_JWS_TYP = JWS_TYP.evidencePack;
/** The pack's `type`. */
export const EVIDENCE_TYPE = 'latch_evidence';
/** The largest pack `verify` reads (a pack is a few kilobytes; transactions are bounded). */
export const EVIDENCE_BYTES_MAX = 4 * 1024 * 1024;

/** The device's public key as the pack's JWKS holds it: RFC 8037 with the RFC 7638 thumbprint as kid. */
export interface EvidenceJwk extends Ed25519PublicJwk {
  kid: string;
}

export interface EvidenceDecision {
  /** What the policy answered: `allow`, or `ask` satisfied by the owner's approval. */
  decision: 'allow' | 'ask';
  rule: string | null;
  reasons: string[];
  /** The SHA-256 of the policy that decided (null only where no policy step ran). */
  sha256: string | null;
}

export interface EvidenceApproval {
  approval_id: string;
  status: string;
  decided_at: string | null;
  reason?: string;
  request_sha256: string;
}

/** One of the authorization's transactions, as the cloud reported it. */
export interface EvidenceTransaction {
  id: string;
  card_id: string;
  amount: string;
  currency: string;
  merchant: string;
  status: string;
  created_at: string;
  decline_code: string | null;
}

export interface EvidenceCloud {
  /** What the cloud answered when the window was registered, as the audit log recorded it. */
  registration: { outcome: string; code: string | null; recorded_at: string } | null;
  /** The cloud's authorization now (null when it holds none: a refused registration). */
  authorization: Record<string, unknown> | null;
  /** Its status now: active, used, expired or revoked (null when the cloud holds none). */
  status: string | null;
  transactions: EvidenceTransaction[];
  /** False when the cloud's list was longer than a pack reads (docs/decisions.md §22). */
  transactions_complete: boolean;
  fetched_at: string;
}

/** The pack without its `jws`: exactly what the JWS signs. */
export interface EvidenceBody {
  v: 1;
  type: typeof EVIDENCE_TYPE;
  policy_id: string;
  jwks: { keys: [EvidenceJwk] };
  window: { jws: string; payload: PolicyWindowPayload };
  request: RequestView;
  decision: EvidenceDecision;
  approval: EvidenceApproval | null;
  audit: AuditExcerpt;
  cloud: EvidenceCloud;
  /** For AP2 open mandates only (docs/ap2.md): both SD-JWTs as handed out and the mandate key that signed them. */
  ap2?: EvidenceAp2;
  exported_at: string;
}

/** The AP2 member of a pack: the 201 answer's fields and the mandate JWKS (the one key that signed). */
export interface EvidenceAp2 {
  policy_id: string;
  mandate_id: string;
  open_checkout_mandate: string;
  open_payment_mandate: string;
  open_checkout_hash: string;
  key_id: string;
  expires_at: string;
  jwks: { keys: MandateJwk[] };
}

/** The whole pack. */
export interface EvidencePack extends EvidenceBody {
  jws: string;
}

/** The members of a pack, in the order they are written. */
export const PACK_MEMBERS = ['v', 'type', 'policy_id', 'jwks', 'window', 'request', 'decision', 'approval', 'audit', 'cloud', 'exported_at', 'jws'] as const;

/** The members of an AP2 mandate's pack: `ap2` after `cloud`. */
export const AP2_PACK_MEMBERS = ['v', 'type', 'policy_id', 'jwks', 'window', 'request', 'decision', 'approval', 'audit', 'cloud', 'ap2', 'exported_at', 'jws'] as const;
