import type { UpstreamKey } from '../crypto/signing-key.js';
import type { Signer } from '../signer/index.js';
import type { Ap2MandateRecord } from './decision-record.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { toBase64Url } from '../crypto/base64url.js';
import { randomId } from '../ids/random-id.js';
import type { ApprovalDeps } from './approval-deps.js';
import type { AuthorizationEntry, AuthorizationEntryState } from './authorization-ledger.js';
import type { CloudCall, CloudGateway } from './cloud-gateway.js';
import type { DecideAuthorization } from './decision.js';
import type { HeldWindows } from './held-windows.js';
import type { OperationContext } from './operation-context.js';
import type { Principal } from './principal.js';
import type { SignedWindowCache } from './signed-window-cache.js';
import type { SignatureAudit } from './signature-audit.js';
import type { SigningPause } from './signing-pause.js';
import type { X402Deps } from './x402-deps.js';
import type { X402Transition } from './x402-states.js';

export type { LocalCaller, OperationContext } from './operation-context.js';
export type { SignatureAudit } from './signature-audit.js';

/** What became of a signed window sent to the cloud: registered, refused (with the code), or unknown (no answer). */
export interface SignatureOutcome {
  policyId: string;
  outcome: 'registered' | 'refused' | 'unknown';
  code: string | null;
  principal: Principal;
}

/** A request the policy, the pause or the lockout refused: who, what, and why with its numbers. */
export interface RefusalRecord {
  /** The refusal's error code: policy_denied, daemon_paused or too_many_attempts. */
  code: string;
  /** The policy rule that refused, when the policy did. */
  rule: string | null;
  /** The reasons with their numbers ("budget monthly (deny): 78.00 of 100.00 used; 24.00 would exceed it"). */
  reasons: readonly string[];
  /** What was asked: the operation (authorize, approve, …) and its terms, when known. */
  operation: string;
  cardId: string | null;
  merchant: string | null;
  amountMinor: number | null;
  currency: string | null;
  kind: string | null;
  approvalId?: string;
  principal: Principal;
  caller: { requestId: string; userAgent: string | null } | undefined;
}

/**
 * The enrolled device as one operation sees it: the key, the device id and the cloud, resolved
 * together once, so that the window's JWS and the cloud request's signature come from the same
 * lookup and cannot name different keys.
 */
export interface EnrolledDevice {
  key: UpstreamKey;
  deviceId: string;
  cloud: CloudGateway;
}

/**
 * CoreDeps is everything the core operations need from the daemon, as plain functions, so the
 * core has no HTTP and tests can supply their own.
 */
export interface CoreDeps {
  /**
   * The daemon's signer (docs/decisions.md §34.1): a window, a revocation, an evidence pack or the
   * AP2 mandates are asked of it by purpose, and it checks each against the ledger itself.
   */
  signer: CoreSigner;
  /** The enrolled device, resolved now; throws device_not_enrolled. Call it once per operation. */
  device(): EnrolledDevice;
  /** Appends to the audit log durably; called before any response that carries the signature. */
  audit(record: SignatureAudit): Promise<void>;
  nowSeconds(): number;
  /**
   * Records what became of a window sent to the cloud, after the answer, so that the audit log
   * tells a refused authorization from a granted one. It never delays or fails the answer.
   */
  outcome(record: SignatureOutcome): void;
  /**
   * Records that a request was refused by the policy, the pause or the lockout (what the agent
   * tried, for the owner: issue 44 item 3). It never delays or fails the answer; the daemon
   * bounds how many lines a flood writes.
   */
  refused(record: RefusalRecord): void;
  /**
   * The cloud's time, as learned from its answers: windows are valid on the cloud's clock, so
   * their times come from here (docs/decisions.md §15.8); the device's until the cloud has answered.
   */
  cloudNowSeconds(): number;
  /**
   * Windows signed for requests that carried an Idempotency-Key, so a retry re-sends the same
   * window. Required: without it a retry would sign and register a second window for one request
   * (docs/decisions.md §28.6).
   */
  signedWindows: SignedWindowCache;
  /*
   * The safety steps below are required: none has an absent form that allows everything (docs/decisions.md
   * §18.3). A test that wants "allow all" passes allowEverything or neverPaused by name.
   */
  /** The owner's emergency brake (`latch pause`): while it returns a pause, nothing is signed. */
  paused: () => SigningPause | undefined;
  /** The decision step of every authorization: the spending policy in the daemon. */
  decide: DecideAuthorization;
  /**
   * The authorization ledger: every window signed for registration is recorded here before it
   * is signed, and marked `failed` when signing fails or the cloud refuses it.
   */
  authorizations: AuthorizationRecorder;
  /** Human approval (docs/decisions.md §15.4): an `ask` becomes a durable pending approval. */
  approvals: ApprovalDeps;
  /**
   * The windows the owner's signing primitives made, held unregistered for the /v1 proxy to
   * forward once (docs/decisions.md §21). Required: a primitive's window is signed only once it is
   * held (docs/decisions.md §28.6).
   */
  heldWindows: HeldWindows;
  /**
   * The card labels AP2 mandates name (docs/ap2.md). Without a mandate key (signer.mandateKey()),
   * an ap2_mandate request is refused before anything is decided or recorded.
   */
  mandates: MandateDeps;
  /**
   * The x402 guard's parts (docs/x402.md): the assets that count, its audit lines and its index.
   * Required like every step above (§18.3): only x402 requests and their expiry use them.
   */
  x402: X402Deps;
}

