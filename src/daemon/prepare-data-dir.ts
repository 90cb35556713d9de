/**
 * The data directory's startup checks, run by listen() before anything is bound: in the order that
 * reads no secret from an unsafe place, and holding the directory's lock before anything is written.
 */
import { agentFiles } from '../datadir/agents.js';
import { lockDataDir, type DaemonLock } from '../datadir/daemon-lock.js';
import { ensureHome } from '../datadir/home.js';
import { ensureMandateKey, finishKeyRollover } from '../signer/key-admin.js';
import type { Signer } from '../signer/index.js';
import { assertDataDirSecure } from '../datadir/permissions.js';
import { ensureToken } from '../datadir/token.js';
import type { DaemonServices } from './services.js';

/**
 * prepareDataDir runs the startup checks in the order that reads no secret from an unsafe place:
 * create the directory if missing, refuse any unsafe file, take the directory's lock (a second
 * daemon stops here, before it writes anything), then create or read the token, and load the
 * device key and config so that a wrong passphrase or a corrupt file stops the start. It returns
 * the lock, held; on failure nothing is held.
 */
export function prepareDataDir(services: DaemonServices, signer: Pick<Signer, 'deviceKey'>, passphrase: string | undefined): DaemonLock {
  ensureHome(services.home);
  // Agent tokens are secrets like daemon_token: an exposed one stops the start (docs/decisions.md §20).
  assertDataDirSecure(services.home, agentFiles(services.home));
  const lock = lockDataDir(services.home);
  try {
    loadDataDir(services, signer, passphrase);
  } catch (error) {
    lock.release();
    throw error;
  }
  return lock;
}

function loadDataDir(services: DaemonServices, signer: Pick<Signer, 'deviceKey'>, passphrase: string | undefined): void {
  ensureToken(services.home);
  // A key that a stopped `latch setup` staged and config.json already names is put in place.
  finishKeyRollover(services.home, passphrase, services.config().key_id, { discardUnnamed: false });
  services.token();
  const key = signer.deviceKey();
  if (key !== undefined) services.logger.info('device_key_loaded', { key_id: key.keyId, storage: key.storage });
  // The AP2 mandate key: made here for a data directory that predates it (docs/ap2.md).
  const mandate = ensureMandateKey(services.home, passphrase);
  services.logger.info('mandate_key_loaded', { key_id: mandate.kid, storage: mandate.storage });
  services.config();
}
