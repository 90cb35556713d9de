/**
 * Seeded fuzzing of every endpoint of both listeners (and the /v1 proxy) on the real daemon.
 * Each answer must be exactly one response: a 4xx with the common error body and a code from the
 * error table, or a 2xx for the requests that happen to be valid — never a 5xx, never silence.
 * Afterwards the daemon still serves and its log holds no internal_error.
 *
 * Reproduce a failure with LATCH_FUZZ_SEED=<seed> (printed in the message); LATCH_FUZZ_COUNT sets
 * the number of requests.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ERROR_TABLE } from '../../src/errors/error-table.js';
import { startStack, type Stack } from '../support/stack.js';
import { makeCase, ODD_MERCHANTS, type FuzzCase, type FuzzIds } from './fuzz-inputs.js';
import { fuzzCount, fuzzSeed, SeededRandom } from './seeded-random.js';
import { exchange } from './wire.js';

const SEED = fuzzSeed();
const COUNT = fuzzCount(2_500);
const PARALLEL = 8;
const ERROR_CODES = new Set(Object.keys(ERROR_TABLE));
/** Merchant names as Latch signs them: ASCII, lower case, no trailing dot. */
const NORMAL_MERCHANT = /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/;

let stack: Stack;
let ids: FuzzIds;
before(async () => {
  stack = await startStack();
  const created = await stack.a.post('/authorize', { card_id: stack.cards[0].card_id, amount: 1, merchant_name: 'seed.example' });
  assert.equal(created.status, 200, created.text);
  ids = { cardIds: stack.cards.map((c) => c.card_id), policyId: created.body.policy_id, transactionId: created.body.transaction_id };
});
after(() => stack.close());

interface Answer {
  statuses: number[];
  body: any;
  text: string;
}

/** send writes the case as one HTTP/1.1 request (UTF-8 target, exact body bytes) and parses the answer. */
async function send(fuzz: FuzzCase): Promise<Answer> {
  const port = fuzz.listener === 'a' ? stack.portA : stack.portB;
  const headers = [`Host: 127.0.0.1:${port}`, `Authorization: Bearer ${stack.token()}`, 'Connection: close'];
  if (fuzz.body !== undefined) headers.push('Content-Type: application/json', `Content-Length: ${fuzz.body.length}`);
  const head = Buffer.from(`${fuzz.method} ${fuzz.target} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`, 'utf8');
  const answer = await exchange(port, fuzz.body === undefined ? head : Buffer.concat([head, fuzz.body]), 10_000);
  const split = answer.text.indexOf('\r\n\r\n');
  const bodyText = split === -1 ? '' : Buffer.from(answer.text.slice(split + 4), 'latin1').toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(bodyText);
  } catch {
    body = undefined;
  }
  return { statuses: answer.statuses, body, text: answer.text };
}

/** problems lists what is wrong with one answer (nothing, normally). */
function problems(fuzz: FuzzCase, answer: Answer): string[] {
  const found: string[] = [];
  const status = answer.statuses[0];
  if (answer.statuses.length !== 1 || status === undefined) return [`expected one answer, got ${answer.statuses.length}`];
  if (status >= 500) found.push(`status ${status}`);
  if (answer.text.includes(stack.token())) found.push('the token was echoed');
  if (status >= 400) {
    const error = answer.body?.error;
    if (!ERROR_CODES.has(error?.code)) found.push(`error code ${String(error?.code)} is not in the table`);
    if (typeof error?.message !== 'string' || !/^req_/.test(error?.request_id ?? '')) found.push('not the common error body');
  } else if (answer.body === undefined) {
    found.push(`a ${status} without a JSON body`);
  } else {
    const merchant = answer.body.merchant_name ?? answer.body.policy_window?.merchant;
    if (merchant !== undefined && !NORMAL_MERCHANT.test(merchant)) found.push(`signed a merchant not in normal form: ${JSON.stringify(merchant)}`);
  }
  return found.map((problem) => `${fuzz.listener} ${fuzz.method} ${fuzz.pattern} [${fuzz.label}] ${fuzz.target.slice(0, 80)} ${fuzz.body?.toString('utf8').slice(0, 120) ?? ''}: ${problem} — ${answer.text.slice(0, 200)}`);
}

