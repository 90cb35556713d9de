/** Field rules shared by Variant A and Variant B requests. */
import { LatchError } from '../errors/latch-error.js';
import { CURRENCY_DECIMALS } from '../money/amount.js';
import { normalizeMerchant } from '../validate/merchant.js';
import { parsedStr, str } from '../validate/schema.js';
import { APPROVAL_ID_PATTERN, CARD_ID_PATTERN, POLICY_ID_PATTERN, TRANSACTION_ID_PATTERN, wireIdWords } from '../ids/wire-ids.js';

/** cardIdField is a required card_id. */
export const cardIdField = () => str({ required: true, pattern: CARD_ID_PATTERN, describe: wireIdWords('card') });

/** policyIdField is a required policy_id. */
export const policyIdField = () => str({ required: true, pattern: POLICY_ID_PATTERN, describe: wireIdWords('pw') });

/** transactionIdField is a required transaction id, as the path of GET /transactions/:tx_id takes it. */
export const transactionIdField = () => str({ required: true, pattern: TRANSACTION_ID_PATTERN, describe: wireIdWords('tx') });

/** approvalIdField is a required approval id, as the path of GET /approvals/:approval_id takes it. */
export const approvalIdField = () => str({ required: true, pattern: APPROVAL_ID_PATTERN, describe: wireIdWords('ap') });

/** merchantField is a required merchant domain, normalized (docs/decisions.md §5). */
export const merchantField = () => parsedStr(normalizeMerchant, { required: true, maxLength: 253 });

/** The ISO 4217 codes a request may name: the known currencies with three-letter codes (USDT is not one). */
const REQUEST_CURRENCIES: readonly string[] = Object.keys(CURRENCY_DECIMALS).filter((code) => /^[A-Z]{3}$/.test(code));

/** currencyField is an ISO 4217 code this product supports, default USD. */
export const currencyField = () =>
  parsedStr(
    (text: string, param: string) => {
      if (!REQUEST_CURRENCIES.includes(text)) {
        throw new LatchError('invalid_request', { param, message: `${param} must be a supported ISO 4217 code (USD).` });
      }
      return text;
    },
    { default: 'USD', schemaHint: { enum: REQUEST_CURRENCIES } },
  );

/** checkCardIdParam validates a card id taken from the path. */
export function checkCardIdParam(cardId: string): string {
  if (!CARD_ID_PATTERN.test(cardId)) throw new LatchError('invalid_request', { param: 'card_id', message: 'card_id must be a card id like card_….' });
  return cardId;
}

/** checkTransactionIdParam validates a transaction id taken from the path. */
export function checkTransactionIdParam(transactionId: string): string {
  if (!TRANSACTION_ID_PATTERN.test(transactionId)) throw new LatchError('invalid_request', { param: 'tx_id', message: 'tx_id must be a transaction id like tx_….' });
  return transactionId;
}
