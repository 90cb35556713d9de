/**
 * The separate-user setup, lived in (docs/separate-user.md, docs/decisions.md §30), with three real
 * OS users: the service user the daemon drops to, the owner, and an agent with an account of its
 * own. Root starts the daemon with --user, which pins its key and address where only root can
 * write; the owner's account then runs its whole day over loopback with the passphrase, one
 * session per command; an agent running as the owner that rewrites every file in the owner's
 * ~/.latch gets no passphrase, session, other agent's token or signature; and the root install
 * refuses a symlinked ~/.latch. These tests need root (CI runs as root); elsewhere they are
 * skipped, saying why. User names start with l36 so parallel branches do not collide.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import http from 'node:http';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { toBase64Url } from '../../src/crypto/base64url.js';
import { keyIdOf } from '../../src/crypto/jwk.js';
import { SYSTEM_PIN_ENV, writeSystemPin } from '../../src/datadir/system-pin.js';
import { SYSTEM_UNIT_ENV, systemdSystemUnit } from '../../src/service/system-service-files.js';
import { keyProofMessage } from '../../src/http/daemon-proof.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/create-sandbox.js';
import { account, createUser, LATCH, REAL_USERS_SKIP, removeUser, runAs, runProgramAs, type Account } from '../support/os-users.js';
import { JsonClient } from '../support/stack.js';
import { TmuxPane } from '../cli/tmux-pane.js';

const PASSPHRASE = 'the owner lives here';
const suffix = randomBytes(3).toString('hex');
const SERVICE = `l36svc${suffix}`;
const OWNER = `l36own${suffix}`;
const AGENT = `l36agt${suffix}`;
const POLICY = { v: 1, default: 'allow', rules: [{ id: 'large', min_amount: '50.00', decision: 'ask' }] };

/** Every file under dir, for "nothing here holds the token". */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : entry.isFile() ? [full] : [];
  });
}

