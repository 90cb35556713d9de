/**
 * The setup the AP2 mandate end-to-end tests share (test/e2e/ap2-mandates*.test.ts): the real daemon
 * and sandbox with a policy, an agent `shopper`, the mandate key's JWKS from GET /ap2/jwks and an
 * agent's P-256 key; a mandate request's body, its POST under a fresh Idempotency-Key, the audit
 * log's records, and a mandate verified with @sd-jwt/core and jose.
 */
import { before, after } from 'node:test';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { SDJwtInstance } from '@sd-jwt/core';
import { ES256, digest } from '@sd-jwt/crypto-nodejs';
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { addAgent } from '../../src/datadir/agents.js';
import { startStack, type HttpAnswer, type JsonClient, type Stack } from './stack.js';
import { auditLines, auditLinesAfter, settledAuditLines } from './audit-lines.js';

/** A verified mandate: its JWS header, its first delegate payload and how many disclosures it carries. */
export interface VerifiedMandate {
  header: Record<string, unknown> | undefined;
  delegate: Record<string, any>;
  disclosures: number | undefined;
}

/** What ap2World gives a test file; stack, shopper and jwks are set once its `before` has run. */
export interface Ap2World {
  stack: Stack;
  shopper: JsonClient;
  jwks: JSONWebKeySet;
  /** The agent's P-256 public JWK every body binds the mandates to. */
  agentKey: Record<string, string>;
  /** A fresh Idempotency-Key, named after the file's prefix. */
  key(): string;
  /** A mandate request for 15.00 USD of one mug at shop.example on the first card, with `over` laid over it. */
  body(over?: Record<string, unknown>): Record<string, unknown>;
  /** post sends a mandate request as `shopper` under a fresh Idempotency-Key. */
  post(value: Record<string, unknown>, headers?: Record<string, string>): Promise<HttpAnswer>;
  /** The audit log's records, in order. */
  auditLines(): Record<string, unknown>[];
  /** The audit log's records once no deferred line is still to come (support/audit-lines.ts). */
  settledAuditLines(): Promise<Record<string, unknown>[]>;
  /** The records after the first `before`, once there are at least count of them. */
  auditLinesAfter(before: number, count: number): Promise<Record<string, unknown>[]>;
  /** verified checks a mandate with @sd-jwt/core and its issuer JWS with jose, both under the JWKS. */
  verified(token: string): Promise<VerifiedMandate>;
}

/**
 * ap2World registers the file's `before` (start the stack with `policy`, add the agent, read the
 * JWKS) and `after` (close it); keys are `${keyPrefix}-1`, `${keyPrefix}-2`, ...
 */
export function ap2World(policy: object, keyPrefix: string): Ap2World {
  let keySeq = 0;
  const world: Ap2World = {
    stack: undefined as unknown as Stack,
    shopper: undefined as unknown as JsonClient,
    jwks: { keys: [] },
    agentKey: generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }) as Record<string, string>,
    key: () => `${keyPrefix}-${++keySeq}`,
    body: (over = {}) => ({
      card_id: world.stack.cards[0]?.card_id,
      merchant: { name: 'Example Shop', website: 'https://shop.example' },
      amount_max: '15.00',
      currency: 'USD',
      items: [{ id: 'sku-1', title: 'Blue mug' }],
      agent_key: world.agentKey,
      ...over,
    }),
    post: (value, headers = {}) => world.shopper.post('/ap2/mandates', value, { 'idempotency-key': world.key(), ...headers }),
    auditLines: () => auditLines(world.stack.home),
    settledAuditLines: () => settledAuditLines(world.stack.home),
    auditLinesAfter: (before, count) => auditLinesAfter(world.stack.home, before, count),
    verified: async (token) => {
      const library = new SDJwtInstance({ hasher: digest, hashAlg: 'sha-256', verifier: await ES256.getVerifier(world.jwks.keys[0] as Record<string, unknown>) });
      const { payload, header } = await library.verify(token);
      await compactVerify(token.split('~')[0] as string, createLocalJWKSet(world.jwks));
      const delegate = (payload as { delegate_payload: Record<string, any>[] }).delegate_payload[0] as Record<string, any>;
      return { header, delegate, disclosures: (await library.decode(token)).disclosures?.length };
    },
  };
  before(async () => {
    world.stack = await startStack();
    writeFileSync(path.join(world.stack.home, 'policy.json'), JSON.stringify(policy), { mode: 0o600 });
    addAgent(world.stack.home, 'shopper');
    world.shopper = world.stack.agent('shopper');
    world.jwks = (await world.stack.a.get('/ap2/jwks')).body as JSONWebKeySet;
  });
  after(() => world.stack?.close());
  return world;
}
