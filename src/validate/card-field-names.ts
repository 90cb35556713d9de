/**
 * Field names that carry card data. Names are compared by their skeleton: compatibility forms
 * unfolded (NFKD, so full-width and subscript letters are plain), accents and invisible characters
 * dropped, Cyrillic and Greek look-alikes mapped to the Latin letters they imitate, then lower
 * case. Folded, every character other than a–z and 0–9 is removed, so `cardNumber`,
 * `card-number`, `CARD_NUMBER`, `card number` and `сard_number` (Cyrillic с) are the same name.
 */
import { LOOKALIKE_TO_LATIN } from './lookalike-letters.js';
import { memoizeNames } from './name-memo.js';

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

/**
 * Names refused when they are the whole name or a run of whole words in it (`card_no`,
 * `billing_card_no`, `cardNo`), but not as fragments of other words (`card_notes`).
 */
const WORD_NAMES: ReadonlySet<string> = new Set([
  'cardno',
  'cardnr',
  'cv2',
  'cvc2',
  'cvn2',
  'pannumber',
  'pannr',
  'pinnumber',
  'pincode',
  'cardpin',
  'validthru',
  'validthrough',
  'goodthru',
  'cardexp',
  'cardexpdate',
  'expdate',
]);

/** Whole words are compared in runs of at most this many (the longest WORD_NAMES entry has 3). */
const WORD_RUN_MAX = 3;
/** Names longer than this are compared on their first part only; field names are short. */
const NAME_CHARS_MAX = 256;

const INVISIBLE_OR_MARK = /[\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/** skeletonOf maps look-alike letters to Latin and drops marks and invisibles, keeping case. */
function skeletonOf(name: string): string {
  let out = '';
  for (const ch of name.slice(0, NAME_CHARS_MAX).normalize('NFKD').replace(INVISIBLE_OR_MARK, '')) {
    out += LOOKALIKE_TO_LATIN.get(ch) ?? ch;
  }
  return out;
}

/** foldFieldName folds a field name for comparison: `Card-Number` → `cardnumber`, `сvv` (Cyrillic) → `cvv`. */
export function foldFieldName(name: string): string {
  return skeletonOf(name).toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** wordsOf splits a name into lower-case words at separators and camelCase humps: `panNumber` → pan, number. */
function wordsOf(name: string): string[] {
  return skeletonOf(name)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/** isCardFieldName reports whether a field name says it holds card data (PAN, CVV, expiry, track). */
export const isCardFieldName = memoizeNames(judgeCardFieldName);

function judgeCardFieldName(name: string): boolean {
  const folded = foldFieldName(name);
  if (EXACT_NAMES.has(folded) || WORD_NAMES.has(folded)) return true;
  if (FRAGMENTS.some((fragment) => folded.includes(fragment))) return true;
  const words = wordsOf(name);
  for (let i = 0; i < words.length; i++) {
    let run = '';
    for (let j = i; j < words.length && j < i + WORD_RUN_MAX; j++) {
      run += words[j];
      if (WORD_NAMES.has(run)) return true;
    }
  }
  return false;
}
