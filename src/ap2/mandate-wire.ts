/**
 * An AP2 mandate request's own terms (merchant, items, agent key) in the wire's vocabulary, both
 * ways: the approval and the evidence pack show them so, and `latch evidence verify` reads them
 * back into the value the daemon hashed, so a changed term cannot keep the request's SHA-256.
 */
import type { Ap2MandateRequest } from '../core/authorization-request.js';
import { p256PublicJwkFromUntrusted, p256Thumbprint } from './p256.js';
import type { Ap2Item, MandateLine } from './open-mandates.js';
import type { Ap2MandateRecord } from '../core/decision-record.js';
import { isoSeconds } from '../time/iso-time.js';

/** The mandate's terms as the wire shows them. */
export interface Ap2TermsWire {
  merchant: { id: string; name: string; website?: string };
  items: { id: string; title: string; quantity: number; alternatives: Ap2Item[] }[];
  agent_key: { kty: 'EC'; crv: 'P-256'; x: string; y: string };
  /** The RFC 7638 thumbprint of the agent key: what the audit line names. */
  agent_key_thumbprint: string;
}

/**
 * mandatesWire is what POST /ap2/mandates answers on 201, and an approved request's approval in
 * `ap2_mandates`: the card window's policy id and the two open mandates.
 */
export function mandatesWire(policyId: string, mandates: Ap2MandateRecord) {
  return {
    policy_id: policyId,
    mandate_id: mandates.mandateId,
    open_checkout_mandate: mandates.openCheckoutMandate,
    open_payment_mandate: mandates.openPaymentMandate,
    open_checkout_hash: mandates.openCheckoutHash,
    key_id: mandates.keyId,
    expires_at: isoSeconds(mandates.exp),
  };
}

/** ap2TermsWire writes a request's mandate terms. */
export function ap2TermsWire(request: Ap2MandateRequest): Ap2TermsWire {
  const { merchant, lines, agentKey } = request.mandate;
  return {
    merchant: { ...merchant },
    items: lines.map((line) => ({ id: line.item.id, title: line.item.title, quantity: line.quantity, alternatives: line.alternatives.map((a) => ({ ...a })) })),
    agent_key: { ...agentKey },
    agent_key_thumbprint: p256Thumbprint(agentKey),
  };
}

/** ap2TermsFromWire reads the terms back, or returns a sentence naming what is malformed. */
export function ap2TermsFromWire(value: unknown): Ap2MandateRequest['mandate'] | string {
  if (!isRecord(value)) return 'request.ap2 is not an object';
  const merchant = value['merchant'];
  if (!isRecord(merchant) || typeof merchant['id'] !== 'string' || typeof merchant['name'] !== 'string' || (merchant['website'] !== undefined && typeof merchant['website'] !== 'string')) return 'request.ap2.merchant is not {id, name, website}';
  const items = value['items'];
  if (!Array.isArray(items)) return 'request.ap2.items is not an array';
  const lines: MandateLine[] = [];
  for (const item of items) {
    if (!isRecord(item) || !isItem(item) || !Number.isSafeInteger(item['quantity']) || !Array.isArray(item['alternatives']) || !item['alternatives'].every(isItem)) return 'request.ap2.items holds a malformed item';
    lines.push({ item: { id: item['id'] as string, title: item['title'] as string }, alternatives: (item['alternatives'] as Ap2Item[]).map((a) => ({ id: a.id, title: a.title })), quantity: item['quantity'] as number });
  }
  const key = p256PublicJwkFromUntrusted(value['agent_key']);
  if ('refused' in key) return `request.ap2.agent_key is not a P-256 public key (${key.refused})`;
  const website = merchant['website'];
  return { merchant: { id: merchant['id'], name: merchant['name'], ...(typeof website === 'string' && { website }) }, lines, agentKey: key.jwk };
}

function isItem(value: unknown): boolean {
  return isRecord(value) && typeof value['id'] === 'string' && typeof value['title'] === 'string';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
