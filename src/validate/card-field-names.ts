/**
 * Field names that carry card data. Names are compared after folding: NFKC, lower case, and
 * every character other than a–z and 0–9 removed, so `cardNumber`, `card-number`, `CARD_NUMBER`
 * and `card number` are the same name.
 */

/** Short names refused only as the whole name: as fragments they occur inside ordinary words. */
const EXACT_NAMES: ReadonlySet<string> = new Set([
  'pan',
  'cid',
  'csc',
  'cvn',
  'cvd',
  'pin',
  'expiry',
  'expdate',
  'expiration',
  'expirationdate',
  'ccnum',
  'ccexp',
]);

/** Distinctive fragments refused anywhere in a name (`card_cvv`, `billing_card_number`). */
const FRAGMENTS: readonly string[] = [
  'cardnumber',
  'cardnum',
  'ccnumber',
  'primaryaccountnumber',
  'cvv',
  'cvc',
  'securitycode',
  'expmonth',
  'expyear',
  'expirymonth',
  'expiryyear',
  'expirationmonth',
  'expirationyear',
  'cardexpiry',
  'expirydate',
  'track1',
  'track2',
  'trackdata',
  'magstripe',
  'pinblock',
];

/** foldFieldName folds a field name for comparison: `Card-Number` → `cardnumber`. */
export function foldFieldName(name: string): string {
  return name.normalize('NFKC').toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** isCardFieldName reports whether a field name says it holds card data (PAN, CVV, expiry, track). */
export function isCardFieldName(name: string): boolean {
  const folded = foldFieldName(name);
  if (EXACT_NAMES.has(folded)) return true;
  return FRAGMENTS.some((fragment) => folded.includes(fragment));
}
