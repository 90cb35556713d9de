import { LatchError } from '../../errors/latch-error.js';
import { fromBase64Url } from '../../crypto/base64url.js';
import { secretsEqual } from '../../verify/constant-time.js';
import type { JsonResult, RequestContext, RouteHandler } from '../../http/route.js';
import type { Txn } from '../ledger/ledger.js';
import type { Device, SandboxState } from '../ledger/state.js';
import { verifyDeviceSignature } from './device-signature.js';
import { runOperation } from './run-operation.js';
import type { SandboxContext } from './sandbox-context.js';

/** A handler of a device route: it runs inside the ledger queue with the signing device. */
export type DeviceHandler = (txn: Txn, device: Device, context: RequestContext) => JsonResult;
/** A handler of an admin route. */
export type AdminHandler = (txn: Txn, context: RequestContext) => JsonResult;

/**
 * deviceRoute wraps a handler of the cloud API: the RFC 9421 signature is verified against the
 * registered device keys before anything else, then the handler runs in the ledger queue. Each
 * request waits for a turn of its own (FairTurns) first, so a burst of requests is verified one
 * per turn of the event loop and the answers of durable operations go out in between.
 * `idempotent` marks money-moving POSTs that honour Idempotency-Key, scoped per device key.
 */
export function deviceRoute(sandbox: SandboxContext, idempotent: boolean, handler: DeviceHandler): RouteHandler {
  return async (context) => {
    await sandbox.turns.next();
    // From here to the claim of the nonce in runOperation is one synchronous step.
    const signature = verifyDeviceSignature(context, signatureChecks(sandbox, sandbox.ledger.state));
    return runOperation(sandbox, context, { idempotencyScope: idempotent ? signature.keyId : undefined, signature }, (txn) =>
      handler(txn, deviceOfKey(txn.state, signature.keyId), context),
    );
  };
}

/**
 * adminRoute wraps a sandbox-only handler: `Authorization: Bearer <admin key>` compared in
 * constant time (401 invalid_admin_key), then the handler in the ledger queue.
 */
export function adminRoute(sandbox: SandboxContext, idempotent: boolean, handler: AdminHandler): RouteHandler {
  return (context) => {
    checkAdminKey(context, sandbox.adminKey);
    return runOperation(sandbox, context, { idempotencyScope: idempotent ? 'admin' : undefined }, (txn) => handler(txn, context));
  };
}

/** signatureChecks looks keys and nonces up in the current state, on the real clock. */
export function signatureChecks(sandbox: SandboxContext, state: Readonly<SandboxState>) {
  return {
    publicKeyOf: (keyId: string): Uint8Array | undefined => {
      const deviceId = state.device_by_key_id.get(keyId);
      const device = deviceId === undefined ? undefined : state.devices.get(deviceId);
      return device === undefined ? undefined : fromBase64Url(device.public_key_x);
    },
    nonceSeen: (nonceKey: string): boolean => state.nonces.has(nonceKey) || sandbox.pendingNonces.has(nonceKey),
    realNow: Math.floor(Date.now() / 1000),
    isOwnAuthority: (authority: string): boolean => sandbox.ownAuthorities.has(authority),
  };
}

/** deviceOfKey re-reads the device in the queue: the admin may have removed it since the request arrived. */
function deviceOfKey(state: SandboxState, keyId: string): Device {
  const deviceId = state.device_by_key_id.get(keyId);
  const device = deviceId === undefined ? undefined : state.devices.get(deviceId);
  if (device === undefined) throw new LatchError('device_key_not_recognized');
  return device;
}

function checkAdminKey(context: RequestContext, adminKey: string): void {
  const header = context.headers['authorization'];
  const match = typeof header === 'string' ? /^Bearer ([\x21-\x7e]{1,512})$/.exec(header) : null;
  // Both branches compare, so a missing header and a wrong key take the same path.
  const presented = match?.[1] ?? '';
  if (!secretsEqual(presented, adminKey) || match === null) throw new LatchError('invalid_admin_key');
}
