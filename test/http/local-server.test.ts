import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import { createLocalServer } from '../../src/http/local-server.js';
import { isLoopbackAddress } from '../../src/http/loopback.js';
import { CaptureLog, startFixture, TEST_TOKEN } from './front-door-fixture.js';
import { errorCode, sendRaw } from './raw-client.js';
import { waitUntil } from '../support/wait.js';

const noFrontDoor = async (): Promise<void> => undefined;

describe('loopback only', () => {
  const table: Array<[string, boolean]> = [
    ['127.0.0.1', true],
    ['127.0.0.2', true],
    ['::1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.10', false],
    ['10.0.0.1', false],
    ['localhost', false],
    ['::ffff:127.0.0.1', false],
    ['128.0.0.1', false],
    ['', false],
  ];
  for (const [host, loopback] of table) {
    test(`isLoopbackAddress(${JSON.stringify(host)}) is ${loopback}`, () => {
      assert.equal(isLoopbackAddress(host), loopback);
    });
  }

  for (const host of ['0.0.0.0', '::', '192.168.1.10', 'localhost']) {
    test(`createLocalServer refuses to listen on ${host}`, () => {
      assert.throws(() => createLocalServer({ listener: 't', host, port: 0, frontDoor: noFrontDoor, log: new CaptureLog() }), /loopback only/);
    });
  }

  test('the listener is bound to 127.0.0.1 by default', async () => {
    const fixture = await startFixture();
    try {
      assert.deepEqual(fixture.server.address(), { address: '127.0.0.1', port: fixture.port });
    } finally {
      await fixture.server.close(1_000);
    }
  });

  test('listen rejects with EADDRINUSE when the port is taken', async () => {
    const fixture = await startFixture();
    try {
      const second = createLocalServer({ listener: 't', port: fixture.port, frontDoor: noFrontDoor, log: new CaptureLog() });
      await assert.rejects(second.listen(), { code: 'EADDRINUSE' });
    } finally {
      await fixture.server.close(1_000);
    }
  });
});

const authed = (port: number, target: string) => ({ target, headers: [['Host', `127.0.0.1:${port}`], ['Authorization', `Bearer ${TEST_TOKEN}`]] as Array<[string, string]> });

describe('graceful shutdown', () => {
  test('close lets an in-flight request finish, then refuses new connections', async () => {
    const fixture = await startFixture();
    const inFlight = sendRaw(fixture.port, { ...authed(fixture.port, '/slow'), close: false });
    await waitUntil(() => fixture.handlerRuns.count === 1, 'the slow handler runs');
    let closed = false;
    const closing = fixture.server.close(10_000).then(() => (closed = true));
    // Once the listener refuses connections, close is under way; the handler is still held, so
    // close cannot have finished unless it stopped waiting for the in-flight request.
    await waitUntil(() => connect(fixture.port).then(
      (socket) => void socket.destroy(),
      (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED',
    ), 'the closing listener refuses new connections');
    assert.equal(closed, false, 'close waits for the in-flight request');
    fixture.releaseSlow();
    const response = await inFlight;
    assert.equal(response.status, 200);
    assert.deepEqual(JSON.parse(response.body), { slow: true });
    assert.deepEqual(response.headers['connection'], ['close']);
    await closing;
    await assert.rejects(connect(fixture.port), { code: 'ECONNREFUSED' });
  });

  test('at the deadline, close aborts the handler and drops the connection', async () => {
    const fixture = await startFixture();
    const inFlight = sendRaw(fixture.port, { ...authed(fixture.port, '/hang'), close: false }).then(
      () => 'answered',
      () => 'dropped',
    );
    await waitUntil(() => fixture.hangSignals.length === 1, 'the hanging handler runs');
    await fixture.server.close(100);
    assert.equal(fixture.hangSignals[0]?.aborted, true);
    assert.equal(await inFlight, 'dropped');
  });

  test('idle keep-alive connections do not hold up close', async () => {
    // The idle socket would live for minutes, and close may wait a minute, so only a close that
    // ends idle sockets at once finishes before the bound; the bound is far from both.
    const fixture = await startFixture({ keepAliveTimeoutMs: 300_000, socketIdleTimeoutMs: 300_000 });
    const CLOSE_DEADLINE_MS = 60_000;
    const CLOSE_BOUND_MS = 20_000;
    const socket = await connect(fixture.port);
    socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${fixture.port}\r\n\r\n`);
    await new Promise((resolve) => socket.once('data', resolve));
    const ended = new Promise((resolve) => socket.once('close', resolve));
    let bound: NodeJS.Timeout | undefined;
    const waitedForIdleSocket = new Promise<never>((_, reject) => {
      bound = setTimeout(() => reject(new Error('close waited for an idle keep-alive connection')), CLOSE_BOUND_MS);
    });
    try {
      await Promise.race([fixture.server.close(CLOSE_DEADLINE_MS), waitedForIdleSocket]);
    } finally {
      clearTimeout(bound);
    }
    await ended;
  });
});

describe('limits', () => {
  test('headers that never finish get 408 request_timeout', async () => {
    const fixture = await startFixture({ headersTimeoutMs: 200, requestTimeoutMs: 300 });
    try {
      const socket = await connect(fixture.port);
      const received: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${fixture.port}\r\nX-Slow: `);
      await new Promise((resolve) => socket.once('close', resolve));
      const text = Buffer.concat(received).toString();
      assert.match(text, /^HTTP\/1\.1 408 /);
      assert.match(text, /"code":"request_timeout"/);
    } finally {
      await fixture.server.close(1_000);
    }
  });

  test('connections beyond the cap are dropped', async () => {
    const fixture = await startFixture({ connectionsMax: 2 });
    const sockets: net.Socket[] = [];
    try {
      sockets.push(await connect(fixture.port), await connect(fixture.port));
      // Each of the two is served a request, so the server has counted both before the third comes.
      for (const socket of sockets) {
        const answered = new Promise((resolve) => socket.once('data', resolve));
        socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${fixture.port}\r\n\r\n`);
        await answered;
      }
      const third = await connect(fixture.port);
      sockets.push(third);
      const outcome = await new Promise<string>((resolve) => {
        third.on('data', () => resolve('served'));
        third.on('close', () => resolve('dropped'));
        third.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${fixture.port}\r\n\r\n`);
      });
      assert.equal(outcome, 'dropped');
    } finally {
      for (const socket of sockets) socket.destroy();
      await fixture.server.close(1_000);
    }
  });

  test('a CONNECT request is answered 403 forbidden_host', async () => {
    const fixture = await startFixture();
    try {
      const response = await sendRaw(fixture.port, 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n');
      assert.equal(response.status, 403);
      assert.equal(errorCode(response), 'forbidden_host');
    } finally {
      await fixture.server.close(1_000);
    }
  });
});

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}
