/**
 * A named pin that is missing is an error, not "no pin" (issue 43 item 6): LATCH_SYSTEM_PIN naming
 * a path with no file used to turn root's pin off, and the client then trusted the owner's own
 * ~/.latch. Now reading it fails, and the client's key check fails closed with daemon_not_verified.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { readSystemPins, SYSTEM_PIN_ENV, SystemPinError } from '../../src/datadir/system-pin.js';
import { readPinnedKey } from '../../src/client/pinned-key.js';
import { LatchClientError } from '../../src/client/client-errors.js';

test('LATCH_SYSTEM_PIN naming a missing file is a SystemPinError naming the variable, and the client proves nothing against it', { skip: process.platform === 'win32' ? 'no uids' : false }, () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'latch-pin-missing-'));
  try {
    const env = { [SYSTEM_PIN_ENV]: path.join(dir, 'daemon.json') };
    assert.throws(() => readSystemPins(env), (error: unknown) => error instanceof SystemPinError && error.message.includes(SYSTEM_PIN_ENV) && /does not exist/.test(error.message));
    assert.throws(() => readPinnedKey(path.join(dir, 'home'), env), (error: unknown) => error instanceof LatchClientError && error.code === 'daemon_not_verified');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
