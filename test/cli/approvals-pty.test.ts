/**
 * `latch approvals watch` and the no-echo passphrase prompt in a real pseudo-terminal (tmux): the
 * terms on the screen, a keypress per decision, the passphrase never on the screen, and the
 * decisions that reached the daemon.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { clearApprovalPassphrase, readApprovalPassphrase, setApprovalPassphrase, verifyApprovalPassphraseAsync } from '../../src/datadir/approval-passphrase.js';
import { ensureHome } from '../../src/datadir/home.js';
import { ensureToken } from '../../src/datadir/token.js';
import { pendingApproval, startApprovalsStub, type ApprovalsStub } from './approvals-stub-daemon.js';
import { TmuxPane } from './tmux-pane.js';

const REPO = path.resolve(import.meta.dirname, '../..');
let root: string;
let home: string;
let stub: ApprovalsStub;
let pane: TmuxPane | undefined;

before(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'latch-pty-'));
  home = path.join(root, 'home');
  ensureHome(home);
  ensureToken(home);
  stub = await startApprovalsStub(home);
});
afterEach(() => {
  pane?.close();
  pane = undefined;
});
after(async () => {
  await stub.close();
  rmSync(root, { recursive: true, force: true });
});

/** latchIn starts `latch ARGS` in a fresh pty with this test's data directory and daemon. */
function latchIn(name: string, args: string): TmuxPane {
  pane = new TmuxPane(name);
  pane.start(`LATCH_HOME='${home}' LATCH_URL='${stub.url}' node --import tsx src/cli/main.ts ${args}`, REPO);
  return pane;
}

describe('latch approvals watch in a terminal', () => {
  test('shows each new request with its terms; a (wrong then right passphrase, unseen), d with a reason, s; survives a daemon failure; one owner session for approvals only, asked again once it ended, ended at Ctrl-C (exit 0)', async () => {
    const passphrase = 'correct horse battery';
    setApprovalPassphrase(home, passphrase);
    stub.passphrase = passphrase;
    stub.approvals.push(pendingApproval('ap_one'));
    const term = latchIn('watch', 'approvals watch');

    let screen = await term.waitFor(/Approve, deny or skip\? \[a\/d\/s\]/);
    for (const shown of ['ap_one', 'shopper', 'Groceries (card_groceries1)', 'shop.example.com', 'exactly 80.00 USD', 'one_time', '30 minutes from approval', 'large-purchases', 'amount 80.00 USD is above 50.00 USD', '2026-01-01T10:15:00Z']) {
      assert.ok(screen.includes(shown), `the screen shows ${shown}`);
    }

    term.type('a');
    await term.waitFor(/Approval passphrase \(not shown\):/);
    term.type('wrong horse battery');
    term.press('Enter');
    await term.waitFor(/Wrong passphrase; nothing was approved\./);
    assert.equal(stub.decisions.length, 0);
    term.type('a');
    await term.waitFor(/(Approval passphrase \(not shown\):[^]*){2}/);
    term.type(passphrase);
    term.press('Enter');
    screen = await term.waitFor(/Approved ap_one: authorization pw_one created\./);
    assert.ok(!screen.includes('horse'), 'neither passphrase was echoed');
    // The passphrase opened an owner session (docs/decisions.md §21.8); the approval went with it.
    assert.deepEqual(stub.decisions, [{ approvalId: 'ap_one', action: 'approve', body: {} }]);
    assert.deepEqual({ opened: stub.sessions.opened, ended: stub.sessions.ended }, { opened: 1, ended: 0 });
    assert.match(screen, /Owner session open for this watch/);

    stub.approvals.push(pendingApproval('ap_two', { merchant_name: 'gadgets.example.net', amount: '120.00', authorization_type: 'ceiling' }));
    await term.waitFor(/ap_two[^]*up to 120\.00 USD[^]*gadgets\.example\.net[^]*Approve, deny or skip\? \[a\/d\/s\]\s*$/);
    term.type('d');
    await term.waitFor(/Reason \(optional, Enter for none\):/);
    term.type('too expensive');
    term.press('Enter');
    await term.waitFor(/Denied ap_two \(reason: too expensive\)\./);
    assert.deepEqual(stub.decisions[1], { approvalId: 'ap_two', action: 'deny', body: { reason: 'too expensive' } });

    stub.approvals.push(pendingApproval('ap_three', { kind: 'recurring', interval: 'month', interval_count: 1, max_charges: 12, ttl_seconds: undefined }));
    await term.waitFor(/every 1 month, at most 12 charges[^]*Approve, deny or skip\? \[a\/d\/s\]\s*$/);
    term.type('s');
    await term.waitFor(/Skipped ap_three: it stays pending/);
    (stub.approvals[2] as { status: string }).status = 'expired';
    await term.waitFor(/ap_three is no longer pending: it expired\./);
    assert.equal(stub.decisions.length, 2, 'skipping sent nothing');

    stub.down = true;
    await term.waitFor(/Cannot list approvals \(internal_error\)/);
    stub.down = false;
    await term.waitFor(/The daemon answers again; watching\./);

    // The session is still open: the next approval asks nothing.
    stub.approvals.push(pendingApproval('ap_four', { merchant_name: 'books.example.org' }));
    await term.waitFor(/ap_four[^]*books\.example\.org[^]*Approve, deny or skip\? \[a\/d\/s\]\s*$/);
    term.type('a');
    screen = await term.waitFor(/Approved ap_four: authorization pw_four created\./);
    assert.equal(screen.split('Approval passphrase (not shown):').length - 1, 2, 'asked twice, both for ap_one (a wrong one, then the right one)');
    assert.deepEqual(stub.decisions[2], { approvalId: 'ap_four', action: 'approve', body: {} });

    // Only approvals carry the session: the polls go with the token, so they never keep it alive.
    assert.ok(stub.sessions.calls.length > 0 && stub.sessions.calls.every((call) => call === 'POST /approvals/ap_one/approve' || call === 'POST /approvals/ap_four/approve'), `calls made with the session: ${stub.sessions.calls.join(', ')}`);

    // The session ended (no approval for the idle limit, or a daemon restart): the next approval is
    // refused before any route ran; the watch says so, asks for the passphrase, and approves once.
    stub.sessions.live.clear();
    stub.approvals.push(pendingApproval('ap_five', { merchant_name: 'music.example.com' }));
    screen = await term.waitFor(/ap_five[^]*music\.example\.com[^]*Approve, deny or skip\? \[a\/d\/s\]\s*$/);
    assert.ok(!screen.includes('Cannot list approvals (invalid_bearer_token)'), 'the polls never used the session');
    term.type('a');
    await term.waitFor(/The owner session has ended; approving asks for the passphrase again\.\s+Approval passphrase \(not shown\):\s*$/);
    term.type(passphrase);
    term.press('Enter');
    await term.waitFor(/Approved ap_five: authorization pw_five created\./);
    assert.equal(stub.sessions.opened, 2);
    assert.deepEqual(
      stub.decisions.filter((decision) => decision.approvalId === 'ap_five'),
      [{ approvalId: 'ap_five', action: 'approve', body: {} }],
      'approved once',
    );

    // The passphrase cleared while the watch runs: the token approves, nothing is asked.
    clearApprovalPassphrase(home);
    stub.passphrase = undefined;
    stub.approvals.push(pendingApproval('ap_six', { merchant_name: 'films.example.com' }));
    await term.waitFor(/ap_six[^]*films\.example\.com[^]*Approve, deny or skip\? \[a\/d\/s\]\s*$/);
    term.type('a');
    screen = await term.waitFor(/Approved ap_six: authorization pw_six created\./);
    assert.equal(screen.split('Approval passphrase (not shown):').length - 1, 3, 'nothing more was asked');

    term.press('C-c');
    screen = await term.waitFor(/EXIT=\d+/);
    assert.match(screen, /Stopped watching\.\s+EXIT=0/);
    assert.equal(stub.sessions.ended, 1, 'the watch ended its owner session as it stopped');
    assert.equal(stub.sessions.live.size, 0);
  });
});

