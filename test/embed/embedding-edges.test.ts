/**
 * The embedding API's edges (docs/decisions.md §24.7): listen() after close() rejects rather than
 * throws; close() resolves only once audit.log and audit.head are closed; and the sandbox entry
 * ('latch/sandbox') lets an embedder's integration test run the cloud and enroll in-process.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, test } from 'node:test';
import { createDaemon, LatchClient } from '../../src/index.js';
import { createSandbox, enrollThisDevice } from '../../src/sandbox/index.js';
import { sharedAuditWriter } from '../../src/datadir/audit-writer.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'latch-embed-edges-'));
after(() => rmSync(root, { recursive: true, force: true }));
let homes = 0;
const freshHome = (): string => path.join(root, `home-${++homes}`);
const quietDaemon = (home: string) => createDaemon({ home, portA: 0, variantB: false, env: {}, logStream: new PassThrough() });

/** openFiles lists the files this process holds open (Linux). */
function openFiles(): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      return [readlinkSync(`/proc/self/fd/${fd}`)];
    } catch {
      return [];
    }
  });
}

test('listen() after close(), or a second time, returns a rejected promise, never a synchronous throw', async () => {
  const unused = quietDaemon(freshHome());
  await unused.close();
  let pending: Promise<unknown> | undefined;
  assert.doesNotThrow(() => {
    pending = unused.listen();
  });
  await assert.rejects(pending as Promise<unknown>, /listen\(\) after close\(\)/);

  const used = quietDaemon(freshHome());
  await used.listen();
  await assert.rejects(used.listen(), /may be called once/);
  await used.close();
  await assert.rejects(used.listen(), /listen\(\) after close\(\)/);
});

test('close() resolves once audit.log and audit.head are closed, with the last line on disk', { skip: process.platform === 'linux' ? false : 'reads /proc/self/fd' }, async () => {
  const home = freshHome();
  const daemon = quietDaemon(home);
  await daemon.listen();
  // An audit line still being written when the stop begins (a request's own, in a real stop).
  const appended = sharedAuditWriter(home).append({ operation: 'embedding_edge_test', request_id: 'req_edge' });
  await daemon.close({ deadlineMs: 1_000 });
  const open = openFiles().filter((file) => file.startsWith(home));
  assert.deepEqual(open, [], 'nothing in the data directory is open after close()');
  await appended;
  assert.match(readFileSync(path.join(home, 'audit.log'), 'utf8'), /embedding_edge_test/);
});

test("the sandbox entry runs the cloud and enrolls in the test's own process", async () => {
  const sandbox = await createSandbox({ dataDir: path.join(root, 'sandbox'), port: 0 });
  try {
    const answer = await fetch(`${sandbox.url}/v1/sandbox/setup-tokens`, { method: 'POST', headers: { authorization: `Bearer ${sandbox.adminKey}`, 'content-type': 'application/json' }, body: '{}' });
    assert.equal(answer.status, 201);
    const { setup_token } = (await answer.json()) as { setup_token: string };
    const home = freshHome();
    const enrolled = await enrollThisDevice({ home, env: {}, setupToken: setup_token, cloudUrl: sandbox.url, reconnect: false });
    const daemon = quietDaemon(home);
    const { portA } = await daemon.listen();
    const client = new LatchClient({ home, baseUrl: `http://127.0.0.1:${portA}`, env: {} });
    try {
      assert.equal((await client.health()).signing_key?.key_id, enrolled.key_id);
    } finally {
      client.close();
      await daemon.close({ deadlineMs: 1_000 });
    }
  } finally {
    await sandbox.close();
  }
});
