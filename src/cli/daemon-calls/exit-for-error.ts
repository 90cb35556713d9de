import type { LatchClientError } from '../../client/client-errors.js';
import { EXIT } from '../exit-codes.js';

// The daemon refused values given on the command line: for a CLI that is a usage error.
const USAGE_CODES: ReadonlySet<string> = new Set(['invalid_request', 'card_data_not_accepted']);
// No meaningful answer, or a bug: neither a refusal nor an availability class.
const FAILURE_CODES: ReadonlySet<string> = new Set(['internal_error', 'invalid_response', 'daemon_no_answer']);

/**
 * exitCodeForClientError maps a client error to the exit code scripts switch on: 8 the daemon is
 * unreachable (docs/decisions.md §7 rule 1), or what answers on its address did not prove it is the daemon, 9 the cloud is unavailable while the daemon is fine (rule 2),
 * 3 the token file or another data file (policy.json included) is unusable, 2 the daemon refused a value from the command line, 1 no answer
 * or a bug, and 7 every other refusal or decline (clock_skew included, though a 502).
 */
export function exitCodeForClientError(error: LatchClientError): number {
  if (error.code === 'daemon_unreachable' || error.code === 'daemon_not_verified') return EXIT.daemonUnreachable;
  if (error.code === 'upstream_unavailable') return EXIT.upstreamUnavailable;
  if (error.code === 'token_unreadable' || error.code === 'data_directory_unavailable' || error.code === 'policy_invalid') return EXIT.dataDir;
  if (USAGE_CODES.has(error.code)) return EXIT.usage;
  // The cloud refused this device's clock: a refusal with a remedy (fix the clock), not a bug (§31.4).
  if (error.code === 'clock_skew') return EXIT.refused;
  if (FAILURE_CODES.has(error.code) || (error.status !== null && error.status >= 500)) return EXIT.failure;
  return EXIT.refused;
}
