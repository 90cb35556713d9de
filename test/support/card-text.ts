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

/** A random id as src/ids/random-id.ts makes them: a prefix, `_`, and 24 of [a-z0-9]. */
const RANDOM_ID = /\b[a-z]+_[a-z0-9]{24}\b/g;

/**
 * mentionsCvv reports whether a text (a log, an answer) names the cvv field. Random ids are taken
 * out first: a request id is 24 random letters and digits, and about one in 2,000 holds "cvv" by
 * chance (issue 37 item 10: the flake of front-door.test.ts was exactly this).
 */
export function mentionsCvv(text: string): boolean {
  return text.replace(RANDOM_ID, '<id>').toLowerCase().includes('cvv');
}
