import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter, getEventListeners } from 'node:events';
import type { ServerResponse } from 'node:http';
import { RequestSignals } from '../../src/http/request-signals.js';

/** A response as RequestSignals sees it: its close event, and whether the answer was finished. */
function fakeResponse(): EventEmitter & { writableFinished: boolean } {
  return Object.assign(new EventEmitter(), { writableFinished: false });
}

function serverSignals(): { shutdown: AbortController; stopping: AbortController } {
  return { shutdown: new AbortController(), stopping: new AbortController() };
}

test('a handler that asks for no signal leaves nothing on the server signals', () => {
  const { shutdown, stopping } = serverSignals();
  const response = fakeResponse();
  new RequestSignals(response as unknown as ServerResponse, shutdown.signal, stopping.signal);
  assert.equal(getEventListeners(shutdown.signal, 'abort').length, 0);
  assert.equal(getEventListeners(stopping.signal, 'abort').length, 0);
  response.writableFinished = true;
  response.emit('close');
});

test('the client going away before the answer aborts both signals; a finished answer aborts neither and lets go', () => {
  for (const finished of [false, true]) {
    const { shutdown, stopping } = serverSignals();
    const response = fakeResponse();
    const signals = new RequestSignals(response as unknown as ServerResponse, shutdown.signal, stopping.signal);
    const { signal, holdSignal } = signals;
    assert.equal(getEventListeners(shutdown.signal, 'abort').length, 1);
    assert.equal(getEventListeners(stopping.signal, 'abort').length, 1);
    response.writableFinished = finished;
    response.emit('close');
    assert.equal(signal.aborted, !finished, `finished ${finished}: signal`);
    assert.equal(holdSignal.aborted, !finished, `finished ${finished}: holdSignal`);
    assert.equal(getEventListeners(shutdown.signal, 'abort').length, 0, 'nothing stays on the shutdown signal');
    assert.equal(getEventListeners(stopping.signal, 'abort').length, 0, 'nothing stays on the stopping signal');
  }
});

test('a stop aborts only holdSignal; a shutdown aborts both', () => {
  const stop = serverSignals();
  const stopped = new RequestSignals(fakeResponse() as unknown as ServerResponse, stop.shutdown.signal, stop.stopping.signal);
  stop.stopping.abort();
  assert.equal(stopped.holdSignal.aborted, true);
  assert.equal(stopped.signal.aborted, false);

  const down = serverSignals();
  const shut = new RequestSignals(fakeResponse() as unknown as ServerResponse, down.shutdown.signal, down.stopping.signal);
  const { signal, holdSignal } = shut;
  down.shutdown.abort();
  assert.equal(signal.aborted, true);
  assert.equal(holdSignal.aborted, true);
});

test('signals asked for after the server began stopping, or after the client left, are aborted at once', () => {
  const { shutdown, stopping } = serverSignals();
  stopping.abort();
  const late = new RequestSignals(fakeResponse() as unknown as ServerResponse, shutdown.signal, stopping.signal);
  assert.equal(late.holdSignal.aborted, true);
  assert.equal(late.signal.aborted, false);

  const gone = serverSignals();
  const response = fakeResponse();
  const afterClose = new RequestSignals(response as unknown as ServerResponse, gone.shutdown.signal, gone.stopping.signal);
  response.emit('close');
  assert.equal(afterClose.signal.aborted, true);
  assert.equal(afterClose.holdSignal.aborted, true);
  assert.equal(getEventListeners(gone.shutdown.signal, 'abort').length, 0, 'made after the close, released at once');
});
