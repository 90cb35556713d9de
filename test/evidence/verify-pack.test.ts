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
import { verifyEvidence } from '../../src/evidence/verify-pack.js';
import { fuzzCount, fuzzSeed, SeededRandom } from '../adversarial/seeded-random.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';
import { generateSecretKey, publicKeyOf, signEd25519, signJwsCompact, signJwsCompactText, secretOf } from '../support/raw-signing.js';
import { toBase64Url, utf8 } from '../../src/crypto/base64url.js';
import { EVIDENCE_JWS_TYP } from '../../src/evidence/pack.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { keyIdOf, publicJwk } from '../../src/crypto/jwk.js';

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
  return `${bodyText.slice(0, -1)},"jws":${JSON.stringify(signTextAsDevice(bodyText))}}\n`;
}

/** signTextAsDevice signs a pack's text as the device key would, under the pack's typ (the forger here holds the key). */
function signTextAsDevice(bodyText: string): string {
  return signJwsCompactText(bodyText, key.keyId, secretOf(key), EVIDENCE_JWS_TYP);
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

test('a pretty-printed pack does not hold, and docs/evidence.md warns of it in the words verify uses', async () => {
  const { readFileSync } = await import('node:fs');
  const doc = readFileSync(new URL('../../docs/evidence.md', import.meta.url), 'utf8');
  for (const text of [chargedText, approvedText]) {
    const pretty = JSON.stringify(JSON.parse(text), null, 2);
    const verdict = verifyEvidence(pretty);
    assert.equal(verdict.ok, false);
    const problem = 'problem' in verdict ? verdict.problem : '';
    assert.match(problem, /exact form \(one line of JSON, as exported\)/);
    assert.ok(doc.includes(problem), `docs/evidence.md quotes the problem verify names: ${problem}`);
  }
  assert.match(doc, /\*\*Keep the file exactly as exported\.\*\* Pretty-printing it/);
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

  test('a window JWS signed under another purpose\'s typ is not the pack\'s window (§34.2)', () => {
    for (const typ of ['JWT', EVIDENCE_JWS_TYP]) {
      const text = resigned(chargedText, (p) => {
        p.window.jws = signJwsCompact(p.window.payload, key.keyId, secretOf(key), typ);
      });
      assert.match(problemOf(text), /the window's jws is not typ latch-window\+jwt/);
    }
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

/**
 * forgedWithFreshKey is the red team's pack (issue 34): the approved pack with the request changed
 * from its agent to `owner` and the approval removed, its audit lines and window signed again with
 * a key of the forger's own, which the pack then carries. It is consistent with itself.
 */
function forgedWithFreshKey(text: string): string {
  const secretKey = generateSecretKey();
  const fresh = { secretKey, publicKey: publicKeyOf(secretKey), keyId: keyIdOf(publicKeyOf(secretKey)) };
  const { jws: _jws, ...body } = JSON.parse(text) as Pack;
  const oldKid = body.jwks.keys[0].kid as string;
  body.jwks = { keys: [{ ...publicJwk(fresh.publicKey), kid: fresh.keyId, ...Object.fromEntries(Object.entries(body.jwks.keys[0]).filter(([name]) => !['kty', 'crv', 'x', 'kid'].includes(name))) }] };
  body.window = { jws: signJwsCompact(body.window.payload, fresh.keyId, fresh.secretKey), payload: body.window.payload };
  body.request.agent = 'owner';
  body.approval = null;
  body.decision = { ...body.decision, decision: 'allow', rule: null, reasons: [] };
  const lines: string[] = [];
  const hashes: string[] = [];
  let previous: { seq: number; hash: string } | undefined;
  for (const line of body.audit.lines as string[]) {
    const record = JSON.parse(line) as Record<string, unknown>;
    if (record['policy_id'] !== body.policy_id) continue;
    if (record['key_id'] === oldKid) record['key_id'] = fresh.keyId;
    if (typeof record['agent'] === 'string') record['agent'] = 'owner';
    if (previous !== undefined && record['seq'] === previous.seq + 1) record['prev'] = previous.hash;
    const rewritten = JSON.stringify(record);
    const hash = lineHash(new TextEncoder().encode(rewritten));
    lines.push(rewritten);
    hashes.push(hash);
    previous = { seq: record['seq'] as number, hash };
  }
  body.audit = { lines, line_sha256: hashes, log_end: { seq: previous?.seq, sha256: previous?.hash } };
  const bodyText = JSON.stringify(body);
  const signingInput = `${toBase64Url(utf8(JSON.stringify({ alg: 'EdDSA', kid: fresh.keyId, typ: EVIDENCE_JWS_TYP })))}.${toBase64Url(utf8(bodyText))}`;
  const packJws = `${signingInput}.${toBase64Url(signEd25519(utf8(signingInput), fresh.secretKey))}`;
  return `${bodyText.slice(0, -1)},"jws":${JSON.stringify(packJws)}}\n`;
}

describe('naming the expected device key (issue 34 item 3)', () => {
  test('a pack re-signed with a fresh key (request changed to owner, approval removed) holds unpinned, and fails when the device key is named', () => {
    const forged = forgedWithFreshKey(approvedText);
    const unpinned = verifyEvidence(forged);
    assert.equal(unpinned.ok, true, unpinned.ok ? '' : unpinned.problem);
    assert.equal(unpinned.ok && unpinned.keyPinned, false, 'an unpinned verdict says it pinned nothing');
    const pinned = verifyEvidence(forged, { expectedKeyIds: [key.keyId] });
    assert.equal(pinned.ok, false);
    assert.match(pinned.ok ? '' : pinned.problem, new RegExp(`^the pack is signed by key \\S+, not by the expected device key \\(${key.keyId}\\)$`));
    // The genuine pack holds against the same key, and says so.
    assert.deepEqual(verifyEvidence(approvedText, { expectedKeyIds: [key.keyId] }), { ok: true, policyId: JSON.parse(approvedText).policy_id, keyId: key.keyId, keyPinned: true });
  });

  test('latch evidence verify: --key-id and --jwks refuse the forged pack (exit 6 naming both keys); unpinned it says it proves only internal consistency; --require-key without a key is exit 12', async () => {
    const forgedFile = path.join(stack.root, 'forged.json');
    const genuineFile = path.join(stack.root, 'genuine.json');
    const jwksFile = path.join(stack.root, 'device-jwks.json');
    writeFileSync(forgedFile, forgedWithFreshKey(approvedText));
    writeFileSync(genuineFile, approvedText);
    writeFileSync(jwksFile, JSON.stringify({ keys: [{ ...publicJwk(key.publicKey), kid: 'a kid is not trusted: the key is' }] }));
    const offline = { LATCH_HOME: path.join(stack.root, 'no-such-home') };
    const unpinned = await runLatch(['evidence', 'verify', forgedFile], offline);
    assert.equal(unpinned.code, 0, unpinned.stderr);
    assert.match(unpinned.stdout, /the key the pack carries/);
    assert.match(unpinned.stdout, /proves only internal consistency/);
    assert.doesNotMatch(unpinned.stdout, /holds/);
    for (const pin of [['--key-id', key.keyId], ['--jwks', jwksFile]]) {
      const refused = await runLatch(['evidence', 'verify', forgedFile, ...pin], offline);
      assert.equal(refused.code, 6, `${pin[0]}: ${refused.stdout}`);
      assert.match(refused.stderr, new RegExp(`not by the expected device key \\(${key.keyId}\\)`));
      const genuine = await runLatch(['evidence', 'verify', genuineFile, ...pin, '--json'], offline);
      assert.equal(genuine.code, 0, genuine.stdout);
      assert.equal(JSON.parse(genuine.stdout).key_pinned, true);
      const human = await runLatch(['evidence', 'verify', genuineFile, ...pin], offline);
      assert.match(human.stdout, new RegExp(`holds: signed by key ${key.keyId}, the device key you named`));
    }
    assert.equal((await runLatch(['evidence', 'verify', genuineFile, '--key-id', 'short'], offline)).code, 2);
    // A script that demands pinning: with --require-key and no key named, not "ok" but exit 12,
    // for the genuine pack and the forged one alike; with a key named, the usual verdicts.
    for (const file of [genuineFile, forgedFile]) {
      const demanded = await runLatch(['evidence', 'verify', file, '--require-key', '--json'], offline);
      assert.equal(demanded.code, EXIT.keyNotNamed, demanded.stdout);
      assert.equal(JSON.parse(demanded.stdout).ok, false);
      assert.match(JSON.parse(demanded.stdout).problem, /no device key was named/);
      const spoken = await runLatch(['evidence', 'verify', file, '--require-key'], offline);
      assert.equal(spoken.code, EXIT.keyNotNamed);
      assert.match(spoken.stderr, /not checked: --require-key was given but no device key was named/);
    }
    assert.equal((await runLatch(['evidence', 'verify', genuineFile, '--require-key', '--key-id', key.keyId, '--json'], offline)).code, EXIT.ok);
    assert.equal((await runLatch(['evidence', 'verify', forgedFile, '--require-key', '--jwks', jwksFile], offline)).code, EXIT.verifyFailed);
    writeFileSync(jwksFile, '{"keys":[]}');
    assert.equal((await runLatch(['evidence', 'verify', genuineFile, '--jwks', jwksFile], offline)).code, 2);
  });
});
