import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CloudClient, CloudRequest, CloudResponse } from '../../src/cloud/cloud-client.js';
import { httpCloudGateway } from '../../src/cloud/http-cloud-gateway.js';
import { OWNER } from '../../src/core/principal.js';
import { upstreamKeyOf } from '../support/test-signer.js';
import { generateSecretKey } from '../support/raw-signing.js';
import { LatchError } from '../../src/errors/latch-error.js';

const secretKey = generateSecretKey();
const key = upstreamKeyOf(secretKey);
const call = { key, caller: { requestId: 'req_1', userAgent: 'test', principal: OWNER }, idempotencyKey: 'k1' };

function fakeClient(answer: (request: CloudRequest) => CloudResponse): { client: CloudClient; sent: CloudRequest[] } {
  const sent: CloudRequest[] = [];
  const client = {
    async send(request: CloudRequest): Promise<CloudResponse> {
      sent.push(request);
      return answer(request);
    },
  } as unknown as CloudClient;
  return { client, sent };
}

const json = (status: number, body: unknown): CloudResponse => ({ status, headers: new Headers(), rawBody: Buffer.from(JSON.stringify(body)) });

test('registerAuthorization posts {jws} signed with the call key and reads the answer into the model', async () => {
  const { client, sent } = fakeClient(() =>
    json(201, {
      policy_id: 'pw_1', card_id: 'card_a', merchant_name: 'shop.example.com', amount: '12.50', currency: 'USD', authorization_type: 'exact',
      kind: 'one_time', not_before: 1, expires_at: 2, status: 'active', created_at: 1, transaction_id: 'tx_1',
    }),
  );
  const authorization = await httpCloudGateway(client).registerAuthorization('a.b.c', call);
  assert.equal(authorization.amountMinor, 1250);
  assert.equal(sent[0]?.pathAndQuery, '/v1/authorizations');
  assert.equal(Buffer.from(sent[0]?.body ?? new Uint8Array()).toString('utf8'), '{"jws":"a.b.c"}');
  assert.equal(sent[0]?.key, key);
  assert.equal(sent[0]?.idempotencyKey, 'k1');
  assert.equal(sent[0]?.caller?.principal, OWNER);
});

test("cloud refusals become our codes; the cloud's device_key_not_recognized carries the reconnect remedy", async () => {
  const answer = (status: number, code: string) => () => json(status, { error: { code, message: 'cloud says' } });
  const cases: Array<[number, string, string, number]> = [
    [404, 'card_not_found', 'card_not_found', 404],
    [402, 'insufficient_funds', 'insufficient_funds', 402],
    [401, 'device_key_not_recognized', 'local_key_not_recognized', 401],
    [500, 'internal_error', 'upstream_unavailable', 502],
    [418, 'not_a_code_of_ours', 'upstream_unavailable', 502],
  ];
  for (const [status, cloudCode, code, localStatus] of cases) {
    const { client } = fakeClient(answer(status, cloudCode));
    await assert.rejects(httpCloudGateway(client).registerAuthorization('a.b.c', call), (error: unknown) => {
      assert.ok(error instanceof LatchError);
      assert.equal(error.code, code);
      assert.equal(error.status, localStatus);
      if (code === 'local_key_not_recognized') assert.match(error.message, /latch setup --reconnect/);
      return true;
    });
  }
});

test('an answer of the wrong shape is upstream_unavailable, on every read', async () => {
  const { client } = fakeClient(() => json(200, { unexpected: true }));
  const gateway = httpCloudGateway(client);
  const reads: Array<[string, () => Promise<unknown>]> = [
    ['listCards', () => gateway.listCards(call)],
    ['getCard', () => gateway.getCard('card_a', call)],
    ['listTransactions', () => gateway.listTransactions({ limit: 5, startingAfter: undefined, cardId: undefined, status: undefined }, call)],
    ['getTransaction', () => gateway.getTransaction('tx_1', call)],
    ['listAuthorizations', () => gateway.listAuthorizations({ limit: 5, startingAfter: undefined, cardId: undefined, status: undefined }, call)],
    ['wallet', () => gateway.wallet(call)],
  ];
  for (const [name, read] of reads) {
    await assert.rejects(read(), (error: unknown) => error instanceof LatchError && error.code === 'upstream_unavailable', name);
  }
});
