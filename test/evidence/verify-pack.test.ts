/**
 * verifyEvidence against tampered packs (shared/spec/evidence.md §3). Packs come from the real
 * daemon and sandbox (ephemeral ports). Each tampering is tried twice: as anyone could (the pack's
 * JWS then fails), and re-signed with the device key itself, so that each of verify's own checks
 * is shown to catch it and none hides behind the signature. A seeded loop flips bytes anywhere.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { loadDeviceKey } from '../../src/signer/device-key.js';
import { lineHash } from '../../src/datadir/audit-lines.js';
import type { DeviceKey } from '../../src/signer/device-key.js';
import { signEvidencePack } from '../../src/signer/index.js';
import { verifyEvidence } from '../../src/evidence/verify-pack.js';
import { fuzzCount, fuzzSeed, SeededRandom } from '../adversarial/seeded-random.js';
import { startStack, type Stack } from '../support/stack.js';
import { signJwsCompact, secretOf } from '../support/raw-signing.js';

const POLICY = { v: 1, default: 'allow', rules: [{ id: 'large', min_amount: '5.00', decision: 'ask' }] };

let stack: Stack;
let key: DeviceKey;
let chargedText: string;
let approvedText: string;

before(async () => {
  stack = await startStack();
  writeFileSync(path.join(stack.home, 'policy.json'), JSON.stringify(POLICY), { mode: 0o600 });
  const created = await stack.a.post('/authorize', { card_id: stack.cards[0].card_id, amount: '2.50', merchant_name: 'shop.example.com' });
  assert.equal(created.status, 200, created.text);
  assert.equal((await stack.charge(stack.cards[0].card_id, 'shop.example.com', '2.50')).body.decision, 'approved');
  chargedText = (await stack.a.get(`/authorizations/${created.body.policy_id}/evidence`)).text;
  const asked = await stack.a.post('/authorize', { card_id: stack.cards[1].card_id, amount: '6.00', merchant_name: 'big.example.com' });
  assert.equal(asked.status, 202, asked.text);
  const decided = await stack.a.post(`/approvals/${asked.body.approval_id}/approve`, {});
  assert.equal(decided.status, 200, decided.text);
  approvedText = (await stack.a.get(`/authorizations/${decided.body.authorization.policy_id}/evidence`)).text;
  const loaded = loadDeviceKey(stack.home);
  assert.ok(loaded !== undefined);
  key = loaded;
});
after(() => stack.close());

type Pack = Record<string, any>;

/** resigned writes a pack changed by edit, signed again with the device key (as only the device could). */
function resigned(text: string, edit: (pack: Pack) => void): string {
  const { jws: _jws, ...body } = JSON.parse(text) as Pack;
  edit(body);
  const bodyText = JSON.stringify(body);
  return `${bodyText.slice(0, -1)},"jws":${JSON.stringify(signEvidencePack(key, bodyText))}}\n`;
}

/** edited writes a pack changed by edit, keeping its JWS (as anyone could). */
function edited(text: string, edit: (pack: Pack) => void): string {
  const pack = JSON.parse(text) as Pack;
  edit(pack);
  return `${JSON.stringify(pack)}\n`;
}

function problemOf(text: string): string {
  const verdict = verifyEvidence(text);
  assert.equal(verdict.ok, false, 'verify must fail');
  return verdict.ok ? '' : verdict.problem;
}

test('the untouched packs hold, as text, as bytes and as the parsed object', () => {
  for (const text of [chargedText, approvedText]) {
    assert.equal(verifyEvidence(text).ok, true);
    assert.equal(verifyEvidence(new TextEncoder().encode(text)).ok, true);
    assert.equal(verifyEvidence(JSON.parse(text)).ok, true);
  }
  // Re-signing an unchanged pack gives a pack that holds: the re-signed cases below fail for their change alone.
  assert.equal(verifyEvidence(resigned(chargedText, () => {})).ok, true);
  assert.equal(verifyEvidence(resigned(approvedText, () => {})).ok, true);
});

