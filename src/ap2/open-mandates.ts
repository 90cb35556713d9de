/**
 * The two open mandates Latch signs as an agent's trusted surface, in AP2 v0.2's shapes
 * (`code/sdk/schemas/ap2/open_checkout_mandate.json`, `open_payment_mandate.json`; docs/ap2.md):
 * the delegate claims, which of their array elements are selectively disclosable, and the terms
 * they are made from. Pure: no key, no clock, no I/O.
 */
import type { P256PublicJwk } from './p256.js';
import type { Disclose } from './sd-jwt.js';
import { formatMinor } from '../money/amount.js';
import type { Ap2Frequency, MandateRecurrence } from './recurrence.js';

export const OPEN_CHECKOUT_VCT = 'mandate.checkout.open.1';
export const OPEN_PAYMENT_VCT = 'mandate.payment.open.1';

/** AP2's Merchant: `id` and `name` required, `website` optional (never written as null). */
export interface Ap2Merchant {
  id: string;
  name: string;
  website?: string;
}

/** An acceptable item of a line requirement: AP2's `{id, title}`. */
export interface Ap2Item {
  id: string;
  title: string;
}

/** One line the agent may buy: the item or any of its alternatives, up to `quantity`. */
export interface MandateLine {
  item: Ap2Item;
  alternatives: Ap2Item[];
  quantity: number;
}

/** What the owner's trusted surface agrees to, checked and normalized (src/ap2/mandate-request.ts). */
export interface MandateTerms {
  cardId: string;
  /** The card's label, shown as the instrument's description; left out when the card has none. */
  cardLabel?: string;
  merchant: Ap2Merchant;
  amountMaxMinor: number;
  currency: string;
  lines: MandateLine[];
  agentKey: P256PublicJwk;
  /** For a human-not-present mandate: how often, how many times, and the total (spec §6). */
  recurrence?: MandateRecurrence;
  /** The issuer JWT's `iss`: the device as issuerUri names it (not a delegate claim). */
  issuer?: string;
}

/**
 * issuerUri is the `iss` of every mandate a device signs: `urn:latch:device:` and the device's id
 * as the cloud enrolled it (docs/ap2.md, "The issuer"). It stays the same across mandate-key
 * rotations; a device enrolled afresh has a new id.
 */
export function issuerUri(deviceId: string): string {
  return `urn:latch:device:${deviceId}`;
}

export interface LineItemsConstraint {
  type: 'checkout.line_items';
  items: { id: string; acceptable_items: Ap2Item[]; quantity: number }[];
}
export interface AllowedMerchantsConstraint {
  type: 'checkout.allowed_merchants';
  allowed: Ap2Merchant[];
}
export interface AmountRangeConstraint {
  type: 'payment.amount_range';
  currency: string;
  max: number;
  min: number;
}
/** AP2's `payment.agent_recurrence`: how often the agent may pay, and at most how many times. */
export interface AgentRecurrenceConstraint {
  type: 'payment.agent_recurrence';
  frequency: Ap2Frequency;
  max_occurrences?: number;
}
/** AP2's `payment.budget`: the total, a JSON number of major units as AP2's schema has it. */
export interface BudgetConstraint {
  type: 'payment.budget';
  max: number;
  currency: string;
}
export interface AllowedPayeesConstraint {
  type: 'payment.allowed_payees';
  allowed: Ap2Merchant[];
}
export interface Ap2PaymentInstrument {
  id: string;
  type: 'card';
  description?: string;
}
export interface AllowedInstrumentsConstraint {
  type: 'payment.allowed_payment_instruments';
  allowed: Ap2PaymentInstrument[];
}
export interface PaymentReferenceConstraint {
  type: 'payment.reference';
  conditional_transaction_id: string;
}

/** The delegate claims of an open checkout mandate, members in the SDK's order. */
export interface OpenCheckoutClaims {
  vct: typeof OPEN_CHECKOUT_VCT;
  constraints: [LineItemsConstraint, AllowedMerchantsConstraint];
  cnf: { jwk: P256PublicJwk };
  iat: number;
  exp: number;
}

/** One constraint of an open payment mandate. */
export type PaymentConstraint = AmountRangeConstraint | AgentRecurrenceConstraint | BudgetConstraint | AllowedPayeesConstraint | AllowedInstrumentsConstraint | PaymentReferenceConstraint;

/**
 * The delegate claims of an open payment mandate, members in the SDK's order. The constraints are
 * the range, then for a recurring mandate its recurrence and budget, then the payees, the
 * instruments and the reference.
 */
export interface OpenPaymentClaims {
  vct: typeof OPEN_PAYMENT_VCT;
  constraints: PaymentConstraint[];
  cnf: { jwk: P256PublicJwk };
  iat: number;
  exp: number;
}

