/**
 * The CloudGateway over the signing HTTP client: each call is one cloud request, signed with the
 * key the operation resolved, and each answer is read into model values by cloud-shapes.ts.
 */
import type { AuthorizationQuery, CloudCall, CloudGateway } from '../core/cloud-gateway.js';
import type { CloudReads, TransactionQuery } from '../operations/cloud-reads.js';
import { utf8 } from '../crypto/base64url.js';
import { formatMinor } from '../money/amount.js';
import type { CloudClient, CloudResponse } from './cloud-client.js';
import { cloudJson, errorFromCloud, unexpectedShape } from './cloud-errors.js';
import {
  readAllocation,
  readAuthorization,
  readCard,
  readCardList,
  readEnrollment,
  readTransaction,
  readTransactionPage,
  readWallet,
} from './cloud-shapes.js';

/** httpCloudGateway implements the core's CloudGateway and the operations' CloudReads with one CloudClient (one cloud origin). */
export function httpCloudGateway(client: CloudClient): CloudGateway & CloudReads {
  const get = async (pathAndQuery: string, call: CloudCall): Promise<Record<string, unknown>> => {
    const response = await client.send({ method: 'GET', pathAndQuery, ...callFields(call) });
    if (response.status !== 200) throw errorFromCloud(response);
    return cloudJson(response);
  };
  const post = async (pathAndQuery: string, body: unknown, call: CloudCall): Promise<Record<string, unknown>> => {
    const response: CloudResponse = await client.send({
      method: 'POST',
      pathAndQuery,
      body: utf8(JSON.stringify(body)),
      contentType: 'application/json',
      ...callFields(call),
    });
    if (response.status !== 200 && response.status !== 201) throw errorFromCloud(response);
    return cloudJson(response);
  };
  const policyPath = (policyId: string) => `/v1/authorizations/${encodeURIComponent(policyId)}`;

  return {
    registerAuthorization: async (jws, call) => readAuthorization(await post('/v1/authorizations', { jws }, call)),
    revokeAuthorization: async (policyId, jws, call) => readAuthorization(await post(`${policyPath(policyId)}/revoke`, { jws }, call)),
    getAuthorization: async (policyId, call) => readAuthorization(await get(policyPath(policyId), call)),
    listAuthorizations: async (query, call) => readAuthorizationPage(await get(`/v1/authorizations?${pageParams(query)}`, call)),
    listCards: async (call) => readCardList(await get('/v1/cards', call)),
    getCard: async (cardId, call) => readCard(await get(`/v1/cards/${encodeURIComponent(cardId)}`, call)),
    listTransactions: async (query, call) => readTransactionPage(await get(`/v1/transactions?${pageParams(query)}`, call)),
    getTransaction: async (transactionId, call) => readTransaction(await get(`/v1/transactions/${encodeURIComponent(transactionId)}`, call)),
    wallet: async (call) => readWallet(await get('/v1/wallet', call)),
    allocate: async (cardId, amountMinor, call) => readAllocation(await post('/v1/wallet/allocate', { card_id: cardId, amount: formatMinor(amountMinor) }, call)),
    enrollDevice: async (request, call) =>
      readEnrollment(await post('/v1/devices', { setup_token: request.setupToken, public_key: request.publicJwk, name: request.deviceName }, call)),
  };
}

function callFields(call: CloudCall) {
  return {
    key: call.key,
    ...(call.caller !== undefined && { caller: call.caller }),
    ...(call.idempotencyKey !== undefined && { idempotencyKey: call.idempotencyKey }),
    ...(call.signal !== undefined && { signal: call.signal }),
    ...(call.window !== undefined && { window: call.window }),
  };
}

/** pageParams writes a list query in a fixed order: limit, starting_after, card_id, status. */
function pageParams(query: TransactionQuery | AuthorizationQuery): string {
  const params = new URLSearchParams({ limit: String(query.limit) });
  if (query.startingAfter !== undefined) params.set('starting_after', query.startingAfter);
  if (query.cardId !== undefined) params.set('card_id', query.cardId);
  if (query.status !== undefined) params.set('status', query.status);
  return params.toString();
}

function readAuthorizationPage(body: Record<string, unknown>) {
  const list = body['authorizations'];
  if (!Array.isArray(list) || typeof body['has_more'] !== 'boolean') throw unexpectedShape();
  return { authorizations: list.map(readAuthorization), hasMore: body['has_more'] };
}
