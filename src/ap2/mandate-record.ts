/**
 * The AP2 open mandates kept with the ledger entry of the card window that backs them (docs/ap2.md):
 * plain data, kept in core/decision-record.ts's record and the ledger's `ap2_mandates` journal record.
 */

/**
 * The open mandates signed for an AP2 mandate request (docs/ap2.md), kept whole: the answer to a
 * retry or an approval is read from here, and the evidence pack carries them.
 */
export interface Ap2MandateRecord {
  mandateId: string;
  openCheckoutMandate: string;
  openPaymentMandate: string;
  openCheckoutHash: string;
  /** The mandate key's kid. */
  keyId: string;
  iat: number;
  exp: number;
}

/** mandatesJson is the record's journal form (snake_case, as the rest of a decision record). */
export function mandatesJson(mandates: Ap2MandateRecord): Record<string, unknown> {
  return {
    mandate_id: mandates.mandateId,
    open_checkout_mandate: mandates.openCheckoutMandate,
    open_payment_mandate: mandates.openPaymentMandate,
    open_checkout_hash: mandates.openCheckoutHash,
    key_id: mandates.keyId,
    iat: mandates.iat,
    exp: mandates.exp,
  };
}

/** parseMandates reads a replayed record's mandates, or throws on a malformed one. */
export function parseMandates(value: unknown): Ap2MandateRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('malformed decision record');
  const record = value as Record<string, unknown>;
  const text = ['mandate_id', 'open_checkout_mandate', 'open_payment_mandate', 'open_checkout_hash', 'key_id'].every((name) => typeof record[name] === 'string');
  if (!text || !Number.isSafeInteger(record['iat']) || !Number.isSafeInteger(record['exp'])) throw new Error('malformed decision record');
  return {
    mandateId: record['mandate_id'] as string,
    openCheckoutMandate: record['open_checkout_mandate'] as string,
    openPaymentMandate: record['open_payment_mandate'] as string,
    openCheckoutHash: record['open_checkout_hash'] as string,
    keyId: record['key_id'] as string,
    iat: record['iat'] as number,
    exp: record['exp'] as number,
  };
}
