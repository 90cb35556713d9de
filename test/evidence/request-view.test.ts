/**
 * The pack's request member both ways, for every kind: read back, it hashes to exactly what the
 * daemon's requestSha256 gave (the hash the audit lines name), and the window the pipeline
 * derives from it passes checkWindowTerms, while each changed term is named.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestSha256 } from '../../src/core/approval.js';
import { windowTerms, type WindowRequest } from '../../src/core/authorization-request.js';
import { buildWindowPayload } from '../../src/core/window-payload.js';
import { requestValue, requestView } from '../../src/evidence/request-view.js';
import { checkWindowTerms } from '../../src/evidence/window-terms.js';

const NOW = 1_800_000_000;
const base = { cardId: 'card_abc', merchant: 'shop.example.com', amountMinor: 1250, currency: 'USD' };
const REQUESTS: Record<string, WindowRequest> = {
  'one-time exact': { ...base, kind: 'one_time', authorizationType: 'exact', ttlSeconds: 1800 },
  'one-time ceiling with a reference': { ...base, kind: 'one_time', authorizationType: 'ceiling', ttlSeconds: 600, reference: 'order-1' },
  'merchant verification': { ...base, amountMinor: 0, kind: 'merchant_verification', ttlSeconds: 600 },
  'recurring, defaults': { ...base, kind: 'recurring', authorizationType: 'exact', interval: 'month', intervalCount: 1, startsAt: null, endsAt: null, maxCharges: null },
  'recurring, every term': { ...base, kind: 'recurring', authorizationType: 'ceiling', interval: 'week', intervalCount: 2, startsAt: NOW + 60, endsAt: NOW + 90 * 86_400, maxCharges: 6, reference: 'plan-7' },
};

for (const [name, request] of Object.entries(REQUESTS)) {
  test(`${name}: the view reads back to the request the daemon hashed, and its window's terms hold`, () => {
    const view = requestView(request, 'shopper', NOW, requestSha256(request));
    const back = JSON.parse(JSON.stringify(view)) as Record<string, unknown>;
    const value = requestValue(back);
    assert.notEqual(typeof value, 'string', String(value));
    assert.equal(requestSha256(value as WindowRequest), view.sha256);
    const payload = buildWindowPayload(windowTerms(request, NOW), 'dev_abc', NOW) as unknown as Record<string, unknown>;
    assert.equal(checkWindowTerms(payload, value as WindowRequest), undefined);
  });
}

test('each changed term of a window is named', () => {
  const request = REQUESTS['recurring, every term'] as WindowRequest;
  const payload = buildWindowPayload(windowTerms(request, NOW), 'dev_abc', NOW) as unknown as Record<string, unknown>;
  const changes: Array<[string, unknown, RegExp]> = [
    ['card_id', 'card_other', /card/],
    ['merchant', 'evil.example.com', /merchant/],
    ['amount', '12.51', /amount/],
    ['currency', 'EUR', /currency/],
    ['kind', 'one_time', /kind/],
    ['authorization_type', 'exact', /authorization_type/],
    ['reference', 'plan-8', /reference/],
    ['not_before', NOW + 61, /not_before/],
    ['not_after', NOW + 1, /not_after/],
    ['interval', 'month', /interval/],
    ['interval_count', 3, /interval/],
    ['max_charges', 7, /max_charges/],
  ];
  for (const [field, value, problem] of changes) {
    assert.match(checkWindowTerms({ ...payload, [field]: value }, request) ?? '', problem, field);
  }
  const oneTime = REQUESTS['one-time exact'] as WindowRequest;
  const window = buildWindowPayload(windowTerms(oneTime, NOW), 'dev_abc', NOW) as unknown as Record<string, unknown>;
  assert.match(checkWindowTerms({ ...window, not_after: (window['not_after'] as number) + 1 }, oneTime) ?? '', /ttl_seconds/);
});

test('a malformed request member is named, never thrown', () => {
  const view = JSON.parse(JSON.stringify(requestView(REQUESTS['one-time exact'] as WindowRequest, 'owner', NOW, 'x'))) as Record<string, unknown>;
  const cases: Array<[string, unknown]> = [
    ['amount', 12.5],
    ['amount', '-1.00'],
    ['amount', '1e3'],
    ['kind', 'other'],
    ['authorization_type', 'loose'],
    ['ttl_seconds', 0],
    ['ttl_seconds', '1800'],
    ['card_id', null],
    ['reference', 7],
  ];
  for (const [field, value] of cases) assert.equal(typeof requestValue({ ...view, [field]: value }), 'string', `${field}: ${JSON.stringify(value)}`);
});