describe('the separate-user setup, lived in, with real users', { skip: REAL_USERS_SKIP }, () => {
  let root: string;
  let serviceHome: string;
  let ownerHome: string;
  let agentHome: string;
  let pinFile: string;
  let sandbox: Sandbox;
  let cardId: string;
  let daemon: ChildProcess | undefined;
  let service: Account;
  let owner: Account;
  let agent: Account;
  let ownerEnv: Record<string, string>;
  let agentEnv: Record<string, string>;
  // The day's state, carried from one test to the next.
  let helperToken = '';
  let approvalId = '';
  let policyId = '';

  const asOwner = (args: string[], input = `${PASSPHRASE}\n`) => runAs(owner, args, ownerEnv, input);

  before(async () => {
    service = createUser(SERVICE);
    owner = createUser(OWNER);
    agent = createUser(AGENT);
    root = mkdtempSync(path.join(tmpdir(), 'latch-l36-day-'));
    // Others may pass through to their own directories, and see nothing else.
    chmodSync(root, 0o711);
    serviceHome = path.join(root, 'service-data');
    ownerHome = path.join(root, 'owner');
    agentHome = path.join(root, 'agent');
    for (const [dir, who] of [[ownerHome, owner], [agentHome, agent]] as const) {
      mkdirSync(dir, { mode: 0o700 });
      chownSync(dir, who.uid, who.gid);
    }
    // Root's pin goes where /etc/latch would be: a root-owned directory (LATCH_SYSTEM_PIN, tests only).
    pinFile = path.join(root, 'etc-latch', 'daemon.json');
    // Neither the owner nor the agent names the daemon's address: root's pin does.
    ownerEnv = { HOME: ownerHome, [SYSTEM_PIN_ENV]: pinFile };
    agentEnv = { HOME: agentHome, [SYSTEM_PIN_ENV]: pinFile };

    sandbox = await createSandbox({ dataDir: path.join(root, 'sandbox'), port: 0 });
    const admin = new JsonClient(sandbox.url, () => sandbox.adminKey);
    const setup = await admin.post('/v1/sandbox/setup-tokens', {});
    assert.equal(setup.status, 201, setup.text);
    const card = await admin.post('/v1/sandbox/cards', { account_id: setup.body.account_id, label: 'Groceries', balance: '500.00', daily_limit: '500.00' });
    assert.equal(card.status, 201, card.text);
    cardId = card.body.card_id;

    mkdirSync(serviceHome, { mode: 0o700 });
    chownSync(serviceHome, service.uid, service.gid);
    const serviceEnv = { LATCH_HOME: serviceHome, HOME: serviceHome };
    const enrolled = await runAs(service, ['setup', '--token', setup.body.setup_token, '--cloud', sandbox.url], serviceEnv);
    assert.equal(enrolled.status, 0, enrolled.stderr);
    const passphrase = await runAs(service, ['approvals', 'passphrase', 'set', '--passphrase-stdin'], serviceEnv, `${PASSPHRASE}\n`);
    assert.equal(passphrase.status, 0, passphrase.stderr);

    daemon = await startDaemon();
  });

  /** startDaemon starts the daemon as root with --user, pinned for the owner and the agent's account. */
  async function startDaemon(): Promise<ChildProcess> {
    const child = spawn(process.execPath, [LATCH, 'daemon', '--user', SERVICE, '--for', `${OWNER},${AGENT}`, '--port-a', '0', '--port-b', '0'], { env: { PATH: process.env['PATH'] ?? '', LATCH_HOME: serviceHome, [SYSTEM_PIN_ENV]: pinFile, NODE_V8_COVERAGE: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`the daemon did not listen within 60 s: ${stderr.slice(-2000)}`)), 60_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('daemon_listening')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the daemon exited with ${code}: ${stderr.slice(-2000)}`));
      });
    });
    return child;
  }

  /** stopDaemon stops the daemon with SIGTERM and waits for it (a deadline, then a failure). */
  async function stopDaemon(): Promise<void> {
    const running = daemon;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the daemon did not stop within 30 s of SIGTERM')), 30_000);
      running.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    running.kill('SIGTERM');
    await exited;
  }

  after(async () => {
    await stopDaemon();
    await sandbox?.close();
    for (const name of [SERVICE, OWNER, AGENT]) removeUser(name);
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });

  test('daemon --user pins the key and the address it really bound, for the accounts --for names, root-owned and read-only to others', () => {
    const file = JSON.parse(readFileSync(pinFile, 'utf8')) as { v: number; daemons: Array<{ key_id: string; url: string; data_dir: string; user: string; accounts: string[] }> };
    assert.equal(file.v, 2);
    assert.equal(file.daemons.length, 1);
    const pin = file.daemons[0] as (typeof file.daemons)[number];
    assert.deepEqual(pin.accounts, [AGENT, OWNER].sort());
    const config = JSON.parse(readFileSync(path.join(serviceHome, 'config.json'), 'utf8')) as { key_id: string };
    assert.equal(pin.key_id, config.key_id);
    assert.match(pin.url, /^http:\/\/127\.0\.0\.1:[0-9]+$/);
    assert.equal(pin.data_dir, serviceHome);
    assert.equal(pin.user, SERVICE);
    const stats = statSync(pinFile);
    assert.equal(stats.uid, 0);
    assert.equal(stats.mode & 0o777, 0o644);
    assert.equal(statSync(path.dirname(pinFile)).uid, 0);
  });

  test("the owner's day from their own account: doctor, policy, agents, an approval, authorizations, evidence, audit, the brake — one passphrase per command", async () => {
    const doctor = await asOwner(['doctor', '--passphrase-stdin']);
    assert.equal(doctor.status, 0, doctor.stdout + doctor.stderr);
    assert.match(doctor.stdout, /separate-user setup/);
    assert.match(doctor.stdout, /proved the pinned key/);
    assert.match(doctor.stdout, new RegExp(`belongs to ${SERVICE}`));
    // Said of the daemon (it has no policy yet), not of the owner's empty folder.
    assert.match(doctor.stdout, /warning +policy +the daemon has no policy\.json: every request is allowed/);

    const policyFile = path.join(ownerHome, 'policy.json');
    writeFileSync(policyFile, JSON.stringify(POLICY));
    chownSync(policyFile, owner.uid, owner.gid);
    const applied = await asOwner(['policy', 'apply', policyFile, '--passphrase-stdin']);
    assert.equal(applied.status, 0, applied.stderr);
    const shown = await asOwner(['policy', 'show', '--json', '--passphrase-stdin']);
    assert.equal(shown.status, 0, shown.stderr);
    assert.equal((JSON.parse(shown.stdout) as { source: string }).source, 'file');

    // Agent tokens go where the agent reads them: printed once, or to the file the owner names.
    const helper = await asOwner(['agent', 'add', 'helper', '--json', '--passphrase-stdin']);
    assert.equal(helper.status, 0, helper.stderr);
    helperToken = (JSON.parse(helper.stdout) as { token: string }).token;
    assert.match(helperToken, /^[A-Za-z0-9_-]{43}$/);
    const shopper = await asOwner(['agent', 'add', 'shopper', '--json', '--passphrase-stdin']);
    assert.equal(shopper.status, 0, shopper.stderr);
    const shopperToken = (JSON.parse(shopper.stdout) as { token: string }).token;
    const kept = path.join(ownerHome, 'kept.token');
    const toFile = await asOwner(['agent', 'add', 'spare', '--token-file', kept, '--passphrase-stdin']);
    assert.equal(toFile.status, 0, toFile.stderr);
    assert.equal(statSync(kept).mode & 0o777, 0o600);
    assert.equal(statSync(kept).uid, owner.uid);
    assert.ok(!existsSync(path.join(ownerHome, '.latch', 'agents')), "no token went into the owner's ~/.latch/agents");
    const listed = await asOwner(['agent', 'list', '--json', '--passphrase-stdin']);
    assert.equal(listed.status, 0, listed.stderr);
    assert.deepEqual((JSON.parse(listed.stdout) as { agents: Array<{ name: string }> }).agents.map((a) => a.name).sort(), ['helper', 'shopper', 'spare']);

    // The agent's own account keeps its token and reaches the daemon through root's pin.
    const saved = await runProgramAs(agent, ['sh', '-c', 'umask 077 && mkdir -p "$HOME/.latch/agents" && cat > "$HOME/.latch/agents/shopper.token"'], agentEnv, `${shopperToken}\n`);
    assert.equal(saved.status, 0, saved.stderr);
    const asked = await runAs(agent, ['authorize', '--agent', 'shopper', '--card', cardId, '--amount', '80.00', '--merchant', 'shop.example.com', '--json'], agentEnv);
    assert.equal(asked.status, 10, asked.stdout + asked.stderr);
    approvalId = (JSON.parse(asked.stdout) as { approval_id: string }).approval_id;

    const pending = await asOwner(['approvals', '--passphrase-stdin']);
    assert.equal(pending.status, 0, pending.stderr);
    assert.ok(pending.stdout.includes(approvalId), pending.stdout);
    const approved = await asOwner(['approve', approvalId, '--passphrase-stdin', '--json']);
    assert.equal(approved.status, 0, approved.stderr);
    const decided = JSON.parse(approved.stdout) as { status: string; authorization: { policy_id: string } };
    assert.equal(decided.status, 'approved');
    policyId = decided.authorization.policy_id;

    const another = await runAs(agent, ['authorize', '--agent', 'shopper', '--card', cardId, '--amount', '90.00', '--merchant', 'shop.example.com', '--json'], agentEnv);
    assert.equal(another.status, 10, another.stdout + another.stderr);
    const denied = await asOwner(['deny', (JSON.parse(another.stdout) as { approval_id: string }).approval_id, '--reason', 'not today', '--json', '--passphrase-stdin']);
    assert.equal(denied.status, 0, denied.stderr);
    assert.equal((JSON.parse(denied.stdout) as { status: string }).status, 'denied');
    const checked = await asOwner(['policy', 'check', '--card', cardId, '--amount', '75.00', '--merchant', 'shop.example.com', '--json', '--passphrase-stdin']);
    assert.equal(checked.status, 0, checked.stderr);
    assert.equal((JSON.parse(checked.stdout) as { decision: string }).decision, 'ask');

    const transactions = await asOwner(['transactions', '--json', '--passphrase-stdin']);
    assert.equal(transactions.status, 0, transactions.stderr);
    const evidence = await asOwner(['evidence', policyId, '--passphrase-stdin']);
    assert.equal(evidence.status, 0, evidence.stderr);
    assert.ok(evidence.stdout.includes(policyId));
    const revoked = await asOwner(['revoke', policyId, '--passphrase-stdin', '--json']);
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.equal((JSON.parse(revoked.stdout) as { status: string }).status, 'revoked');

    // The audit is the daemon's, not the owner's empty folder.
    const audit = await asOwner(['audit', '--passphrase-stdin']);
    assert.equal(audit.status, 0, audit.stderr);
    assert.doesNotMatch(audit.stdout, /no signatures recorded yet/);
    assert.ok(audit.stdout.includes(policyId), audit.stdout);
    const verified = await asOwner(['audit', 'verify', '--passphrase-stdin']);
    assert.equal(verified.status, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /hash chain intact/);
    // --follow watches the file, which only the daemon's user reads: refused, saying what to run.
    const follow = await asOwner(['audit', '--follow', '--passphrase-stdin']);
    assert.equal(follow.status, 2, follow.stderr);
    assert.match(follow.stderr, /only the daemon's user reads it/);

    const paused = await asOwner(['pause', '--reason', 'lunch', '--passphrase-stdin']);
    assert.equal(paused.status, 0, paused.stderr);
    const resumed = await asOwner(['resume', '--passphrase-stdin']);
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.match(resumed.stdout, /Signing resumed/);
    const directory = await asOwner(['identity', 'directory', '--json'], '');
    assert.equal(directory.status, 0, directory.stderr);
    const published = (JSON.parse((JSON.parse(directory.stdout) as { document: string }).document) as { keys: Array<Record<string, unknown>> }).keys;
    assert.ok(Array.isArray(published), 'the daemon\'s key directory');
    // One key by name is the daemon's too (GET /web-bot-auth/keys/:name, the owner's session): the
    // same public JWK the directory lists, never the secret half.
    for (const holder of ['helper', 'owner']) {
      const shown = await asOwner(['identity', 'show', holder, '--json', '--passphrase-stdin']);
      assert.equal(shown.status, 0, shown.stderr);
      const key = JSON.parse(shown.stdout) as { name: string; key_id: string; jwk: Record<string, unknown> };
      assert.equal(key.name, holder);
      assert.equal(key.jwk['kid'], key.key_id);
      assert.equal(key.jwk['d'], undefined, 'no secret half');
      assert.deepEqual(published.find((entry) => entry['kid'] === key.key_id), key.jwk, `${holder}'s key is the one the daemon publishes`);
    }
    const unknownAgent = await asOwner(['identity', 'show', 'nobody', '--passphrase-stdin']);
    assert.equal(unknownAgent.status, 7, unknownAgent.stderr);
    assert.match(unknownAgent.stderr, /no agent of that name/);
    assert.ok(!existsSync(path.join(ownerHome, '.latch', 'agents')), 'no key was made in the owner\'s folder');
    const login = await asOwner(['console', '--no-open', '--passphrase-stdin']);
    assert.equal(login.status, 0, login.stderr);

    const rotated = await asOwner(['agent', 'rotate', 'spare', '--json', '--passphrase-stdin']);
    assert.equal(rotated.status, 0, rotated.stderr);
    assert.match((JSON.parse(rotated.stdout) as { token: string }).token, /^[A-Za-z0-9_-]{43}$/);
    const removed = await asOwner(['agent', 'remove', 'spare', '--passphrase-stdin']);
    assert.equal(removed.status, 0, removed.stderr);

    // What would write the owner's unused folder says where to do it instead.
    const passphraseHere = await asOwner(['approvals', 'passphrase', 'set', '--passphrase-stdin']);
    assert.equal(passphraseHere.status, 2, passphraseHere.stderr);
    assert.match(passphraseHere.stderr, new RegExp(`sudo -u ${SERVICE} env LATCH_HOME=${serviceHome}`));
    for (const args of [['setup', '--token', 'st_x'], ['policy', 'init'], ['token', 'rotate']]) {
      const refused = await asOwner(args, '');
      assert.equal(refused.status, 2, `${args.join(' ')}: ${refused.stderr}`);
      assert.match(refused.stderr, /which the daemon does not use/);
    }
    assert.ok(!existsSync(path.join(ownerHome, '.latch', 'config.json')), 'no second device was enrolled in the owner\'s folder');
    // Without the passphrase there is nothing to call with: the command says how to give it.
    const noPassphrase = await asOwner(['approvals'], '');
    assert.notEqual(noPassphrase.status, 0);
    assert.match(noPassphrase.stderr, /--passphrase-stdin/);
  });

  test("an agent running as the owner rewrites every file in the owner's ~/.latch and runs its own daemon: no passphrase, no session, no other agent's token, no signature", async () => {
    // The fake daemon's own key (node:crypto's Ed25519): it proves this key, never the pinned one.
    const pair = generateKeyPairSync('ed25519');
    const fakePublicKey = new Uint8Array(Buffer.from((pair.publicKey.export({ format: 'jwk' }) as { x: string }).x, 'base64url'));
    let seen = '';
    let fakePort = 0;
    const fake = http.createServer((request, response) => {
      seen += `${request.method} ${request.url}\n${JSON.stringify(request.headers)}\n`;
      request.on('data', (chunk: Buffer) => (seen += chunk.toString()));
      request.on('end', () => {
        const challenge = request.headers['latch-challenge'];
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (typeof challenge === 'string') {
          const signature = new Uint8Array(sign(null, keyProofMessage(challenge, `127.0.0.1:${fakePort}`), pair.privateKey));
          headers['latch-key-proof'] = `${keyIdOf(fakePublicKey)}.${toBase64Url(fakePublicKey)}.${toBase64Url(signature)}`;
        }
        response.writeHead(200, headers);
        response.end(JSON.stringify({ status: 'ok', version: '1', uptime_seconds: 1, signing_key: null, owner_presence: 'passphrase', approvals: [], has_more: false }));
      });
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    fakePort = (fake.address() as { port: number }).port;
    try {
      // As the owner's uid: every file the client could read in ~/.latch points at the fake.
      const fakePublic = toBase64Url(fakePublicKey);
      const fakeKeyId = keyIdOf(fakePublicKey);
      const script = [
        'umask 077',
        'mkdir -p "$HOME/.latch/agents"',
        `printf '%s\\n' '{"v":1,"key_id":"${fakeKeyId}","public_key":"${fakePublic}"}' > "$HOME/.latch/daemon_key.pub"`,
        `printf '%s\\n' '{"v":1,"pid":1,"port_a":${fakePort},"port_b":null}' > "$HOME/.latch/listen.json"`,
        `printf '%s\\n' '{"key_id":"${fakeKeyId}"}' > "$HOME/.latch/config.json"`,
        `printf '%s\\n' '${'A'.repeat(43)}' > "$HOME/.latch/daemon_token"`,
        `printf '%s\\n' '${'B'.repeat(43)}' > "$HOME/.latch/agents/helper.token"`,
      ].join(' && ');
      const planted = await runProgramAs(owner, ['sh', '-c', script], ownerEnv);
      assert.equal(planted.status, 0, planted.stderr);

      // The owner's next command still goes to the daemon root pinned; the fake sees nothing.
      const approvals = await asOwner(['approvals', '--all', '--json', '--passphrase-stdin']);
      assert.equal(approvals.status, 0, approvals.stderr);
      assert.ok(approvals.stdout.includes(approvalId), 'the real daemon answered');
      const agentAdd = await asOwner(['agent', 'add', 'late', '--json', '--passphrase-stdin']);
      assert.equal(agentAdd.status, 0, agentAdd.stderr);
      assert.ok(!seen.includes(PASSPHRASE), 'the passphrase never reached the fake daemon');
      assert.equal(seen, '', 'the fake daemon was never even asked');

      // Without the passphrase, the agent as the owner gets no session and no signature: the
      // planted token is nobody's, and the service's files are closed to it.
      const attack = `
        const base = ${JSON.stringify((JSON.parse(readFileSync(pinFile, 'utf8')) as { daemons: Array<{ url: string }> }).daemons[0]?.url)};
        const results = {};
        const session = await fetch(base + '/owner/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ passphrase: 'a guess' }) });
        results.session = session.status;
        for (const token of ['${'A'.repeat(43)}', '${'B'.repeat(43)}']) {
          const signed = await fetch(base + '/sign-policy-window', { method: 'POST', headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' }, body: JSON.stringify({ amount: '10.00', merchant_name: 'evil.example.com' }) });
          results['sign_' + token[0]] = signed.status;
        }
        process.stdout.write(JSON.stringify(results));`;
      const tried = await runProgramAs(owner, [process.execPath, '--input-type=module', '-e', attack], ownerEnv);
      assert.equal(tried.status, 0, tried.stderr);
      assert.deepEqual(JSON.parse(tried.stdout), { session: 401, sign_A: 401, sign_B: 401 });
      for (const file of ['daemon_token', 'device.key', 'approval_passphrase', path.join('agents', 'helper.token')]) {
        const read = await runProgramAs(owner, ['cat', path.join(serviceHome, file)], ownerEnv);
        assert.notEqual(read.status, 0, `the owner read ${file}`);
      }
      // The helper's token was printed once and is in no file the owner's processes can read.
      for (const file of filesUnder(ownerHome)) assert.ok(!readFileSync(file, 'utf8').includes(helperToken), `${file} holds the helper's token`);
    } finally {
      await new Promise((resolve) => fake.close(resolve));
    }
  });

  test('on the owner\'s terminal: approvals watch asks the passphrase once at the start and approves with it; approve asks it, shows the request, then only the yes', async () => {
    const ask = async (amount: string) => {
      const asked = await runAs(agent, ['authorize', '--agent', 'shopper', '--card', cardId, '--amount', amount, '--merchant', 'shop.example.com', '--json'], agentEnv);
      assert.equal(asked.status, 10, asked.stdout + asked.stderr);
      return (JSON.parse(asked.stdout) as { approval_id: string }).approval_id;
    };
    // The owner's own terminal: tmux's pty, the command dropped to the owner's uid and groups.
    const asOwnerOnTty = (args: string) =>
      `setpriv --reuid=${owner.uid} --regid=${owner.gid} --clear-groups env -i PATH=${process.env['PATH'] ?? '/usr/bin:/bin'} HOME=${ownerHome} ${SYSTEM_PIN_ENV}=${pinFile} NODE_V8_COVERAGE= ${process.execPath} ${LATCH} ${args}`;
    const watched = await ask('60.00');
    const pane = new TmuxPane(`l36watch${suffix}`);
    try {
      pane.start(asOwnerOnTty('approvals watch'), ownerHome);
      await pane.waitFor(/Owner passphrase \(not shown\): $/m);
      pane.type(PASSPHRASE);
      pane.press('Enter');
      await pane.waitFor(new RegExp(`${watched}[\\s\\S]*Approve, deny or skip\\?`));
      pane.type('a');
      await pane.waitFor(new RegExp(`Approved ${watched}`));
      pane.press('C-c');
      const screen = await pane.waitFor(/EXIT=0/);
      assert.ok(!screen.includes(PASSPHRASE), 'the passphrase was not echoed');
      assert.equal((screen.match(/Owner passphrase/g) ?? []).length, 1, 'asked once');
    } finally {
      pane.close();
    }
    const single = await ask('70.00');
    const approvePane = new TmuxPane(`l36approve${suffix}`);
    try {
      approvePane.start(asOwnerOnTty(`approve ${single}`), ownerHome);
      await approvePane.waitFor(/Owner passphrase \(not shown\): $/m);
      approvePane.type(PASSPHRASE);
      approvePane.press('Enter');
      await approvePane.waitFor(/Approve exactly this request\? \[y\/N\]/);
      approvePane.type('y');
      const screen = await approvePane.waitFor(/EXIT=0/);
      assert.match(screen, new RegExp(`Approved ${single}`));
      assert.ok(!screen.includes(PASSPHRASE));
    } finally {
      approvePane.close();
    }
  });

  test("a restart keeps the agent token handed to the agent's own account: the agent authorizes after it with the same token (issue 43 item 5)", async () => {
    const tokenFile = path.join(agentHome, '.latch', 'agents', 'shopper.token');
    const handedOut = readFileSync(tokenFile, 'utf8');
    const pinBefore = readFileSync(pinFile, 'utf8');
    await stopDaemon();
    daemon = await startDaemon();
    assert.notEqual(readFileSync(pinFile, 'utf8'), pinBefore, 'the restart pinned the new address');
    const asked = await runAs(agent, ['authorize', '--agent', 'shopper', '--card', cardId, '--amount', '5.00', '--merchant', 'shop.example.com', '--json'], agentEnv);
    assert.equal(asked.status, 0, asked.stdout + asked.stderr);
    assert.match((JSON.parse(asked.stdout) as { policy_id: string }).policy_id, /^pw_/);
    assert.equal(readFileSync(tokenFile, 'utf8'), handedOut, "nothing was handed out again");
    const listed = await asOwner(['agent', 'list', '--json', '--passphrase-stdin']);
    assert.equal(listed.status, 0, listed.stderr);
  });

  test('the root install refuses a symlinked ~/.latch, and changes nothing through it', async () => {
    // ~owner/.latch points at a root-owned directory: the install must neither follow nor chown it.
    const target = path.join(root, 'root-owned');
    mkdirSync(target, { mode: 0o755 });
    const linkHome = path.join(root, 'linked-owner');
    mkdirSync(linkHome, { mode: 0o700 });
    chownSync(linkHome, owner.uid, owner.gid);
    symlinkSync(target, path.join(linkHome, '.latch'));
    const usermod = await runProgramAs({ name: 'root', uid: 0, gid: 0 }, ['usermod', '--home', linkHome, OWNER], {});
    assert.equal(usermod.status, 0, usermod.stderr);
    const install = await runProgramAs({ name: 'root', uid: 0, gid: 0 }, [process.execPath, LATCH, 'service', 'install', '--system', '--user', SERVICE, '--dry-run', '--program', process.execPath], { SUDO_USER: OWNER, [SYSTEM_PIN_ENV]: pinFile });
    assert.equal(install.status, 2, install.stdout + install.stderr);
    assert.match(install.stderr, /\.latch is a symbolic link; Latch refuses it/);
    assert.equal(lstatSync(target).uid, 0, 'the root-owned directory is still root\'s');
    assert.deepEqual(readdirSync(target), []);
    assert.equal(account(OWNER).uid, owner.uid);
  });
  test('service uninstall --system takes it down: the unit and the pin, then with --purge the user and its data (issue 44 item 2)', async () => {
    await stopDaemon();
    const unitFile = path.join(root, 'latch.service');
    writeFileSync(unitFile, systemdSystemUnit({ command: { program: '/usr/local/bin/latch', args: [] }, user: SERVICE, home: serviceHome }), { mode: 0o644 });
    const asRoot = (args: string[]) => runProgramAs({ name: 'root', uid: 0, gid: 0 }, [process.execPath, LATCH, ...args], { [SYSTEM_PIN_ENV]: pinFile, [SYSTEM_UNIT_ENV]: unitFile });
    const dry = await asRoot(['service', 'uninstall', '--system', '--user', SERVICE, '--dry-run']);
    assert.equal(dry.status, 0, dry.stdout + dry.stderr);
    assert.match(dry.stdout, new RegExp(`would remove ${unitFile}`));
    assert.match(dry.stdout, /Dry run: nothing was changed/);
    assert.ok(existsSync(unitFile) && existsSync(pinFile));

    // No terminal and no --purge: the unit and the pin go, the user and its data stay, and it says how.
    const kept = await asRoot(['service', 'uninstall', '--system', '--user', SERVICE]);
    assert.equal(kept.status, 0, kept.stdout + kept.stderr);
    assert.ok(!existsSync(unitFile), 'the unit is gone');
    assert.ok(!existsSync(pinFile), 'the pin is gone (no daemon left in it)');
    assert.ok(existsSync(path.join(serviceHome, 'device.key')), 'the data stays');
    assert.equal(account(SERVICE).name, SERVICE);
    assert.match(kept.stdout, new RegExp(`Kept the user ${SERVICE} and its data in ${serviceHome}; to remove them: sudo latch service uninstall --system --user ${SERVICE} --purge`));
    // The owner's commands are no longer redirected: no pin names them.
    const after = await asOwner(['doctor', '--json', '--passphrase-stdin']);
    assert.doesNotMatch(after.stdout, /separate-user/);

    // On a terminal it asks; "y" removes the user and its data (the pin written again first, as a restart would).
    writeSystemPin({ [SYSTEM_PIN_ENV]: pinFile }, { key_id: 'k'.repeat(43), data_dir: serviceHome, user: SERVICE, accounts: [OWNER] });
    const pane = new TmuxPane(`l36uninstall${suffix}`);
    try {
      pane.start(`env -i PATH=${process.env['PATH'] ?? '/usr/bin:/bin'} ${SYSTEM_PIN_ENV}=${pinFile} ${SYSTEM_UNIT_ENV}=${unitFile} NODE_V8_COVERAGE= ${process.execPath} ${LATCH} service uninstall --system --user ${SERVICE}`, root);
      await pane.waitFor(new RegExp(`Also remove the user ${SERVICE} and ${serviceHome.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(its device key, journals and audit log; this cannot be undone\\)\\? \\[y/N\\]`));
      pane.type('y');
      const screen = await pane.waitFor(/EXIT=0/);
      assert.match(screen, new RegExp(`Removed the user ${SERVICE} and `));
    } finally {
      pane.close();
    }
    assert.ok(!existsSync(serviceHome), 'the data directory is gone');
    assert.equal(spawnSync('getent', ['passwd', SERVICE]).status, 2, 'the user is gone');
    assert.ok(!existsSync(pinFile));

    // --purge removes them without asking (a second service user of this test's own).
    const spare = createUser(`l36pur${suffix}`);
    const spareHome = path.join(root, 'spare-data');
    try {
      mkdirSync(spareHome, { mode: 0o700 });
      chownSync(spareHome, spare.uid, spare.gid);
      writeSystemPin({ [SYSTEM_PIN_ENV]: pinFile }, { key_id: 'k'.repeat(43), data_dir: spareHome, user: spare.name, accounts: [OWNER] });
      const purged = await asRoot(['service', 'uninstall', '--system', '--user', spare.name, '--purge']);
      assert.equal(purged.status, 0, purged.stdout + purged.stderr);
      assert.ok(!existsSync(spareHome), 'the data directory is gone');
      assert.equal(spawnSync('getent', ['passwd', spare.name]).status, 2, 'the user is gone');
      assert.ok(!existsSync(pinFile));
    } finally {
      removeUser(spare.name);
    }
    const again = await asRoot(['service', 'uninstall', '--system', '--user', SERVICE]);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /Nothing to remove/);
  });
});
