/**
 * `latch authorize --wait 60` (the documented longest wait) must get its answer (issue 44 item 5):
 * the listener's idle limit must outlast the longest held answer, and the client's deadline the
 * listener's, so neither side gives up before the daemon answers. Derived from the constants the
 * listener, the daemon and the client use.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { APPROVAL_WAIT_SECONDS_MAX as CORE_WAIT_MAX } from '../../src/core/approvals.js';
import { APPROVAL_WAIT_SECONDS_MAX as CLIENT_WAIT_MAX, DEFAULT_CALL_TIMEOUT_MS, WAIT_MARGIN_MS } from '../../src/client/latch-client.js';
import { UPSTREAM_TIMEOUT_MS } from '../../src/cloud/cloud-client.js';
import { DEFAULT_SERVER_LIMITS, LONGEST_HELD_ANSWER_MS } from '../../src/http/local-server.js';

test('the idle limit of a connection outlasts the longest wait for an approval plus the cloud calls after it, and the client waits longer still', () => {
  assert.equal(CLIENT_WAIT_MAX, CORE_WAIT_MAX, 'the client and the daemon agree on the longest wait');
  const longestAnswer = CORE_WAIT_MAX * 1000 + 2 * UPSTREAM_TIMEOUT_MS;
  assert.ok(LONGEST_HELD_ANSWER_MS >= longestAnswer, `${LONGEST_HELD_ANSWER_MS} ms covers the wait and two cloud calls (${longestAnswer} ms)`);
  assert.ok(DEFAULT_SERVER_LIMITS.socketIdleTimeoutMs > LONGEST_HELD_ANSWER_MS, 'the socket is not destroyed before the held answer is written');
  const clientDeadline = Math.max(DEFAULT_CALL_TIMEOUT_MS, CORE_WAIT_MAX * 1000 + WAIT_MARGIN_MS);
  assert.ok(clientDeadline > DEFAULT_SERVER_LIMITS.socketIdleTimeoutMs, `the client's deadline for --wait ${CORE_WAIT_MAX} (${clientDeadline} ms) outlasts the listener's idle limit`);
});
