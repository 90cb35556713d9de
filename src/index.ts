/**
 * The package's embedding entry (`import { createDaemon } from 'latch'`): everything a program
 * needs to run one or more Latch daemons in its own process, and to talk to one. The CLI is a
 * separate entry (src/cli/bin-entry.ts); the sandbox cloud is not exported here, so that an
 * embedding pulls in none of it.
 *
 * @example
 * import { createDaemon, LatchClient, resolveHome } from 'latch';
 * const home = resolveHome();
 * const daemon = createDaemon({ home, portA: 0, variantB: false });
 * const { portA } = await daemon.listen();
 * const client = new LatchClient({ home, baseUrl: `http://127.0.0.1:${portA}` });
 * console.log((await client.health()).status);
 * client.close();
 * await daemon.close();
 */
export {
  createDaemon,
  DEFAULT_CLOSE_DEADLINE_MS,
  DEFAULT_PORT_A,
  DEFAULT_PORT_B,
  type DaemonHandle,
  type DaemonOptions,
  type DaemonPorts,
} from './daemon/create-daemon.js';
export { resolveHome } from './datadir/home.js';
export { DataDirError, type DataDirErrorCode } from './datadir/data-dir-error.js';
export { LatchError } from './errors/latch-error.js';
export type { ErrorCode } from './errors/error-table.js';
export { latchVersion } from './version.js';
// Checking an evidence pack offline (docs/evidence.md): no daemon, cloud or data directory.
export { keyIdsOfJwks, verifyEvidence, type EvidenceVerdict, type VerifyEvidenceOptions } from './evidence/verify-pack.js';
// The typed Variant A client (LatchClient, LatchClientError and the wire types), whole.
export * from './client/index.js';
