/**
 * The Latch client: a typed client of the daemon's Variant A API for programs that embed Latch.
 * The CLI and the MCP bridge are built on it.
 */
export { LatchClient, DEFAULT_CALL_TIMEOUT_MS, type LatchClientOptions } from './latch-client.js';
export {
  LatchClientError,
  CLIENT_ERROR_TABLE,
  isClientErrorCode,
  remedyOf,
  specClassOf,
  type ClientErrorCode,
  type LatchClientErrorCode,
} from './client-errors.js';
export { DEFAULT_DAEMON_URL, DAEMON_URL_ENV, DaemonUrlError, daemonOrigin, resolveDaemonUrl } from './base-url.js';
export type * from './types.js';
export { diagnose, DIAGNOSIS_CHECKS, type Diagnosis, type DiagnosisCheck, type DiagnosisCheckName, type DiagnosisProblem, type DiagnosableClient } from './diagnose.js';
export { isPendingApproval } from './pending-approval.js';
export { APPROVAL_WAIT_SECONDS_MAX } from './latch-client.js';