test(`${COUNT} seeded requests (seed ${SEED}) over every endpoint of A, B and /v1: never a 5xx, always the error body`, async () => {
  const random = new SeededRandom(SEED);
  const cases = Array.from({ length: COUNT }, () => makeCase(random, ids));
  const failures: string[] = [];
  const tally = new Map<string, number>();
  for (let i = 0; i < cases.length; i += PARALLEL) {
    const batch = cases.slice(i, i + PARALLEL);
    const answers = await Promise.all(batch.map(send));
    batch.forEach((fuzz, index) => {
      const answer = answers[index] as Answer;
      const key = String(answer.statuses[0]);
      tally.set(key, (tally.get(key) ?? 0) + 1);
      failures.push(...problems(fuzz, answer));
    });
  }
  assert.deepEqual(failures.slice(0, 20), [], `seed ${SEED}: ${failures.length} problems`);
  // The run exercised both outcomes: refusals and requests that happened to be valid.
  assert.ok((tally.get('200') ?? 0) + (tally.get('201') ?? 0) > COUNT / 50, `statuses seen: ${JSON.stringify([...tally])}`);
  assert.ok((tally.get('400') ?? 0) > COUNT / 4, `statuses seen: ${JSON.stringify([...tally])}`);

  // Still serving, and nothing was an internal error.
  assert.equal((await stack.a.get('/health')).status, 200);
  assert.equal((await stack.b.get('/health')).status, 200);
  assert.equal((await stack.a.get('/cards')).status, 200);
  assert.ok(!stack.logs().includes('internal_error'), 'no internal_error in the daemon log');
});

test('look-alike, invisible and odd merchant names: refused, or signed in their distinct ASCII form — never as the real domain', async () => {
  const real = 'apple.com';
  for (const name of ODD_MERCHANTS) {
    const signed = await stack.a.post('/sign-card-policy-window', { card_id: stack.cards[0].card_id, amount: 1, merchant_name: name });
    if (signed.status === 400) {
      assert.equal(signed.body.error.code, 'invalid_request', name);
      continue;
    }
    assert.equal(signed.status, 200, `${JSON.stringify(name)}: ${signed.text}`);
    const merchant = signed.body.policy_window.merchant as string;
    assert.match(merchant, NORMAL_MERCHANT, JSON.stringify(name));
    // Only compatibility forms of the same letters (fullwidth, ligatures, ideographic dots) fold
    // into ASCII; any other non-ASCII letter keeps a distinct xn-- label.
    const folded = name.normalize('NFKC').replace(/[。．｡]/g, '.').toLowerCase().replace(/\.$/, '');
    if (/^[\x00-\x7f]*$/.test(folded)) assert.equal(merchant, folded, JSON.stringify(name));
    else assert.ok(merchant.includes('xn--'), `${JSON.stringify(name)} → ${merchant}`);
    assert.notEqual(merchant, real);
  }
  // The Cyrillic look-alike gets its own window, which a charge from the real domain cannot use.
  // A card of its own, since the fuzzing before may have spent the others.
  assert.equal((await stack.admin.post('/v1/sandbox/deposits', { account_id: stack.accountId, amount: '5.00' })).status, 200);
  const card = await stack.admin.post('/v1/sandbox/cards', { account_id: stack.accountId, label: 'Look-alike', balance: '5.00' });
  assert.equal(card.status, 201, card.text);
  const cardId = card.body.card_id as string;
  const lookAlike = await stack.a.post('/authorize', { card_id: cardId, amount: 1, merchant_name: 'аpple.com' });
  assert.equal(lookAlike.status, 200, lookAlike.text);
  assert.equal(lookAlike.body.merchant_name, 'xn--pple-43d.com');
  const charge = await stack.charge(cardId, real, '1.00');
  assert.equal(charge.body.decision, 'declined', charge.text);
  const own = await stack.charge(cardId, 'xn--pple-43d.com', '1.00');
  assert.equal(own.body.decision, 'approved', 'the window works for the domain it names');
});