describe('each tampering fails, kept signature or signed again', () => {
  const cases: Array<{ name: string; pack: () => string; edit: (pack: Pack) => void; resignedProblem: RegExp }> = [
    { name: 'the request amount', pack: () => chargedText, edit: (p) => (p.request.amount = '3.50'), resignedProblem: /request\.sha256 is not the SHA-256/ },
    {
      name: 'the request amount with its hash recomputed by an attacker who knows the scheme',
      pack: () => chargedText,
      edit: (p) => {
        p.request.amount = '2.49';
        p.request.sha256 = 'a'.repeat(64);
      },
      resignedProblem: /request\.sha256 is not the SHA-256/,
    },
    { name: "the window payload's amount", pack: () => chargedText, edit: (p) => (p.window.payload.amount = '3.50'), resignedProblem: /window\.payload is not the window jws's payload/ },
    { name: 'the approval hash', pack: () => approvedText, edit: (p) => (p.approval.request_sha256 = 'b'.repeat(64)), resignedProblem: /approval\.request_sha256 is not the request's sha256/ },
    { name: 'the approval status', pack: () => approvedText, edit: (p) => (p.approval.status = 'denied'), resignedProblem: /approval\.status/ },
    { name: 'the approval removed', pack: () => approvedText, edit: (p) => (p.approval = null), resignedProblem: /asked the owner, but the pack has no approval/ },
    { name: 'an audit line', pack: () => chargedText, edit: (p) => (p.audit.lines[0] = p.audit.lines[0].replace('"2.50"', '"2.49"')), resignedProblem: /audit line 1's SHA-256 is not the one listed/ },
    {
      name: "the window's audit line, with its hash recomputed",
      pack: () => chargedText,
      edit: (p) => {
        const index = p.audit.lines.findIndex((line: string) => JSON.parse(line).operation === 'authorize');
        p.audit.lines[index] = p.audit.lines[index].replace('"2.50"', '"2.49"');
        p.audit.line_sha256[index] = lineHash(new TextEncoder().encode(p.audit.lines[index]));
      },
      resignedProblem: /does not chain to the line before it|no audit line records the window's signature/,
    },
    { name: 'an audit line removed', pack: () => chargedText, edit: (p) => (p.audit.lines.pop(), p.audit.line_sha256.pop(), p.audit.lines.shift(), p.audit.line_sha256.shift()), resignedProblem: /no audit line records the window's signature|log_end/ },
    { name: "a transaction's amount", pack: () => chargedText, edit: (p) => (p.cloud.transactions[0].amount = '99.00'), resignedProblem: /cloud transaction 1 exceeds the window's amount/ },
    { name: "a transaction's merchant", pack: () => chargedText, edit: (p) => (p.cloud.transactions[0].merchant = 'evil.example.com'), resignedProblem: /cloud transaction 1 is at another merchant/ },
    { name: 'a second charge', pack: () => chargedText, edit: (p) => p.cloud.transactions.push({ ...p.cloud.transactions[0], id: 'tx_second' }), resignedProblem: /more charges than the window allows/ },
    { name: "the key id", pack: () => chargedText, edit: (p) => (p.jwks.keys[0].kid = 'x'.repeat(43)), resignedProblem: /key id is not the key's RFC 7638 thumbprint/ },
  ];
  for (const { name, pack, edit, resignedProblem } of cases) {
    test(name, () => {
      assert.match(problemOf(edited(pack(), edit)), /jws|thumbprint|key id/);
      if (name === 'the key id') return; // Signing again cannot make the key's id another's.
      assert.match(problemOf(resigned(pack(), edit)), resignedProblem);
    });
  }

  test('a window signed again over other terms fails on the terms, not only on a signature', () => {
    const text = resigned(chargedText, (p) => {
      p.window.payload.amount = '3.50';
      p.window.jws = signJwsCompact(p.window.payload, key.keyId, secretOf(key));
    });
    assert.match(problemOf(text), /the window's amount is not the request's/);
  });

  test('the form: a space, another member order, a duplicate member, a second newline', () => {
    const pack = JSON.parse(chargedText) as Pack;
    assert.match(problemOf(chargedText.replace('{"v":1,', '{"v": 1,')), /exact form/);
    assert.match(problemOf(`${chargedText}\n`), /exact form/);
    assert.match(problemOf(chargedText.replace('{"v":1,', '{"v":1,"v":1,')), /exact form/);
    const { v, type, ...rest } = pack;
    assert.match(problemOf(`${JSON.stringify({ type, v, ...rest })}\n`), /members are not exactly/);
    // The final newline may be missing (a pack handled as a JSON value), but nothing else may stand there.
    assert.equal(verifyEvidence(chargedText.slice(0, -1)).ok, true);
    assert.match(problemOf(`${chargedText.slice(0, -1)} `), /exact form/);
  });
});

test('any byte changed anywhere fails (seeded; LATCH_FUZZ_SEED and LATCH_FUZZ_COUNT replay or widen it)', () => {
  const seed = fuzzSeed();
  const random = new SeededRandom(seed);
  for (const text of [chargedText, approvedText]) {
    const bytes = new TextEncoder().encode(text);
    const count = fuzzCount(250);
    for (let i = 0; i < count; i++) {
      const position = random.int(bytes.length);
      const changed = Uint8Array.from(bytes);
      changed[position] = (bytes[position] as number) ^ (1 + random.int(255));
      const verdict = verifyEvidence(changed);
      assert.equal(verdict.ok, false, `seed ${seed}: byte ${position} changed from ${bytes[position]} to ${changed[position]} still verified`);
    }
  }
});
