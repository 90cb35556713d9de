import { createHash } from 'node:crypto';
import { errorBody } from '../../errors/error-body.js';
import { LatchError } from '../../errors/latch-error.js';
import { readIdempotencyKey } from '../../http/idempotency-key.js';
import type { JsonResult, RequestContext } from '../../http/route.js';
import { IDEMPOTENCY_TTL_SECONDS } from '../ledger/apply.js';
import type { Txn } from '../ledger/ledger.js';
import type { VerifiedSignature } from './device-signature.js';
import type { SandboxContext } from './sandbox-context.js';

export interface OperationOptions {
  /**
   * Whose Idempotency-Key space this request uses (a device's key id, or `admin`); undefined
   * for requests without idempotency (reads).
   */
  idempotencyScope: string | undefined;
  /** The verified request signature whose nonce this operation's record remembers. */
  signature?: VerifiedSignature;
}

/**
 * runOperation runs one authenticated request on the ledger. Its journal record remembers the
 * request's nonce and, for a request with an Idempotency-Key, its answer, in the same fsync as
 * its effects, so a retry after a crash can neither repeat the effect nor lose the answer.
 *
 * Idempotency (docs/decisions.md §9): a key is claimed when the request arrives; another request with
 * the same key arriving before the first is answered gets 409 `idempotency_key_in_use`. Once
 * answered, the same key with the same fingerprint (method, path and query, body digest) replays
 * the first answer, errors included, without running anything; another fingerprint gets 422
 * `idempotency_key_reused`. Records last 24 hours on the ledger clock.
 */
export async function runOperation(
  sandbox: SandboxContext,
  context: RequestContext,
  options: OperationOptions,
  operation: (txn: Txn) => JsonResult,
): Promise<JsonResult> {
  // Everything up to ledger.run happens in one synchronous step, so two requests arriving
  // together cannot both claim a key or a nonce.
  let refusal: LatchError | undefined;
  let claim: string | undefined;
  if (options.idempotencyScope !== undefined) {
    try {
      const key = readIdempotencyKey(context.headers);
      if (key !== undefined) {
        const storeKey = `${options.idempotencyScope}\u0000${key}`;
        if (sandbox.inFlightKeys.has(storeKey)) refusal = new LatchError('idempotency_key_in_use');
        else claim = storeKey;
      }
    } catch (error) {
      refusal = error as LatchError;
    }
  }
  const signature = options.signature;
  if (claim !== undefined) sandbox.inFlightKeys.add(claim);
  if (signature !== undefined) sandbox.pendingNonces.add(signature.nonceKey);
  try {
    return await sandbox.ledger.run((txn) => {
      if (signature !== undefined) txn.emit({ type: 'nonce_seen', key: signature.nonceKey, forget_at_real: signature.forgetAtReal });
      if (refusal !== undefined) throw refusal;
      if (claim === undefined) return operation(txn);
      return runIdempotent(txn, context, claim, operation);
    });
  } finally {
    if (claim !== undefined) sandbox.inFlightKeys.delete(claim);
    if (signature !== undefined) sandbox.pendingNonces.delete(signature.nonceKey);
  }
}

function runIdempotent(txn: Txn, context: RequestContext, storeKey: string, operation: (txn: Txn) => JsonResult): JsonResult {
  const fingerprint = fingerprintOf(context);
  const stored = txn.state.idempotency.get(storeKey);
  if (stored !== undefined && stored.created_at + IDEMPOTENCY_TTL_SECONDS > txn.now) {
    if (stored.fingerprint !== fingerprint) throw new LatchError('idempotency_key_reused');
    return { status: stored.status, body: stored.body, headers: { 'idempotent-replayed': 'true' } };
  }
  let result: JsonResult;
  try {
    result = operation(txn);
  } catch (error) {
    // An expected failure is an answer like any other: a retry gets it again, not a second try.
    if (!(error instanceof LatchError)) throw error;
    result = { status: error.status, body: errorBody(error, context.requestId, { remedy: false }) };
  }
  // Stored as JSON text would read back, so the replayed state equals the live one.
  const body: unknown = JSON.parse(JSON.stringify(result.body));
  txn.emit({ type: 'idempotency_stored', key: storeKey, record: { fingerprint, status: result.status, body, created_at: txn.now } });
  return { status: result.status, body };
}

/** fingerprintOf identifies a request for idempotency: method, path with query, and the body's SHA-256. */
export function fingerprintOf(context: RequestContext): string {
  const bodyDigest = createHash('sha256').update(context.rawBody).digest('hex');
  return createHash('sha256').update(`${context.method}\n${context.path}?${context.rawQuery}\n${bodyDigest}`).digest('hex');
}
