/**
 * Non-default ports without LATCH_URL (issue 30 item 3, docs/decisions.md §19): the daemon writes
 * where it listens into $LATCH_HOME/listen.json, the CLI of the same data directory finds it, and
 * the record goes when the daemon stops; a stale, unsafe or damaged record is ignored, and
 * LATCH_URL still wins. The quick start's banner says what to set when finding is not possible.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EXIT } from '../../src/cli/exit-codes.js';
import { DEFAULT_DAEMON_URL } from '../../src/client/base-url.js';
import { LatchClient } from '../../src/client/latch-client.js';
import { createDaemon } from '../../src/daemon/create-daemon.js';
import { ensureHome } from '../../src/datadir/home.js';
import { listenFilePath } from '../../src/datadir/listen-file.js';
import { bannerText } from '../../src/quickstart/banner.js';
import { CaptureStream } from '../daemon/daemon-fixture.js';
import { runLatch } from '../support/stack.js';

let root: string;
before(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'latch-find-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

const clientUrl = (home: string, env: NodeJS.ProcessEnv = {}): string => {
  const client = new LatchClient({ env: { LATCH_HOME: home, ...env } });
  client.close();
  return client.baseUrl;
};

describe('the CLI finds the running daemon of its data directory', () => {
  test('ephemeral ports: latch status without LATCH_URL reaches it; the record is private and goes on close', async () => {
    const home = path.join(root, 'running');
    const daemon = createDaemon({ home, portA: 0, portB: 0, env: {}, logStream: new CaptureStream() });
    const { portA, portB } = await daemon.listen();
    let closed = false;
    try {
      const file = listenFilePath(home);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      const status = await runLatch(['status', '--json'], { LATCH_HOME: home });
      assert.equal(status.code, EXIT.ok, status.stderr);
      assert.equal(JSON.parse(status.stdout).url, `http://127.0.0.1:${portA}`);
      assert.notEqual(portA, 7723);
      assert.ok(portB !== undefined && portB > 0);
      // LATCH_URL still wins over the record.
      assert.equal(clientUrl(home, { LATCH_URL: 'http://127.0.0.1:1' }), 'http://127.0.0.1:1');
      await daemon.close({ deadlineMs: 1000 });
      closed = true;
      assert.equal(existsSync(file), false, 'the record is removed when the daemon stops');
      assert.equal(clientUrl(home), DEFAULT_DAEMON_URL);
    } finally {
      if (!closed) await daemon.close({ deadlineMs: 1000 });
    }
  });

  test('a record left by a process that is gone, an unsafe one and a damaged one are ignored', () => {
    const home = path.join(root, 'stale');
    ensureHome(home);
    const file = listenFilePath(home);
    const record = (pid: number) => JSON.stringify({ v: 1, pid, port_a: 45678, port_b: null, started_at: new Date().toISOString() });
    writeFileSync(file, record(process.pid), { mode: 0o600 });
    assert.equal(clientUrl(home), 'http://127.0.0.1:45678', 'the control: a live record is used');
    writeFileSync(file, record(2 ** 22 + 12345), { mode: 0o600 });
    assert.equal(clientUrl(home), DEFAULT_DAEMON_URL, 'no such process');
    writeFileSync(file, record(process.pid), { mode: 0o600 });
    chmodSync(file, 0o644);
    assert.equal(clientUrl(home), DEFAULT_DAEMON_URL, 'readable by others');
    chmodSync(file, 0o600);
    for (const damaged of ['{', JSON.stringify({ v: 1, pid: process.pid, port_a: 70000, port_b: null, started_at: 'x' }), JSON.stringify({ v: 2, pid: process.pid, port_a: 1, port_b: null, started_at: 'x' })]) {
      writeFileSync(file, damaged, { mode: 0o600 });
      assert.equal(clientUrl(home), DEFAULT_DAEMON_URL, damaged);
    }
  });
});

describe("the quick start's banner on non-default ports", () => {
  const facts = {
    portA: 7723,
    portB: 7724,
    cloudUrl: 'http://127.0.0.1:7780',
    tokenPath: '/h/daemon_token',
    adminKeyPath: '/h/sandbox/admin_key',
    firstCardId: undefined,
    home: '/h',
    homeIsDefault: false,
    latchCommand: { program: '/usr/bin/node', args: ['/x/latch.js'] },
  };

  test('says that latch commands find the port by themselves, and the LATCH_URL to set for anything else', () => {
    const text = bannerText({ ...facts, portA: 9100, portB: 9101 });
    assert.match(text, /find it\s+by themselves \(\/h\/listen\.json\)/);
    assert.match(text, /export LATCH_HOME='\/h' LATCH_URL=http:\/\/127\.0\.0\.1:9100/);
  });

  test('on the default ports it says nothing about LATCH_URL', () => {
    assert.doesNotMatch(bannerText(facts), /LATCH_URL=/);
    assert.doesNotMatch(bannerText(facts), /listen\.json/);
  });
});
