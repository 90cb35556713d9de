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
import { formatMinor, parseAmountText } from '../money/amount.js';
import { AP2_FREQUENCIES, MAX_OCCURRENCES_MAX, type Ap2Frequency, type MandateRecurrence } from './recurrence.js';

/** The mandate's terms as the wire shows them. */
export interface Ap2TermsWire {
  merchant: { id: string; name: string; website?: string };
  items: { id: string; title: string; quantity: number; alternatives: Ap2Item[] }[];
  agent_key: { kty: 'EC'; crv: 'P-256'; x: string; y: string };
  /** The RFC 7638 thumbprint of the agent key: what the audit line names. */
  agent_key_thumbprint: string;
  /** A recurring mandate's recurrence and total, as the request sent them (spec §6). */
  recurrence?: { frequency: Ap2Frequency; max_occurrences: number | null; budget: string };
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
  const { merchant, lines, agentKey, recurrence } = request.mandate;
  return {
    merchant: { ...merchant },
    items: lines.map((line) => ({ id: line.item.id, title: line.item.title, quantity: line.quantity, alternatives: line.alternatives.map((a) => ({ ...a })) })),
    agent_key: { ...agentKey },
    agent_key_thumbprint: p256Thumbprint(agentKey),
    ...(recurrence !== undefined && { recurrence: { frequency: recurrence.frequency, max_occurrences: recurrence.maxOccurrences, budget: formatMinor(recurrence.budgetMinor, 2) } }),
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
  const recurrence = value['recurrence'] === undefined ? undefined : recurrenceFromWire(value['recurrence']);
  if (typeof recurrence === 'string') return recurrence;
  return { merchant: { id: merchant['id'], name: merchant['name'], ...(typeof website === 'string' && { website }) }, lines, agentKey: key.jwk, ...(recurrence !== undefined && { recurrence }) };
}

function recurrenceFromWire(value: unknown): MandateRecurrence | string {
  const malformed = 'request.ap2.recurrence is not {frequency, max_occurrences, budget}';
  if (!isRecord(value) || typeof value['budget'] !== 'string') return malformed;
  const frequency = value['frequency'];
  const max = value['max_occurrences'];
  if (!(AP2_FREQUENCIES as readonly unknown[]).includes(frequency)) return malformed;
  if (max !== null && (!Number.isSafeInteger(max) || (max as number) < 1 || (max as number) > MAX_OCCURRENCES_MAX)) return malformed;
  try {
    return { frequency: frequency as Ap2Frequency, maxOccurrences: max as number | null, budgetMinor: parseAmountText(value['budget'], { param: 'budget', decimals: 2, maxMinor: Number.MAX_SAFE_INTEGER }) };
  } catch {
    return malformed;
  }
}

function isItem(value: unknown): boolean {
  return isRecord(value) && typeof value['id'] === 'string' && typeof value['title'] === 'string';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
