/**
 * The daemon half of the sandbox history: the daemon's own record of the authorizations it signed
 * (state.journal, src/core/authorization-ledger.ts), one `authorization` record per authorization
 * the sandbox history holds, written directly with the journal's frame encoder and bounded like
 * the other builders. GET /authorizations lists these entries and asks the cloud for each one's
 * status, so they name the sandbox's own policy ids.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { AUTHORIZATION_RECORD_TYPE } from '../src/core/authorization-ledger.js';
import { encodeFrame } from '../src/store/frame.js';
import { STATE_JOURNAL_LIMITS } from '../src/datadir/state-store.js';
import type { HistoryAuthorization } from './sandbox-history-builder.js';

/** The state journal's file name in the daemon's home. */
const STATE_FILE = 'state.journal';
/** Records encoded per write call. */
const RECORDS_PER_WRITE = 10_000;

/**
 * buildStateHistory writes home/state.journal (which must not exist) with one `used` entry per
 * authorization, signed by `agent`. Returns the bytes written; throws past the journal's file limit.
 */
export function buildStateHistory(home: string, authorizations: readonly HistoryAuthorization[], agent: string): { records: number; bytes: number; buildMs: number } {
  const startMs = performance.now();
  const fd = openSync(path.join(home, STATE_FILE), 'wx', 0o600);
  let bytes = 0;
  try {
    for (let at = 0; at < authorizations.length; at += RECORDS_PER_WRITE) {
      const frames = authorizations.slice(at, at + RECORDS_PER_WRITE).map((authorization) =>
        encodeFrame(
          Buffer.from(
            JSON.stringify({
              type: AUTHORIZATION_RECORD_TYPE,
              policy_id: authorization.policy_id,
              agent,
              card_id: authorization.card_id,
              merchant: authorization.merchant,
              currency: 'USD',
              amount_minor: authorization.amount,
              kind: 'one_time',
              authorization_type: 'exact',
              signed_at: authorization.created_at,
              not_after: authorization.not_after,
              state: 'used',
              used_minor: authorization.amount,
            }),
          ),
        ),
      );
      const chunk = Buffer.concat(frames);
      bytes += chunk.length;
      if (bytes > STATE_JOURNAL_LIMITS.fileBytesMax) throw new Error(`state history: more than ${STATE_JOURNAL_LIMITS.fileBytesMax} bytes`);
      writeSync(fd, chunk);
    }
  } finally {
    closeSync(fd);
  }
  return { records: authorizations.length, bytes, buildMs: performance.now() - startMs };
}
