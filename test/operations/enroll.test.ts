import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CloudReads } from '../../src/operations/cloud-reads.js';
import type { Enrollment } from '../../src/operations/cloud-reads.js';
import { enrollDevice, type EnrollmentStore } from '../../src/operations/enroll.js';
import { generateSecretKey } from '../support/raw-signing.js';
import { upstreamKeyOf } from '../support/test-signer.js';
import { LatchError } from '../../src/errors/latch-error.js';

const newKey = () => {
  const secretKey = generateSecretKey();
  return upstreamKeyOf(secretKey);
};

function memoryStore(existingKeyId?: string) {
  const installed: Array<{ keyId: string; enrollment: Enrollment; cloudUrl: string }> = [];
  const store: EnrollmentStore = {
    enrolledKeyId: () => existingKeyId,
    newKey,
    install: (key, enrollment, details) => installed.push({ keyId: key.keyId, enrollment, cloudUrl: details.cloudUrl }),
  };
  return { store, installed };
}

/** fakeCloud enrolls whatever key signs the request, or names another key id when told to. */
function fakeCloud(answerKeyId?: string): { cloud: Pick<CloudReads, 'enrollDevice'>; calls: string[] } {
  const calls: string[] = [];
  const cloud: Pick<CloudReads, 'enrollDevice'> = {
    enrollDevice: async (request, call) => {
      calls.push(`${request.setupToken}:${request.publicJwk.x === undefined ? 'no-jwk' : 'jwk'}:${call.key.keyId}`);
      return { deviceId: 'dev_1', keyId: answerKeyId ?? call.key.keyId, accountId: 'acct_1' };
    },
  };
  return { cloud, calls };
}

const request = { setupToken: 'st_1', cloudUrl: 'http://127.0.0.1:7800', deviceName: 'laptop', reconnect: false };

test('a new device: the key signs its own enrollment and is installed with it', async () => {
  const { store, installed } = memoryStore();
  const { cloud, calls } = fakeCloud();
  const result = await enrollDevice(store, cloud, request);
  assert.equal(result.outcome, 'enrolled');
  assert.equal(installed.length, 1);
  assert.deepEqual(calls, [`st_1:jwk:${installed[0]?.keyId}`]);
  assert.equal(installed[0]?.cloudUrl, request.cloudUrl);
  assert.equal(result.outcome === 'enrolled' && result.reconnected, false);
});

test('an enrolled device is refused without reconnect and reconnected with it', async () => {
  const refused = fakeCloud();
  const enrolled = memoryStore('old_key');
  assert.deepEqual(await enrollDevice(enrolled.store, refused.cloud, request), { outcome: 'already_enrolled', keyId: 'old_key' });
  assert.deepEqual(refused.calls, [], 'nothing is sent');
  assert.equal(enrolled.installed.length, 0);
  const again = await enrollDevice(enrolled.store, fakeCloud().cloud, { ...request, reconnect: true });
  assert.equal(again.outcome === 'enrolled' && again.reconnected, true);
});

test('a cloud that registers another key id installs nothing', async () => {
  const { store, installed } = memoryStore();
  await assert.rejects(enrollDevice(store, fakeCloud('other_key').cloud, request), (error: unknown) => error instanceof LatchError && error.code === 'upstream_unavailable');
  assert.equal(installed.length, 0);
});