describe('latch approvals passphrase set in a terminal', () => {
  test('asks twice without echo, Backspace edits, and stores only the hash', async () => {
    const term = latchIn('set', 'approvals passphrase set');
    await term.waitFor(/New approval passphrase \(not shown\):/);
    term.type('pty secret phrasX');
    term.press('BSpace');
    term.type('e');
    term.press('Enter');
    await term.waitFor(/Repeat it:/);
    term.type('pty secret phrase');
    term.press('Enter');
    const screen = await term.waitFor(/EXIT=\d+/);
    assert.match(screen, /Approval passphrase set[^]*EXIT=0/);
    assert.ok(!screen.includes('secret'), 'the passphrase never appears on the screen');
    const stored = readApprovalPassphrase(home);
    assert.ok(stored !== undefined);
    assert.equal(await verifyApprovalPassphraseAsync(stored, 'pty secret phrase'), true);
    assert.equal(await verifyApprovalPassphraseAsync(stored, 'pty secret phrasX'), false);
  });

  test('Ctrl-C at the prompt exits 130 and changes nothing', async () => {
    setApprovalPassphrase(home, 'the earlier passphrase');
    const term = latchIn('interrupt', 'approvals passphrase set');
    await term.waitFor(/New approval passphrase \(not shown\):/);
    term.type('half typed');
    term.press('C-c');
    const screen = await term.waitFor(/EXIT=\d+/);
    assert.match(screen, /interrupted; nothing was sent\.\s+EXIT=130/);
    assert.equal(await verifyApprovalPassphraseAsync(readApprovalPassphrase(home)!, 'the earlier passphrase'), true);
  });
});
