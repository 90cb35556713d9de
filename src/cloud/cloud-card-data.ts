/**
 * The card-data guard over what the cloud says (docs/decisions.md §35): the cloud is outside the
 * trust boundary, and an answer of its that carries a card number — in an error message, a card's
 * label, any string — must not be relayed to an agent (on either listener, or by the /v1 proxy),
 * stored (an approval's outcome in state.journal) or logged. CloudClient applies this to every
 * answer as it reads it, the one place every cloud answer passes, before anything decodes it.
 *
 * A string that holds a card number, or the value of a member named like card data (`cvv`,
 * `card_number`, …), is replaced by CLOUD_CARD_DATA_MESSAGE; a number that is a card number, too.
 * A member name that holds a card number is replaced the same way. An answer that is not JSON and
 * holds a card number is replaced whole. Header values are checked likewise.
 */
import { isCardFieldName } from '../validate/card-field-names.js';
import { containsCardNumber } from '../validate/card-number-scan.js';

/** What stands where the cloud sent card data; it names no value. */
export const CLOUD_CARD_DATA_MESSAGE = 'The cloud sent card data here; Latch withheld it.';

/** A cloud answer is bounded (CLOUD_RESPONSE_BYTES_MAX), so its nodes are too; this catches a bug. */
const NODES_MAX = 1_000_000;

/** An answer's parts the guard reads and may replace. */
export interface CloudAnswerParts {
  headers: Headers;
  rawBody: Uint8Array;
}

/**
 * withoutCardData returns the answer with every piece of card data replaced, or the same answer
 * when it carries none (its bytes untouched, so a clean answer is relayed exactly as sent).
 */
export function withoutCardData<T extends CloudAnswerParts>(answer: T): T {
  const headers = headersWithoutCardData(answer.headers);
  const rawBody = bodyWithoutCardData(answer.rawBody);
  if (headers === answer.headers && rawBody === answer.rawBody) return answer;
  return { ...answer, headers, rawBody };
}

function headersWithoutCardData(headers: Headers): Headers {
  let found = false;
  headers.forEach((value) => {
    if (containsCardNumber(value)) found = true;
  });
  if (!found) return headers;
  const cleaned = new Headers();
  headers.forEach((value, name) => cleaned.set(name, containsCardNumber(value) ? CLOUD_CARD_DATA_MESSAGE : value));
  return cleaned;
}

function bodyWithoutCardData(rawBody: Uint8Array): Uint8Array {
  if (rawBody.byteLength === 0) return rawBody;
  const text = Buffer.from(rawBody).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return containsCardNumber(text) ? Buffer.from(CLOUD_CARD_DATA_MESSAGE, 'utf8') : rawBody;
  }
  const replaced = cleanInPlace(parsed);
  if (replaced.count === 0) return rawBody;
  try {
    return Buffer.from(JSON.stringify(replaced.value), 'utf8');
  } catch {
    // Nested too deep to write back (JSON.stringify recurses): the answer is withheld whole.
    return Buffer.from(CLOUD_CARD_DATA_MESSAGE, 'utf8');
  }
}

/** holdsCardNumber reports whether a JSON leaf (a string, or a number by its text) holds a card number. */
function holdsCardNumber(value: unknown): boolean {
  if (typeof value === 'string') return containsCardNumber(value);
  return typeof value === 'number' && Number.isFinite(value) && containsCardNumber(String(value));
}

/**
 * cleanInPlace replaces card data in a freshly parsed answer, with an explicit stack (an answer
 * nested a million deep must not overflow the call stack), and counts what it replaced.
 */
function cleanInPlace(root: unknown): { value: unknown; count: number } {
  if (holdsCardNumber(root)) return { value: CLOUD_CARD_DATA_MESSAGE, count: 1 };
  let count = 0;
  let nodes = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (++nodes > NODES_MAX) throw new Error('cloud card-data guard: answer has too many nodes');
    if (node === null || typeof node !== 'object') continue;
    const members = node as Record<string, unknown>;
    for (const name of Object.keys(members)) {
      const member = members[name];
      // A member named like card data is withheld whatever it holds (an object, a short code).
      const withheld = (!Array.isArray(node) && isCardFieldName(name) && member !== null) || holdsCardNumber(member);
      if (withheld) count++;
      const value = withheld ? CLOUD_CARD_DATA_MESSAGE : member;
      if (!Array.isArray(node) && containsCardNumber(name)) {
        delete members[name];
        members[CLOUD_CARD_DATA_MESSAGE] = value;
        count++;
      } else members[name] = value;
      if (!withheld && value !== null && typeof value === 'object') stack.push(value);
    }
  }
  return { value: root, count };
}
