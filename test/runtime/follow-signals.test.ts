import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { followSignals } from '../../src/runtime/follow-signals.js';

test('the followed signal aborts when any source does, with that source reason, and lets go of the others', () => {
  const first = new AbortController();
  const second = new AbortController();
  const followed = followSignals([first.signal, second.signal]);
  assert.equal(followed.signal.aborted, false);
  const reason = new DOMException('deadline', 'TimeoutError');
  second.abort(reason);
  assert.equal(followed.signal.aborted, true);
  assert.equal(followed.signal.reason, reason);
  assert.equal(getEventListeners(first.signal, 'abort').length, 0);
  assert.equal(getEventListeners(second.signal, 'abort').length, 0);
});

test('a source already aborted aborts the followed signal at once, and nothing is listened to', () => {
  const done = new AbortController();
  done.abort(new Error('gone'));
  const live = new AbortController();
  const followed = followSignals([live.signal, done.signal]);
  assert.equal(followed.signal.aborted, true);
  assert.equal((followed.signal.reason as Error).message, 'gone');
  assert.equal(getEventListeners(live.signal, 'abort').length, 0);
});

test('release stops following: a long-lived signal keeps no listener, and a later abort does not reach the request', () => {
  const server = new AbortController();
  const requests = Array.from({ length: 100 }, () => followSignals([server.signal]));
  assert.equal(getEventListeners(server.signal, 'abort').length, 100);
  for (const request of requests) request.release();
  assert.equal(getEventListeners(server.signal, 'abort').length, 0);
  server.abort();
  assert.ok(requests.every((request) => !request.signal.aborted));
});
