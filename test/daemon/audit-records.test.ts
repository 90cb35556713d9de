import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { OWNER, type Principal } from '../../src/core/principal.js';
import { requestAuditEntries, requestSignatureEntry, signatureEntry } from '../../src/daemon/audit-records.js';
import { sharedAuditWriter } from '../../src/datadir/audit-writer.js';
import { verifyAudit } from '../../src/verify/audit-verify.js';
import { tempHome } from '../datadir/temp-home.js';

const SHOPPER: Principal = { kind: 'agent', name: 'shopper' };
const caller = { requestId: 'req_1', userAgent: 'test/1.0' };
const signature = (principal: Principal) =>
  signatureEntry({ operation: 'authorize', policyId: 'pw_1', cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 1250, currency: 'USD', keyId: 'k1', caller, principal });

test('every audit line names the caller: the owner or the agent', () => {
  const cases: Array<[string, ReturnType<typeof signature>, string]> = [
    ['a window signed for the owner', signature(OWNER), 'owner'],
    ['a window signed for an agent', signature(SHOPPER), 'shopper'],
    ['a request signed for an agent', requestSignatureEntry({ method: 'GET', path: '/v1/cards', keyId: 'k1', caller: { ...caller, principal: SHOPPER } }), 'shopper'],
    ['the enrollment (no local caller) is the owner', requestSignatureEntry({ method: 'POST', path: '/v1/devices', keyId: 'k1', caller: undefined }), 'owner'],
  ];
  for (const [name, entry, agent] of cases) assert.equal(entry.agent, agent, name);
  assert.equal(signature(OWNER).amount, '12.50');
});

test('latch audit verify accepts a log whose older lines have no agent field', async () => {
  const home = tempHome();
  const writer = sharedAuditWriter(home);
  await writer.append({ operation: 'sign_request', key_id: 'k1', request_id: null, user_agent: null, method: 'POST', path: '/v1/devices' });
  await writer.append(signature(SHOPPER));
  await writer.append(requestSignatureEntry({ method: 'POST', path: '/v1/authorizations', keyId: 'k1', caller: { ...caller, principal: SHOPPER } }));
  const lines = readFileSync(path.join(home, 'audit.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.deepEqual(lines.map((line) => line['agent']), [undefined, 'shopper', 'shopper']);
  assert.deepEqual(verifyAudit(home), { ok: true, lines: 3 });
});

test('a request that carries a window signed with its key is one line for both; otherwise each signature has its own', () => {
  const window = { operation: 'authorize', policyId: 'pw_1', cardId: 'card_a', merchant: 'shop.example.com', amountMinor: 1250, currency: 'USD', keyId: 'k1', caller, principal: SHOPPER };
  const request = { method: 'POST', path: '/v1/authorizations', keyId: 'k1', caller: { ...caller, principal: SHOPPER } };
  const cases: Array<[string, Parameters<typeof requestAuditEntries>[0], Array<Record<string, unknown>>]> = [
    ['no window: the request alone', request, [requestSignatureEntry(request)]],
    ['a window with the same key: one line, the window with the method and path', { ...request, window }, [{ ...signatureEntry(window), method: 'POST', path: '/v1/authorizations' }]],
    ['a window with another key: the window, then the request', { ...request, window: { ...window, keyId: 'k0' } }, [signatureEntry({ ...window, keyId: 'k0' }), requestSignatureEntry(request)]],
  ];
  for (const [name, record, expected] of cases) assert.deepEqual(requestAuditEntries(record), expected, name);
});
