/**
 * Proofs after the door (docs/decisions.md §34.3): the daemon's identity proofs on GET /health —
 * the token proof and the device key's signature — are set only on a request that passed the
 * front door. A request the door refuses (a foreign Host, a browser's Origin) is answered with its
 * error and no signature of the device key.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CHALLENGE_HEADER, KEY_PROOF_HEADER, PROOF_HEADER } from '../../src/http/daemon-proof.js';
import { startStack, type Stack } from '../support/stack.js';
import { sendRaw } from './raw-client.js';

let stack: Stack;
before(async () => {
  stack = await startStack();
});
after(() => stack.close());

const challenge = 'A'.repeat(43);

test('a challenged GET /health that passed the door carries both proofs', async () => {
  const answer = await sendRaw(stack.portA, { target: '/health', headers: [['Host', `127.0.0.1:${stack.portA}`], [CHALLENGE_HEADER, challenge]] });
  assert.equal(answer.status, 200);
  assert.equal(answer.headers[PROOF_HEADER]?.length, 1, 'the token proof');
  assert.equal(answer.headers[KEY_PROOF_HEADER]?.length, 1, 'the device key proof');
});

const refusals: Array<{ name: string; code: string; headers: (port: number) => Array<[string, string]> }> = [
  { name: 'a foreign Host', code: 'forbidden_host', headers: (port) => [['Host', `attacker.example:${port}`]] },
  { name: 'a browser Origin', code: 'forbidden_origin', headers: (port) => [['Host', `127.0.0.1:${port}`], ['Origin', 'https://attacker.example']] },
];

for (const { name, code, headers } of refusals) {
  test(`a challenged GET /health with ${name} is refused (${code}) and carries no proof`, async () => {
    const answer = await sendRaw(stack.portA, { target: '/health', headers: [...headers(stack.portA), [CHALLENGE_HEADER, challenge]] });
    assert.equal(answer.status, 403);
    assert.match(answer.body, new RegExp(`"code":"${code}"`));
    assert.equal(answer.headers[KEY_PROOF_HEADER], undefined, 'no signature of the device key before the door');
    assert.equal(answer.headers[PROOF_HEADER], undefined, 'no token proof before the door');
  });
}
