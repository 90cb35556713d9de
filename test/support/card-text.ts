/**
 * Whether a text holds the test card number 4111 1111 1111 1111 in any form a leak would take:
 * its digits alone or grouped by spaces, dashes, `+` or `%20`, or percent-encoded digit by digit.
 * Tests look for the whole number, never a fragment such as "4111": fragments turn up by chance
 * in what servers legitimately send (a signature's `created=1795441113`, a random request id),
 * and a test that fails on the clock is no test.
 */
const SEPARATOR = '(?:[ -]|%20|\\+)?';
const GROUPED = new RegExp(['4111', '1111', '1111', '1111'].join(SEPARATOR));
const PERCENT_ENCODED = /%34%31%31%31(?:%31){12}/i;

export function holdsTestCardNumber(text: string): boolean {
  return GROUPED.test(text) || PERCENT_ENCODED.test(text);
}