/** openCheckoutClaims: one line requirement per line (`line_1`, …) and the one merchant. */
export function openCheckoutClaims(terms: MandateTerms, iat: number, exp: number): OpenCheckoutClaims {
  return {
    vct: OPEN_CHECKOUT_VCT,
    constraints: [
      { type: 'checkout.line_items', items: terms.lines.map((line, index) => ({ id: `line_${index + 1}`, acceptable_items: [{ ...line.item }, ...line.alternatives.map((a) => ({ ...a }))], quantity: line.quantity })) },
      { type: 'checkout.allowed_merchants', allowed: [{ ...terms.merchant }] },
    ],
    cnf: { jwk: { ...terms.agentKey } },
    iat,
    exp,
  };
}

/**
 * openPaymentClaims: from 0 to the maximum in minor units, the one payee, the one card (by id and
 * label, never a number), and the open checkout mandate it goes with (its sd_hash).
 */
export function openPaymentClaims(terms: MandateTerms, openCheckoutHash: string, iat: number, exp: number): OpenPaymentClaims {
  const instrument: Ap2PaymentInstrument = { id: terms.cardId, type: 'card', ...(terms.cardLabel !== undefined && { description: terms.cardLabel }) };
  return {
    vct: OPEN_PAYMENT_VCT,
    constraints: [
      { type: 'payment.amount_range', currency: terms.currency, max: terms.amountMaxMinor, min: 0 },
      ...recurrenceConstraints(terms),
      { type: 'payment.allowed_payees', allowed: [{ ...terms.merchant }] },
      { type: 'payment.allowed_payment_instruments', allowed: [instrument] },
      { type: 'payment.reference', conditional_transaction_id: openCheckoutHash },
    ],
    cnf: { jwk: { ...terms.agentKey } },
    iat,
    exp,
  };
}

/**
 * recurrenceConstraints are a recurring mandate's `payment.agent_recurrence` and `payment.budget`
 * (AP2 requires the budget with the recurrence); none for a one-time mandate. AP2's schema types the
 * budget's max as a number of major units, so the exact decimal text of the budget becomes that
 * JSON number here, at the wire's edge, and is never computed with (docs/decisions.md §35).
 */
function recurrenceConstraints(terms: MandateTerms): [AgentRecurrenceConstraint, BudgetConstraint] | [] {
  const recurrence = terms.recurrence;
  if (recurrence === undefined) return [];
  return [
    { type: 'payment.agent_recurrence', frequency: recurrence.frequency, ...(recurrence.maxOccurrences !== null && { max_occurrences: recurrence.maxOccurrences }) },
    { type: 'payment.budget', max: Number(formatMinor(recurrence.budgetMinor, 2)), currency: terms.currency },
  ];
}

/**
 * packOpenCheckout replaces what AP2 marks `x-selectively-disclosable-array` by digests, inner
 * first: each acceptable item, then each allowed merchant.
 */
export function packOpenCheckout(claims: OpenCheckoutClaims, disclose: Disclose): unknown {
  const [lines, merchants] = claims.constraints;
  return {
    ...claims,
    constraints: [
      { ...lines, items: lines.items.map((line) => ({ ...line, acceptable_items: line.acceptable_items.map(disclose) })) },
      { ...merchants, allowed: merchants.allowed.map(disclose) },
    ],
  };
}

/** packOpenPayment discloses each allowed payee and each allowed instrument; every other constraint is plain. */
export function packOpenPayment(claims: OpenPaymentClaims, disclose: Disclose): unknown {
  return {
    ...claims,
    constraints: claims.constraints.map((constraint) => (hasDisclosedList(constraint) ? { ...constraint, allowed: constraint.allowed.map(disclose) } : constraint)),
  };
}

/** The payment constraints whose `allowed` elements AP2 marks `x-selectively-disclosable-array`. */
function hasDisclosedList(constraint: PaymentConstraint): constraint is AllowedPayeesConstraint | AllowedInstrumentsConstraint {
  return constraint.type === 'payment.allowed_payees' || constraint.type === 'payment.allowed_payment_instruments';
}

/** How many disclosures each mandate has: one per disclosed element, plus the delegate itself. */
export function disclosureCount(claims: OpenCheckoutClaims | OpenPaymentClaims): number {
  if (claims.vct === OPEN_CHECKOUT_VCT) {
    const [lines, merchants] = claims.constraints;
    return 1 + lines.items.reduce((n, line) => n + line.acceptable_items.length, 0) + merchants.allowed.length;
  }
  return 1 + claims.constraints.reduce((n, constraint) => n + (hasDisclosedList(constraint) ? constraint.allowed.length : 0), 0);
}
