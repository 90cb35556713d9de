/** The requests the benchmark sends, shaped exactly as a client of Variant A sends them. */
import type { LoadRequest } from './load-generator.js';

/** Every benchmark authorization is for this merchant and amount, so that charges can match them. */
export const BENCH_MERCHANT = 'shop.example.com';
export const BENCH_AMOUNT = '1.00';

/** windowRequest is a POST of /authorize or /sign-card-policy-window for one card. */
export function windowRequest(path: '/authorize' | '/sign-card-policy-window', token: string, cardId: string): LoadRequest {
  return {
    method: 'POST',
    path,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'user-agent': 'latch-bench/1' },
    body: Buffer.from(JSON.stringify({ card_id: cardId, amount: 1.0, merchant_name: BENCH_MERCHANT, currency: 'USD', ttl_minutes: 60 })),
  };
}

/** roundRobin returns a function that hands out the items in turn. */
export function roundRobin<T>(items: readonly T[]): () => T {
  let next = 0;
  return () => {
    const item = items[next % items.length] as T;
    next += 1;
    return item;
  };
}

/** walletRequest is `GET /v1/wallet`, with the daemon's bearer token when one is given. */
export function walletRequest(token?: string): LoadRequest {
  return { method: 'GET', path: '/v1/wallet', headers: token === undefined ? {} : { authorization: `Bearer ${token}` } };
}

/** chargeRequest is the card network's charge of the benchmark amount at the benchmark merchant. */
export function chargeRequest(adminKey: string, cardId: string): LoadRequest {
  return {
    method: 'POST',
    path: '/v1/sandbox/charges',
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ card_id: cardId, merchant: BENCH_MERCHANT, amount: BENCH_AMOUNT, currency: 'USD' })),
  };
}
