/**
 * The daemon's signer built over keys held in memory instead of the data directory's files, for
 * tests: the same monitor (src/signer/monitor.ts) with the same purposes and checks as
 * createSigner's, bound to the ledger the test passes. Only tests reach into the signer's folder.
 */
import assert from 'node:assert/strict';
import { InvariantBroken, onInvariantBroken, throwBroken } from '../../src/errors/invariant.js';
import { DeviceKey } from '../../src/signer/device-key.js';
import type { MandateKey } from '../../src/signer/ap2-mandate.js';
import { monitor } from '../../src/signer/monitor.js';
import type { DeviceKeyRef, RecordedWindows, Signer } from '../../src/signer/index.js';

/** A ledger that holds nothing: every purpose checked against it refuses. */
export const EMPTY_LEDGER: RecordedWindows = { get: () => undefined };

/** testSigner holds secret as the device key (and mandate, when given) and binds the signer to ledger. */
export function testSigner(secret: Uint8Array, ledger: RecordedWindows = EMPTY_LEDGER, mandate?: MandateKey): { signer: Signer; key: DeviceKeyRef } {
  const device = new DeviceKey(secret, 'raw');
  const signer = monitor(
    {
      device: () => device,
      deviceById: (keyId) => (keyId === device.keyId ? device : undefined),
      mandate: () => (mandate === undefined ? undefined : { key: mandate, storage: 'raw' }),
    },
    ledger,
  );
  return { signer, key: signer.deviceKey() as DeviceKeyRef };
}

/** upstreamKeyOf is secret as a device key that signs the enumerated cloud calls (and nothing else). */
export function upstreamKeyOf(secret: Uint8Array): DeviceKeyRef {
  return testSigner(secret).key;
}

/**
 * assertPurposeBroken asserts that run enters a signing purpose with its state broken: the signer
 * calls the invariant handler (signing_purpose_entered, installed to throw for this call only)
 * with a detail matching why, instead of signing or throwing an error a handler could answer.
 */
export function assertPurposeBroken(run: () => unknown, why: RegExp, message?: string): void {
  const restore = onInvariantBroken(throwBroken);
  try {
    assert.throws(run, (error: unknown) => error instanceof InvariantBroken && error.invariant === 'signing_purpose_entered' && why.test(error.detail), message ?? why.source);
  } finally {
    restore();
  }
}