/** What the pipeline writes to the authorization ledger (StoredAuthorizationLedger implements it). */
export interface AuthorizationRecorder {
  /** record makes a new entry durable (a window to hold is signed once it is). */
  record(entry: AuthorizationEntry): Promise<void>;
  /**
   * recordSigned makes a new entry and the window sign makes for it, kept on the entry for its
   * evidence pack, one durable record; it resolves with the JWS once on disk (§28.10).
   */
  recordSigned(entry: AuthorizationEntry, sign: () => string): Promise<string>;
  /** The entry of a window this device signed (who asked for it), if it is still kept. */
  get(policyId: string): AuthorizationEntry | undefined;
  noteStatus(policyId: string, state: AuthorizationEntryState, usedMinor?: number | null): Promise<void>;
  /** noteX402 applies one transition of an x402 entry, durably; false when it is not allowed from its state (core/x402-states.ts). */
  noteX402(policyId: string, transition: X402Transition): Promise<boolean>;
  /** keepMandates makes an entry's signed AP2 open mandates durable before they are answered (docs/ap2.md). */
  keepMandates(policyId: string, mandates: Ap2MandateRecord): Promise<void>;
  /** mandatesKept is true once an entry's mandates are kept, on disk or still on their way (get shows them only on disk). */
  mandatesKept(policyId: string): boolean;
  /** Right before a window is sent: false when it was rolled back and must never be sent (docs/decisions.md §17.1). */
  beginRegistration(policyId: string): boolean;
  endRegistration(policyId: string): void;
}

/**
 * idempotencyKeyOf returns the caller's Idempotency-Key, or a fresh one, so that the daemon's own
 * bounded retry of a money-moving request can never apply it twice (docs/decisions.md §9).
 */
export function idempotencyKeyOf(context: OperationContext): string {
  if (context.idempotencyKey === undefined) return randomId('idem');
  return cloudIdempotencyKey(context.principal, context.idempotencyKey);
}

/**
 * cloudIdempotencyKey is the key the cloud sees for a caller's key: the owner's as given, an
 * agent's filed under its name (a SHA-256 of the key, so it stays within 255 characters), so that
 * one caller's key never spoils another's request at the cloud (docs/decisions.md §17.8).
 */
export function cloudIdempotencyKey(principal: Principal, idempotencyKey: string): string {
  if (principal.kind === 'owner') return idempotencyKey;
  return `agent_${principal.name}_${toBase64Url(sha256(new TextEncoder().encode(idempotencyKey)))}`;
}

/** cloudCall is how an operation's cloud requests are made: signed with the device's key, on behalf of the caller. */
export function cloudCall(device: EnrolledDevice, context: OperationContext, idempotencyKey?: string): CloudCall {
  return {
    key: device.key,
    caller: { ...context.caller, principal: context.principal },
    ...(idempotencyKey !== undefined && { idempotencyKey }),
    ...(context.signal !== undefined && { signal: context.signal }),
  };
}

/** The purposes of the signer the core asks for. */
export type CoreSigner = Pick<Signer, 'window' | 'revocation' | 'evidencePack' | 'openMandates' | 'mandateKey' | 'x402Receipt'>;

/** What the pipeline needs beside the signer to sign AP2 open mandates (docs/ap2.md): a card's label. */
export interface MandateDeps {
  /** The card's label, the instrument's description; undefined leaves the description out. */
  cardLabel(cardId: string, context: OperationContext): Promise<string | undefined>;
}
