import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import type { SignedWindow } from '../../src/core/authorizations.js';
import { SignedWindowCache, requestFingerprint } from '../../src/core/signed-window-cache.js';
import { DataDirError } from '../../src/datadir/data-dir-error.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { StateStore } from '../../src/datadir/state-store.js';

let signatures = 0;
function signer(): () => Promise<SignedWindow> {
  return async () => {
    signatures++;
    return { payload: { policy_id: `pw_${signatures}` } as SignedWindow['payload'], jws: `jws-${signatures}`, keyId: 'kid' };
  };
}

test('the same key and request get the window signed the first time', async () => {
  const cache = new SignedWindowCache();
  const fingerprint = requestFingerprint('authorize', { card_id: 'card_a', amountMinor: 100 });
  const first = await cache.signOnce('kid', 'key-1', fingerprint, 1000, signer());
  const again = await cache.signOnce('kid', 'key-1', fingerprint, 1001, signer());
  assert.equal(again, first);
  assert.equal(cache.size, 1);
});

test('the same key with another request or operation is idempotency_key_reused', async () => {
  const cache = new SignedWindowCache();
  await cache.signOnce('kid', 'key-1', requestFingerprint('authorize', { amountMinor: 100 }), 1000, signer());
  for (const other of [requestFingerprint('authorize', { amountMinor: 101 }), requestFingerprint('merchant_bind', { amountMinor: 100 })]) {
    await assert.rejects(
      cache.signOnce('kid', 'key-1', other, 1000, signer()),
      (error: unknown) => error instanceof LatchError && error.code === 'idempotency_key_reused',
    );
  }
});

test('keys are scoped by device key: after a reconnect the same caller key signs afresh', async () => {
  const cache = new SignedWindowCache();
  const fingerprint = requestFingerprint('authorize', {});
  const old = await cache.signOnce('old-kid', 'key-1', fingerprint, 1000, signer());
  const fresh = await cache.signOnce('new-kid', 'key-1', fingerprint, 1000, signer());
  assert.notEqual(fresh.jws, old.jws);
});

test('entries are forgotten after their lifetime and beyond the bound, oldest first', async () => {
  const cache = new SignedWindowCache(60, 2);
  const fingerprint = requestFingerprint('authorize', {});
  const first = await cache.signOnce('kid', 'a', fingerprint, 1000, signer());
  assert.equal(await cache.signOnce('kid', 'a', fingerprint, 1059, signer()), first);
  assert.notEqual(await cache.signOnce('kid', 'a', fingerprint, 1060, signer()), first, 'expired at 60 s');
  await cache.signOnce('kid', 'b', fingerprint, 1061, signer());
  const c = await cache.signOnce('kid', 'c', fingerprint, 1062, signer());
  assert.equal(cache.size, 2);
  assert.equal(await cache.signOnce('kid', 'c', fingerprint, 1063, signer()), c);
  const before = signatures;
  await cache.signOnce('kid', 'a', fingerprint, 1063, signer());
  assert.equal(signatures, before + 1, "'a' was evicted and signs again");
});

test('a failed signing remembers nothing', async () => {
  const cache = new SignedWindowCache();
  await assert.rejects(
    cache.signOnce('kid', 'k', 'f', 1000, async () => {
      throw new Error('no key');
    }),
  );
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(cache.size, 0);
});

test('requestFingerprint ignores key order and tells values apart', async () => {
  assert.equal(requestFingerprint('x', { a: 1, b: 'two' }), requestFingerprint('x', { b: 'two', a: 1 }));
  assert.notEqual(requestFingerprint('x', { a: 1, b: null }), requestFingerprint('x', { a: 1 }));
  assert.notEqual(requestFingerprint('x', { a: '1' }), requestFingerprint('x', { a: 1 }));
});

/** A durable cache on a fresh state.journal in a temporary directory, opened at nowSeconds. */
async function durableCache(file: string, nowSeconds: number, ttlSeconds = 60): Promise<{ cache: SignedWindowCache; store: StateStore }> {
  const store = new StateStore(file, () => nowSeconds);
  const cache = new SignedWindowCache(ttlSeconds, 10, store);
  await store.open();
  return { cache, store };
}

function stateFile(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'latch-windows-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, 'state.journal');
}

test('durable: a window is in the state journal before signOnce returns it, and a reopened cache replays it', async () => {
  const file = stateFile();
  const fingerprint = requestFingerprint('authorize', { card_id: 'card_a', amountMinor: 100 });
  const { cache, store } = await durableCache(file, 1000);
  const first = await cache.signOnce('kid', 'key-1', fingerprint, 1000, signer());
  // Read the file while the store is still open: nothing waits for close() to make it durable.
  const onDisk = readFileSync(file, 'utf8');
  assert.ok(onDisk.includes(first.jws) && onDisk.includes('"type":"signed_window"'));
  assert.ok(!onDisk.includes('amountMinor'), 'the request is kept as its digest only');
  await store.close();

  const reopened = await durableCache(file, 1030);
  const before = signatures;
  const again = await reopened.cache.signOnce('kid', 'key-1', fingerprint, 1030, signer());
  assert.deepEqual(again, first);
  assert.equal(signatures, before, 'nothing signed afresh');
  await assert.rejects(
    reopened.cache.signOnce('kid', 'key-1', requestFingerprint('authorize', { card_id: 'card_a', amountMinor: 101 }), 1030, signer()),
    (error: unknown) => error instanceof LatchError && error.code === 'idempotency_key_reused',
  );
  await reopened.store.close();
});

test('durable: expired windows are not replayed and are compacted away at open', async () => {
  const file = stateFile();
  const { cache, store } = await durableCache(file, 1000);
  await cache.signOnce('kid', 'old', 'f', 1000, signer());
  await cache.signOnce('kid', 'young', 'f', 1050, signer());
  await store.close();
  const reopened = await durableCache(file, 1070);
  assert.equal(reopened.cache.size, 1, "'old' expired at 1060");
  await reopened.store.close();
  const onDisk = readFileSync(file, 'utf8');
  assert.ok(onDisk.includes('"young"') && !onDisk.includes('"old"'));
});

test('durable: a window whose record cannot be written is not handed out, and nothing is remembered', async () => {
  const file = stateFile();
  const { cache, store } = await durableCache(file, 1000);
  await store.close();
  await assert.rejects(cache.signOnce('kid', 'k', 'f', 1000, signer()), (error: unknown) => error instanceof DataDirError && error.code === 'write_failed');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(cache.size, 0);
});
