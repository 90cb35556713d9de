/**
 * owner-presence.md against the real daemon and sandbox: the bypass of issue 23 (a process that
 * reads daemon_token signs with a primitive and registers through the /v1 proxy) is closed — the
 * primitives go through the pipeline (policy, budgets, ledger, listing, cancel) and the proxy
 * forwards only a window the daemon holds; with a passphrase set the token alone is refused on
 * every route that could move money, a session or the passphrase passes, and a restart ends every
 * session. The policy and agents are managed through the API.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../../src/cli/main.js';
import { writePinnedKey } from '../../src/client/pinned-key.js';
import { buildWindowPayload } from '../../src/core/window-payload.js';
import { createDaemon } from '../../src/daemon/create-daemon.js';
import { clearApprovalPassphrase, setApprovalPassphrase } from '../../src/datadir/approval-passphrase.js';
import { loadConfig } from '../../src/datadir/config.js';
import { loadDeviceKey } from '../../src/signer/device-key.js';
import { readToken } from '../../src/datadir/token.js';
import { assertError } from '../support/e2e-assert.js';
import { JsonClient, startStack, type Stack } from '../support/stack.js';
import { signJwsCompact, secretOf } from '../support/raw-signing.js';

const PASSPHRASE = 'the owner is right here';
let stack: Stack;
let card: string;
// The restart test moves the daemon to a new port; later tests follow it.
let portA = 0;
const currentPort = () => portA;
before(async () => {
  stack = await startStack();
  card = stack.cards[0].card_id;
  portA = stack.portA;
});
after(() => stack.close());

const auditLines = () => readFileSync(path.join(stack.home, 'audit.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
const putPolicy = (policy: unknown, headers: Record<string, string> = {}) => stack.a.request('PUT', '/policy', policy, headers);

describe('nothing signs around the ledger (owner-presence §3), with no presence factor', () => {
  test('no passphrase: /health says owner_presence none, and the owner token alone may sign with a primitive, as before', async () => {
    const health = await stack.a.get('/health');
    assert.equal(health.body.owner_presence, 'none');
    const signed = await stack.a.post('/sign-card-policy-window', { card_id: card, amount: '0.10', merchant_name: 'none.example.com' });
    assert.equal(signed.status, 200, signed.text);
  });

  test('the bypass of issue 23 is refused: a deny policy is final for the primitives, and a primitive window counts toward the budget', async () => {
    assert.equal((await putPolicy({ v: 1, default: 'deny' })).status, 200);
    const denied = await stack.a.post('/sign-card-policy-window', { card_id: card, amount: '40.00', merchant_name: 'bypass.example.com' });
    assertError(denied, 403, 'policy_denied');
    assert.equal(denied.body.error.rule, 'default');
    const deniedAccount = await stack.a.post('/sign-policy-window', { amount: '40.00', merchant_name: 'bypass.example.com' });
    assertError(deniedAccount, 403, 'policy_denied');

    const budget = { v: 1, default: 'allow', budgets: [{ id: 'daily', per: 'day', limit: '1.00', over: 'deny' }] };
    assert.equal((await putPolicy(budget)).status, 200);
    // The primitive of the first test (0.10) already counts: it is in the ledger as the owner's.
    const big = await stack.a.post('/sign-card-policy-window', { card_id: card, amount: '40.00', merchant_name: 'bypass.example.com' });
    assertError(big, 403, 'policy_denied');
    assert.equal(big.body.error.rule, 'daily');
    const small = await stack.a.post('/sign-card-policy-window', { card_id: card, amount: '0.60', merchant_name: 'shop.example.com' });
    assert.equal(small.status, 200, small.text);
    const check = await stack.a.post('/policy/check', { card_id: card, amount: '0.30', merchant_name: 'shop.example.com' });
    assert.equal(check.body.budgets[0].exposure, '0.70', 'both primitive windows count toward the budget');
    assertError(await stack.a.post('/authorize', { card_id: card, amount: '0.40', merchant_name: 'shop.example.com' }), 403, 'policy_denied');
    const lines = auditLines().filter((line) => line['policy_id'] === small.body.policy_window.policy_id);
    assert.deepEqual(lines.map((line) => [line['operation'], line['agent']]), [['sign_card_policy_window', 'owner']]);
    assert.equal((await stack.a.request('PUT', '/policy', { v: 1, default: 'allow' })).status, 200);
  });

  test('the proxy registers a held window once; a window signed elsewhere with the key, or any other window change, is 403 proxy_route_not_allowed', async () => {
    // A stolen copy of the key signs a perfectly valid window: the proxy does not send it.
    const key = loadDeviceKey(stack.home);
    assert.ok(key !== undefined);
    const deviceId = loadConfig(stack.home).device_id as string;
    const now = Math.floor(Date.now() / 1000);
    const foreign = signJwsCompact(
      buildWindowPayload({ cardId: card, merchant: 'bypass.example.com', amountMinor: 4000, currency: 'USD', authorizationType: 'exact', kind: 'one_time', notBefore: now, notAfter: now + 600 }, deviceId, now),
      key.keyId,
      secretOf(key),
    );
    const refused = await stack.a.post('/v1/authorizations', { jws: foreign });
    assertError(refused, 403, 'proxy_route_not_allowed');
    assert.match(refused.body.error.message, /sign-card-policy-window/);
    assertError(await stack.a.post('/v1/policy-windows', { jws: foreign }), 403, 'proxy_route_not_allowed');
    assertError(await stack.a.request('PATCH', '/v1/authorizations/pw_abc', {}), 403, 'proxy_route_not_allowed');
    assertError(await stack.a.post('/v1/authorizations?x=1', { jws: foreign }), 403, 'proxy_route_not_allowed');
    const charge = await stack.charge(card, 'bypass.example.com', '40.00');
    assert.notEqual(charge.body.decision, 'approved', 'nothing was registered, so the 40.00 charge is declined');

    const signed = await stack.a.post('/sign-card-policy-window', { card_id: card, amount: '2.00', merchant_name: 'held.example.com' });
    const policyId = signed.body.policy_window.policy_id as string;
    const listedHeld = await stack.a.get('/authorizations?agent=owner');
    assert.equal(listedHeld.status, 200, listedHeld.text);
    assert.ok(listedHeld.body.authorizations.some((a: { policy_id: string; agent: string; status: string }) => a.policy_id === policyId && a.agent === 'owner' && a.status === 'active'), 'held and listed before registration');
    const first = await stack.a.post('/v1/authorizations', { jws: signed.body.jws });
    assert.equal(first.status, 201, first.text);
    assertError(await stack.a.post('/v1/authorizations', { jws: signed.body.jws }), 403, 'proxy_route_not_allowed');
    const listed = await stack.a.get(`/authorizations/${policyId}`);
    assert.equal(listed.body.agent, 'owner');
    const cancelled = await stack.a.post(`/authorizations/${policyId}/cancel`, {});
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 'revoked');

    // A revocation through the proxy frees the window's budget at once (owner-presence §3); 0.70
    // of earlier primitive windows still counts today.
    assert.equal((await putPolicy({ v: 1, default: 'allow', budgets: [{ id: 'small', per: 'day', limit: '4.00', over: 'deny' }] })).status, 200);
    const revocable = await stack.a.post('/sign-card-policy-window', { card_id: card, amount: '2.50', merchant_name: 'revoke.example.com' });
    assert.equal(revocable.status, 200, revocable.text);
    const revocableId = revocable.body.policy_window.policy_id as string;
    assert.equal((await stack.a.post('/v1/authorizations', { jws: revocable.body.jws })).status, 201);
    assertError(await stack.a.post('/authorize', { card_id: card, amount: '1.00', merchant_name: 'shop.example.com' }), 403, 'policy_denied');
    const revocation = await stack.a.post('/sign-revocation', { policy_id: revocableId });
    const revokedAnswer = await stack.a.post(`/v1/authorizations/${revocableId}/revoke`, { jws: revocation.body.jws });
    assert.equal(revokedAnswer.status, 200, revokedAnswer.text);
    const after = await stack.a.post('/authorize', { card_id: card, amount: '1.00', merchant_name: 'shop.example.com' });
    assert.equal(after.status, 200, `the budget was freed by the revocation: ${after.text}`);
    assert.equal((await putPolicy({ v: 1, default: 'allow' })).status, 200);

    // A held window the owner cancels is never sent.
    const another = await stack.a.post('/sign-card-policy-window', { card_id: card, amount: '1.00', merchant_name: 'held.example.com' });
    const anotherId = another.body.policy_window.policy_id as string;
    const cancelHeld = await stack.a.post(`/authorizations/${anotherId}/cancel`, {});
    assert.equal(cancelHeld.body.status, 'revoked', cancelHeld.text);
    assertError(await stack.a.post('/v1/authorizations', { jws: another.body.jws }), 403, 'proxy_route_not_allowed');
  });
});

describe('latch doctor reports the owner protections (owner-presence §2, §5)', () => {
  test('the pinned key id, presence, a warning when agents exist without a passphrase, and exit 3 when a file is readable by others', async () => {
    const { runLatch } = await import('../support/stack.js');
    const env = { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${currentPort()}` };
    const added = await runLatch(['agent', 'add', 'doctor-agent'], env);
    assert.equal(added.code, 0, added.stderr);
    const report = await runLatch(['doctor', '--json'], env);
    const parsed = JSON.parse(report.stdout) as { security: { pinned_key: { key_id: string; source: string }; owner_presence: string; data_directory: string; warnings: string[] } };
    assert.equal(parsed.security.pinned_key.key_id, loadConfig(stack.home).key_id);
    assert.equal(parsed.security.pinned_key.source, 'config.json');
    assert.equal(parsed.security.owner_presence, 'none');
    assert.equal(parsed.security.data_directory, 'private');
    assert.ok(parsed.security.warnings.some((warning) => /no owner passphrase/.test(warning)), JSON.stringify(parsed.security.warnings));
    assert.equal(report.code, 0, report.stderr);

    const file = path.join(stack.home, 'agents', 'doctor-agent.json');
    chmodSync(file, 0o644);
    try {
      const exposed = await runLatch(['doctor'], env);
      assert.equal(exposed.code, 3, exposed.stdout);
      assert.match(exposed.stdout, /EXPOSED/);
      assert.ok(exposed.stdout.includes('doctor-agent.json'));
    } finally {
      chmodSync(file, 0o600);
    }
  });
});

describe('the CLI from an owner account that cannot read the daemon files (owner-presence §4, §5)', () => {
  before(() => setApprovalPassphrase(stack.home, PASSPHRASE));
  after(() => clearApprovalPassphrase(stack.home));

  /** runOwnerCli runs the CLI with the given LATCH_HOME and the passphrase on standard input. */
  const runOwnerCli = async (home: string, args: string[], input: string) => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    stdin.end(input);
    const code = await runCli(args, { stdin: stdin as never, stdout, stderr, env: { LATCH_HOME: home, LATCH_URL: `http://127.0.0.1:${currentPort()}` } });
    return { code, stdout: out, stderr: err };
  };

  test('latch agent add and latch policy apply go through the API with a session; the token lands in the owner\'s own 0600 file', async () => {
    const own = mkdtempSync(path.join(tmpdir(), 'latch-owner-cli-'));
    chmodSync(own, 0o700);
    try {
      const health = await fetch(`http://127.0.0.1:${currentPort()}/health`);
      writePinnedKey(own, Buffer.from(((await health.json()) as { signing_key: { public_key: string } }).signing_key.public_key, 'base64url'));
      const added = await runOwnerCli(own, ['agent', 'add', 'cli-helper', '--passphrase-stdin'], `${PASSPHRASE}\n`);
      assert.equal(added.code, 0, added.stderr);
      const file = path.join(own, 'agents', 'cli-helper.token');
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.ok(!added.stdout.includes(readFileSync(file, 'utf8')), 'the token is not printed');
      const agent = new JsonClient(`http://127.0.0.1:${currentPort()}`, () => readFileSync(file, 'utf8').trim());
      assert.equal((await agent.get('/cards')).status, 200, 'the agent token from the owner\'s file works');

      const policyFile = path.join(own, 'new-policy.json');
      writeFileSync(policyFile, '{"v":1,"default":"allow","new_merchant":"allow"}');
      const applied = await runOwnerCli(own, ['policy', 'apply', policyFile, '--passphrase-stdin'], `${PASSPHRASE}\n`);
      assert.equal(applied.code, 0, applied.stderr);
      assert.equal(readFileSync(path.join(stack.home, 'policy.json'), 'utf8'), '{"v":1,"default":"allow","new_merchant":"allow"}');

      const wrong = await runOwnerCli(own, ['policy', 'apply', policyFile, '--passphrase-stdin'], 'not the passphrase\n');
      assert.notEqual(wrong.code, 0);
      assert.match(wrong.stdout + wrong.stderr, /invalid_passphrase|wrong/i);
      assert.ok(!(wrong.stdout + wrong.stderr).includes('not the passphrase'));
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});

describe('with the owner passphrase set (owner-presence §1, §2, §4)', () => {
  before(() => setApprovalPassphrase(stack.home, PASSPHRASE));
  after(() => clearApprovalPassphrase(stack.home));

  const openSession = async (client: JsonClient = stack.a) => {
    const answer = await new JsonClient(client.baseUrl, () => undefined).post('/owner/sessions', { passphrase: PASSPHRASE });
    assert.equal(answer.status, 201, answer.text);
    return answer.body.token as string;
  };

  test('/health says passphrase; the token alone is refused where money could move and admitted where it only stops', async () => {
    assert.equal((await stack.a.get('/health')).body.owner_presence, 'passphrase');
    assertError(await stack.a.post('/sign-card-policy-window', { card_id: card, amount: '0.10', merchant_name: 'shop.example.com' }), 403, 'owner_presence_required');
    assertError(await stack.a.post('/wallet/allocate', { card_id: card, amount: '1.00' }), 403, 'owner_presence_required');
    assertError(await stack.b.post('/wallet/allocate', { card_id: card, amount: 1 }), 403, 'owner_presence_required');
    assertError(await stack.a.post('/v1/wallet/allocate', { card_id: card, amount: '1.00' }), 403, 'owner_presence_required');
    assertError(await stack.a.post('/agents', { name: 'sneaky' }), 403, 'owner_presence_required');
    assertError(await putPolicy({ v: 1, default: 'allow' }), 403, 'owner_presence_required');
    assert.equal((await stack.a.get('/v1/wallet')).status, 200, 'reads through the proxy stay owner');
    assert.equal((await stack.a.post('/pause', { reason: 'checking' })).status, 200, 'pausing stays owner');
    assertError(await stack.a.post('/resume', {}), 403, 'owner_presence_required');
    const resumed = await stack.a.post('/resume', { passphrase: PASSPHRASE });
    assert.equal(resumed.status, 200, resumed.text);
    assert.equal((await stack.a.get('/health')).body.paused, null);
  });

  test('PUT /policy with Latch-Owner-Passphrase: validated like the file (400, nothing changes), written, audited with both SHA-256', async () => {
    const beforeSha = (await stack.a.get('/policy')).body.sha256 as string;
    const invalid = await putPolicy({ v: 1, default: 'maybe' }, { 'latch-owner-passphrase': PASSPHRASE });
    assertError(invalid, 400, 'policy_invalid', 'default');
    assert.equal((await stack.a.get('/policy')).body.sha256, beforeSha, 'nothing changed');
    assertError(await putPolicy({ v: 1, default: 'allow' }, { 'latch-owner-passphrase': 'a wrong passphrase' }), 401, 'invalid_passphrase');
    // The body is the policy: a `passphrase` member in it is no proof of presence.
    assertError(await putPolicy({ v: 1, default: 'allow', passphrase: PASSPHRASE }), 403, 'owner_presence_required');
    const text = '{"v":1,"default":"allow","new_merchant":"ask"}';
    const changed = await stack.a.request('PUT', '/policy', text, { 'latch-owner-passphrase': PASSPHRASE });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(readFileSync(path.join(stack.home, 'policy.json'), 'utf8'), text, 'the exact bytes are the file');
    const shown = await stack.a.get('/policy');
    assert.equal(shown.body.sha256, changed.body.sha256);
    const line = auditLines().filter((entry) => entry['operation'] === 'policy_changed').at(-1);
    assert.equal(line?.['old_sha256'], beforeSha);
    assert.equal(line?.['new_sha256'], changed.body.sha256);
    assert.ok(!JSON.stringify(auditLines()).includes(PASSPHRASE) && !stack.logs().includes(PASSPHRASE), 'the passphrase is never audited or logged');
    writeFileSync(path.join(stack.home, 'policy.json'), '{"v":1,"default":"allow"}', { mode: 0o600 });
  });

  test('with a session the owner adds, lists, rotates and removes an agent through the API; the token is shown once', async () => {
    const session = await openSession();
    const owner = new JsonClient(stack.a.baseUrl, () => session);
    const added = await owner.post('/agents', { name: 'helper' });
    assert.equal(added.status, 201, added.text);
    assert.deepEqual(Object.keys(added.body).sort(), ['created_at', 'identity_key_id', 'last_used_at', 'name', 'token']);
    const agent = new JsonClient(stack.a.baseUrl, () => added.body.token as string);
    assert.equal((await agent.get('/cards')).status, 200);
    assertError(await owner.post('/agents', { name: 'helper' }), 409, 'agent_exists');
    const listed = await owner.get('/agents');
    assert.equal(listed.body.has_more, false);
    assert.ok(listed.body.agents.some((a: { name: string }) => a.name === 'helper'));
    assert.ok(!listed.text.includes(added.body.token), 'the list never shows a token');
    const rotated = await owner.post('/agents/helper/rotate', {});
    assert.equal(rotated.status, 200, rotated.text);
    assert.notEqual(rotated.body.token, added.body.token);
    assertError(await agent.get('/cards'), 401, 'invalid_bearer_token');
    assert.equal((await owner.request('DELETE', '/agents/helper?revoke=true')).status, 204);
    assertError(await owner.request('DELETE', '/agents/helper'), 404, 'agent_not_found');
    assertError(await new JsonClient(stack.a.baseUrl, () => rotated.body.token as string).get('/cards'), 401, 'invalid_bearer_token');
    assert.ok(!stack.logs().includes(session) && !readFileSync(path.join(stack.home, 'audit.log'), 'utf8').includes(session), 'the session token is never logged or audited');
  });

  test('a restart ends every session (memory only); ending one makes it 401 at once', async () => {
    const session = await openSession();
    const ended = await openSession();
    assert.equal((await new JsonClient(stack.a.baseUrl, () => ended).request('DELETE', '/owner/sessions/current')).status, 204);
    assertError(await new JsonClient(stack.a.baseUrl, () => ended).get('/agents'), 401, 'invalid_bearer_token');
    assert.equal((await new JsonClient(stack.a.baseUrl, () => session).get('/agents')).status, 200);

    await stack.daemon.close({ deadlineMs: 1_000 });
    const restarted = createDaemon({ home: stack.home, portA: 0, portB: 0, env: { LATCH_HOME: stack.home }, logStream: new PassThrough().resume() });
    after(() => restarted.close({ deadlineMs: 1_000 }));
    const ports = await restarted.listen();
    portA = ports.portA as number;
    const base = `http://127.0.0.1:${ports.portA}`;
    assertError(await new JsonClient(base, () => session).get('/agents'), 401, 'invalid_bearer_token');
    assert.equal((await new JsonClient(base, () => readToken(stack.home)).get('/agents')).status, 200, 'the daemon token still works');
  });
});
