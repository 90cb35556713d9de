/**
 * The session's side of URL-mode elicitation (shared/spec/mcp-approvals.md §1), driven in-process
 * with a fake client whose approval the test decides: who is asked and who is not, one question
 * per approval, cancellation, a client that answers with an error, and what the message says.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test } from 'node:test';
import type { Approval } from '../../src/client/types.js';
import { parseJson } from '../../src/json/parse-json.js';
import { createLogger } from '../../src/log/logger.js';
import { approvalTermsLine } from '../../src/mcp/approval-terms.js';
import { classifyMessage } from '../../src/mcp/json-rpc.js';
import { McpSession } from '../../src/mcp/mcp-session.js';
import type { ToolClient } from '../../src/mcp/tools.js';
import { waitUntil } from '../support/wait.js';

const PENDING: Approval = {
  approval_id: 'ap_one',
  status: 'pending_approval',
  agent: 'shopper',
  request: { kind: 'one_time', card_id: 'card_a', merchant_name: 'shop.example.com', amount: '12.50', currency: 'USD', authorization_type: 'exact' },
  rule: 'ask-here',
  reasons: ['listed'],
  created_at: '2026-01-01T00:00:00Z',
  expires_at: '2026-01-01T00:15:00Z',
};
const AUTHORIZATION = { policy_id: 'pw_a', amount: '12.50', status: 'active' };

/** A session over a fake client; `decide` settles the approval, `sent` holds every line the session wrote itself. */
function harness(capabilities: object, protocolVersion = '2025-11-25') {
  const sent: Array<Record<string, any>> = [];
  let decided: ((approval: Approval) => void) | undefined;
  const decision = new Promise<Approval>((resolve) => (decided = resolve));
  const client = {
    authorize: async () => PENDING,
    card: async () => ({ card_id: 'card_a', label: 'Groceries', last4: '4242' }),
    // Each look holds on until the decision, as GET /approvals/:id with Prefer: wait does.
    approval: async () => decision,
  } as unknown as ToolClient;
  const session = new McpSession({
    serverVersion: '0.0.0',
    caller: 'agent',
    log: createLogger({ stream: new PassThrough() }),
    makeClient: () => client,
    ownerApprovals: { approvalUrl: (id) => `http://localhost:7724/approvals/${id}`, waitSeconds: 60 },
  });
  session.connect((line) => sent.push(JSON.parse(line)));
  const send = (message: object) => session.handle(classifyMessage(parseJson(JSON.stringify({ jsonrpc: '2.0', ...message }))));
  const ready = (async () => {
    await send({ id: 0, method: 'initialize', params: { protocolVersion, capabilities, clientInfo: { name: 't', version: '1' } } });
    await send({ method: 'notifications/initialized' });
  })();
  const call = async (id: number) => {
    await ready;
    const line = await send({ id, method: 'tools/call', params: { name: 'latch_authorize', arguments: { card_id: 'card_a', merchant_domain: 'shop.example.com', amount: '12.50' } } });
    return line === undefined ? undefined : JSON.parse(line).result;
  };
  const questions = () => sent.filter((message) => message['method'] === 'elicitation/create');
  const answer = (question: Record<string, any>, result: object | undefined, error?: object) => send({ id: question['id'], ...(error === undefined ? { result } : { error }) });
  return { session, sent, call, questions, answer, decide: (approval: Approval) => decided?.(approval), send };
}

describe('URL-mode elicitation in the session', () => {
  test('two calls ending in the same approval ask one question; both return the authorization once approved; complete follows once', async () => {
    const h = harness({ elicitation: { url: {} } });
    const first = h.call(1);
    const second = h.call(2);
    const [question] = await waitUntil(() => (h.questions().length > 0 ? h.questions() : undefined), 'the question');
    assert.deepEqual(question?.['params'], {
      mode: 'url',
      elicitationId: 'latch-approval-ap_one',
      url: 'http://localhost:7724/approvals/ap_one',
      message: 'Latch: shopper asks for exactly 12.50 USD at shop.example.com on Groceries •••• 4242 (card_a), one-time, rule ask-here. Approve or deny it in your Latch console (sign in there; the link holds no secret).',
    });
    await h.answer(question as Record<string, any>, { action: 'accept' });
    h.decide({ ...PENDING, status: 'approved', authorization: AUTHORIZATION as never });
    const results = await Promise.all([first, second]);
    for (const result of results) assert.deepEqual(result.structuredContent, AUTHORIZATION);
    assert.equal(h.questions().length, 1, 'one question for one approval');
    await waitUntil(() => h.sent.some((message) => message['method'] === 'notifications/elicitation/complete'), 'the completion');
    assert.deepEqual(h.sent.filter((message) => message['method'] === 'notifications/elicitation/complete').map((message) => message['params']), [{ elicitationId: 'latch-approval-ap_one' }]);
  });

  test('denied: the tool error, with the owner\'s reason', async () => {
    const h = harness({ elicitation: { url: {} } });
    const call = h.call(1);
    const question = await waitUntil(() => h.questions()[0], 'the question');
    await h.answer(question, { action: 'accept' });
    h.decide({ ...PENDING, status: 'denied', reason: 'no' });
    const result = await call;
    assert.equal(result.isError, true);
    assert.match(result.content[0].text, /^Error approval_denied/);
  });

  test('notifications/cancelled ends the wait: no response, the approval stays pending', async () => {
    const h = harness({ elicitation: { url: {} } });
    const call = h.call(7);
    const question = await waitUntil(() => h.questions()[0], 'the question');
    await h.answer(question, { action: 'accept' });
    await h.send({ method: 'notifications/cancelled', params: { requestId: 7 } });
    assert.equal(await call, undefined, 'a cancelled request gets no response');
  });

  test('a client that answers the question with an error gets the pending approval', async () => {
    const h = harness({ elicitation: { url: {} } });
    const call = h.call(1);
    const question = await waitUntil(() => h.questions()[0], 'the question');
    await h.answer(question, undefined, { code: -32602, message: 'no' });
    assert.equal((await call).structuredContent.status, 'pending_approval');
  });

  const notAsked: Array<[string, object, string?]> = [
    ['no elicitation capability', {}],
    ['a bare elicitation: {} (form mode)', { elicitation: {} }],
    ['form mode only', { elicitation: { form: {} } }],
    ['url declared as something other than an object', { elicitation: { url: true } }],
    ['URL mode on a revision before 2025-11-25', { elicitation: { url: {} } }, '2025-06-18'],
  ];
  for (const [name, capabilities, version] of notAsked) {
    test(`never asked: ${name}`, async () => {
      const h = harness(capabilities, version);
      const result = await h.call(1);
      assert.equal(result.structuredContent?.status ?? JSON.parse(result.content.at(-1).text.split('\n').at(-1)).status, 'pending_approval');
      assert.equal(h.questions().length, 0);
    });
  }

  test('the message keeps to one line whatever the terms hold', () => {
    const line = approvalTermsLine({ ...PENDING, agent: 'evil\nagent', request: { ...PENDING.request, merchant_name: 'shop.example.com\u2028\u0007' } });
    assert.ok(!/[\u0000-\u001f\u2028]/.test(line), line);
    assert.match(line, /evil\?agent/);
  });
});
