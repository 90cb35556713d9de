/**
 * What a caller's headers can smuggle to the cloud through the /v1 signing proxy. A request
 * without a body has no content to type, so a Content-Type on it would travel unchecked by the
 * front door (which checks content types of bodies) and unsigned (the signature covers the
 * content type only with a body): it must not travel at all. A control case shows that the body's
 * own content type still reaches the cloud, signed, so the absence checks can fail.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startExtraDaemon, type ExtraDaemon } from '../support/extra-daemon.js';
import { holdsTestCardNumber } from '../support/card-text.js';
import { verifyLatchSignature } from '../support/independent-http-signature.js';
import { startRecordingServer, type RecordedRequest, type RecordingServer } from '../support/recording-server.js';
import { startStack, type Stack } from '../support/stack.js';

let stack: Stack;
let cloud: RecordingServer;
let daemon: ExtraDaemon;
before(async () => {
  stack = await startStack();
  cloud = await startRecordingServer();
  daemon = await startExtraDaemon(stack.home, { LATCH_CLOUD_URL: cloud.url });
});
after(async () => {
  await daemon.close();
  await cloud.close();
  await stack.close();
});

const jwk = () => {
  const device = [...stack.sandbox.state().devices.values()][0];
  return { kty: 'OKP' as const, crv: 'Ed25519' as const, x: device?.public_key_x ?? '' };
};

/** sendThrough sends one request to the proxy and returns what the cloud received. */
async function sendThrough(method: string, headers: Array<[string, string]>, body?: string): Promise<RecordedRequest> {
  const before = cloud.requests.length;
  const answer = await daemon.raw(method, '/v1/wallet', headers, body);
  assert.equal(answer.status, 200, answer.body);
  assert.equal(cloud.requests.length, before + 1, 'exactly one request reached the cloud');
  return cloud.requests[before] as RecordedRequest;
}

describe('Content-Type on requests without a body', () => {
  const contentTypes = ['4111 1111 1111 1111', 'text/plain', 'application/json', 'application/x-www-form-urlencoded; boundary=4111111111111111'];
  // The proxy's table forwards no DELETE (docs/decisions.md §29.1): GET and HEAD are every bodiless request.
  for (const method of ['GET', 'HEAD']) {
    for (const contentType of contentTypes) {
      test(`${method} /v1/* with Content-Type ${contentType} → no Content-Type reaches the cloud`, async () => {
        const received = await sendThrough(method, [['Content-Type', contentType]]);
        const names = received.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
        assert.ok(!names.includes('content-type'), `Content-Type reached the cloud: ${received.rawHeaders.join(' | ')}`);
        assert.ok(!holdsTestCardNumber(cloud.everything()), 'the card-like value reached the cloud');
        assert.equal(received.body.length, 0);
        const checked = verifyLatchSignature(received, jwk());
        assert.ok(!checked.components.includes('content-type'), 'nothing to cover without a body');
      });
    }
  }

  test('control: a POST body’s content type reaches the cloud and is covered by the signature', async () => {
    const before = cloud.requests.length;
    const answer = await daemon.raw('POST', '/v1/wallet/allocate', [['Content-Type', 'application/json; charset=utf-8']], '{"card_id":"card_abc","amount":"1.00"}');
    assert.equal(answer.status, 200, answer.body);
    const received = cloud.requests[before] as RecordedRequest;
    assert.equal(received.headers['content-type'], 'application/json');
    assert.ok(verifyLatchSignature(received, jwk()).components.includes('content-type'));
  });
});
