/**
 * The CLI's daemon commands end to end: the real sandbox and daemon, the CLI run in-process with
 * LATCH_HOME and LATCH_URL, checking human output, --json shapes and exit codes.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { loadCommands } from '../../src/cli/command-list.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { runLatch, startStack, type Stack } from '../support/stack.js';

const COMMANDS = await loadCommands();

let stack: Stack;
const outputs: string[] = [];

before(async () => {
  stack = await startStack();
});
after(async () => {
  await stack.close();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json(): any;
}

async function latch(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const result = await runLatch(args, { LATCH_HOME: stack.home, LATCH_URL: `http://127.0.0.1:${stack.portA}`, ...env });
  outputs.push(result.stdout, result.stderr);
  return { ...result, json: () => JSON.parse(result.stdout) };
}

const MONEY = /^\d+\.\d{2}$/;
const card = (index: 0 | 1): string => stack.cards[index].card_id;

/** requestCount counts the daemon's request log lines, to prove a refused command line sent nothing. */
function requestCount(): number {
  return stack.logs().split('\n').filter((line) => line.includes('"event":"request"')).length;
}

describe('every command has --help', () => {
  const names = ['status', 'doctor', 'cards', 'authorize', 'merchant-bind', 'recurring', 'revoke', 'wallet', 'allocate', 'transactions', 'audit', 'mcp'];
  test('each is listed and prints usage with exit codes', async () => {
    for (const name of names) {
      assert.ok(COMMANDS.some((command) => command.name === name), name);
      const run = await latch([name, '--help']);
      assert.equal(run.code, EXIT.ok, name);
      assert.match(run.stdout, new RegExp(`^Usage: latch ${name}`), name);
      assert.match(run.stdout, /Exit codes:/, name);
    }
  });
});

describe('reads', () => {
  test('status: human and --json', async () => {
    const human = await latch(['status']);
    assert.equal(human.code, EXIT.ok);
    assert.match(human.stdout, /Latch daemon \d+\.\d+\.\d+ is up at http:\/\/127\.0\.0\.1:\d+/);
    const json = (await latch(['status', '--json'])).json();
    assert.equal(json.status, 'ok');
    assert.equal(typeof json.version, 'string');
    assert.equal(json.signing_key.algorithm, 'Ed25519');
    assert.ok(human.stdout.includes(json.signing_key.key_id));
  });

  test('cards: a table, {cards: [...]} with decimal-string balances, and one card with its limit', async () => {
    const human = await latch(['cards']);
    assert.equal(human.code, EXIT.ok);
    assert.match(human.stdout, /Groceries .*100\.00 USD/);
    assert.match(human.stdout, /Subscriptions .*50\.00 USD/);
    const list = (await latch(['cards', '--json'])).json();
    assert.deepEqual(Object.keys(list), ['cards']);
    for (const entry of list.cards) {
      assert.deepEqual(Object.keys(entry).sort(), ['available', 'balance', 'card_id', 'currency', 'held', 'label', 'last4', 'status']);
      assert.match(entry.balance, MONEY);
      assert.match(entry.available, MONEY);
      assert.match(entry.held, MONEY);
    }
    const one = (await latch(['cards', card(0), '--json'])).json();
    assert.equal(one.card_id, card(0));
    assert.equal(one.daily_limit, '500.00');
    assert.match((await latch(['cards', card(0)])).stdout, /daily limit:\s+500\.00 USD/);
  });

  test('cards of an unknown card: exit 7 with the class and remedy; --json carries them', async () => {
    const human = await latch(['cards', 'card_doesnotexist']);
    assert.equal(human.code, EXIT.refused);
    assert.match(human.stderr, /Card not found \(card_not_found\)/);
    assert.match(human.stderr, /What to do: List cards/);
    const json = await latch(['cards', 'card_doesnotexist', '--json']);
    assert.equal(json.code, EXIT.refused);
    assert.equal(json.json().error.code, 'card_not_found');
    assert.equal(json.json().error.status, 404);
    assert.match(json.json().error.remedy, /List cards/);
  });

  test('wallet: {usdt, allocated, available} as decimal strings', async () => {
    const json = (await latch(['wallet', '--json'])).json();
    assert.deepEqual(Object.keys(json).sort(), ['allocated', 'available', 'usdt']);
    for (const value of Object.values(json)) assert.match(value as string, MONEY);
    assert.match((await latch(['wallet'])).stdout, /available:\s+\d+\.\d{2} USDT/);
  });
});

describe('authorizations', () => {
  test('authorize: the scoped authorization, exact by default', async () => {
    const run = await latch(['authorize', '--card', card(0), '--amount', '12.50', '--merchant', 'shop.example.com', '--json']);
    assert.equal(run.code, EXIT.ok);
    const auth = run.json();
    assert.match(auth.policy_id, /^pw_/);
    assert.equal(auth.authorization_id, auth.policy_id);
    assert.equal(auth.amount, '12.50');
    assert.equal(auth.merchant_name, 'shop.example.com');
    assert.equal(auth.authorization_type, 'exact');
    assert.equal(auth.currency, 'USD');
    assert.equal(auth.status, 'active');
    assert.equal(auth.kind, 'one_time');
    // The window's end is set when it is signed, created_at when the cloud registers it a few
    // milliseconds later, each to the second: a second boundary may fall between them.
    const ttlMs = Date.parse(auth.expires_at) - Date.parse(auth.created_at);
    assert.ok(ttlMs <= 30 * 60 * 1000 && ttlMs >= 30 * 60 * 1000 - 1000, `default TTL 30 minutes, got ${ttlMs} ms`);
  });

  test('authorize --type ceiling --ttl 5, human output', async () => {
    const run = await latch(['authorize', '--card', card(0), '--amount', '7', '--merchant', 'Shop.Example.com.', '--type', 'ceiling', '--ttl', '5']);
    assert.equal(run.code, EXIT.ok);
    assert.match(run.stdout, /^Authorized: up to 7\.00 USD at shop\.example\.com on card_/);
    assert.match(run.stdout, /policy:\s+pw_/);
  });

  test('a decline is exit 7, and nothing wider is tried', async () => {
    const before = (await latch(['transactions', '--card', card(0), '--limit', '100', '--json'])).json().transactions.length;
    const run = await latch(['authorize', '--card', card(0), '--amount', '9999.00', '--merchant', 'shop.example.com', '--json']);
    assert.equal(run.code, EXIT.refused);
    assert.equal(run.json().error.code, 'insufficient_funds');
    assert.equal(run.json().error.spec_class, 'Insufficient funds');
    const afterward = (await latch(['transactions', '--card', card(0), '--limit', '100', '--json'])).json().transactions.length;
    assert.equal(afterward, before);
  });

  test('a value the daemon refuses is a usage error (exit 2) naming the flag, not the API field', async () => {
    const run = await latch(['authorize', '--card', card(0), '--amount', '1.00', '--merchant', 'https://shop.example.com/']);
    assert.equal(run.code, EXIT.usage);
    assert.match(run.stderr, /invalid_request\): --merchant must be a domain.*\[flag: --merchant\]/);
    assert.ok(!run.stderr.includes('merchant_name'), run.stderr);
    const json = await latch(['authorize', '--card', card(0), '--amount', '1.00', '--merchant', 'https://shop.example.com/', '--json']);
    assert.equal(json.code, EXIT.usage);
    const error = json.json().error;
    assert.deepEqual([error.code, error.param, error.flag], ['invalid_request', 'merchant_name', '--merchant']);
  });

  const flagCases: Array<[string, () => string[], string, string]> = [
    ['--amount above the maximum', () => ['authorize', '--card', card(0), '--amount', '10000.01', '--merchant', 'm.example.com'], 'amount', '--amount'],
    ['--currency not a code', () => ['authorize', '--card', card(0), '--amount', '1.00', '--merchant', 'm.example.com', '--currency', 'dollars'], 'currency', '--currency'],
    ['--starts-at not a time', () => ['recurring', '--card', card(0), '--merchant', 'm.example.com', '--amount', '1', '--interval', 'day', '--starts-at', 'soon'], 'starts_at', '--starts-at'],
    ['--merchant of merchant-bind', () => ['merchant-bind', '--card', card(0), '--merchant', 'shop.example.com:443'], 'merchant_name', '--merchant'],
  ];
  for (const [name, args, param, flag] of flagCases) {
    test(`a daemon refusal names the flag: ${name}`, async () => {
      const json = await latch([...args(), '--json']);
      const error = json.json().error;
      assert.deepEqual([error.param, error.flag], [param, flag], JSON.stringify(error));
      const human = await latch(args());
      assert.match(human.stderr, new RegExp(`\\[flag: ${flag}\\]`));
    });
  }

  const badLines: Array<[string, string[]]> = [
    ['no --card', ['authorize', '--amount', '1.00', '--merchant', 'shop.example.com']],
    ['no --amount', ['authorize', '--card', 'card_a', '--merchant', 'shop.example.com']],
    ['no --merchant', ['authorize', '--card', 'card_a', '--amount', '1.00']],
    ['--amount with three decimals', ['authorize', '--card', 'card_a', '--amount', '1.234', '--merchant', 'm.example.com']],
    ['--amount negative', ['authorize', '--card', 'card_a', '--amount', '-5', '--merchant', 'm.example.com']],
    ['--amount with an exponent', ['authorize', '--card', 'card_a', '--amount', '1e3', '--merchant', 'm.example.com']],
    ['--amount not a number', ['authorize', '--card', 'card_a', '--amount', 'ten', '--merchant', 'm.example.com']],
    ['--type other', ['authorize', '--card', 'card_a', '--amount', '1', '--merchant', 'm.example.com', '--type', 'wide']],
    ['--ttl 0', ['authorize', '--card', 'card_a', '--amount', '1', '--merchant', 'm.example.com', '--ttl', '0']],
    ['--ttl 1441', ['authorize', '--card', 'card_a', '--amount', '1', '--merchant', 'm.example.com', '--ttl', '1441']],
    ['a card number as --card', ['authorize', '--card', '4111111111111111', '--amount', '1', '--merchant', 'm.example.com']],
    ['an unknown flag', ['authorize', '--card', 'card_a', '--amount', '1', '--merchant', 'm.example.com', '--cvv', '123']],
    ['a stray argument', ['authorize', 'now', '--card', 'card_a', '--amount', '1', '--merchant', 'm.example.com']],
    ['a flag twice', ['authorize', '--card', 'card_a', '--card', 'card_b', '--amount', '1', '--merchant', 'm.example.com']],
    ['revoke without an id', ['revoke']],
    ['revoke of a non-policy id', ['revoke', 'card_a']],
    ['two card ids', ['cards', 'card_a', 'card_b']],
    ['a transaction id with filters', ['transactions', 'tx_a', '--limit', '5']],
    ['--limit 0', ['transactions', '--limit', '0']],
    ['--status other', ['transactions', '--status', 'pending']],
    ['recurring without --interval', ['recurring', '--card', 'card_a', '--merchant', 'm.example.com', '--amount', '1']],
    ['allocate without --amount', ['allocate', '--card', 'card_a']],
    ['audit with an argument', ['audit', 'all']],
    ['status with an argument', ['status', 'now']],
  ];
  for (const [name, args] of badLines) {
    test(`usage error, exit 2, nothing sent: ${name}`, async () => {
      const sent = requestCount();
      const run = await latch(args);
      assert.equal(run.code, EXIT.usage);
      assert.match(run.stderr, /Run 'latch .* --help' for usage\./);
      assert.equal(requestCount(), sent);
      assert.ok(!run.stderr.includes('4111111111111111'), 'a card number is never echoed');
    });
  }

  test('merchant-bind: a merchant verification, 0.00 by default', async () => {
    const auth = (await latch(['merchant-bind', '--card', card(1), '--merchant', 'verify.example.com', '--json'])).json();
    assert.equal(auth.kind, 'merchant_verification');
    assert.equal(auth.amount, '0.00');
  });

  test('recurring: one charge per period', async () => {
    const run = await latch(['recurring', '--card', card(1), '--merchant', 'video.example.com', '--amount', '9.99', '--interval', 'month', '--json']);
    assert.equal(run.code, EXIT.ok);
    const auth = run.json();
    assert.equal(auth.kind, 'recurring');
    assert.equal(auth.interval, 'month');
    assert.equal(auth.interval_count, 1);
    assert.equal(auth.authorization_type, 'ceiling');
  });

  test('revoke: the daemon cancels it (POST /authorizations/:id/cancel), and a second revoke returns the revoked authorization as it is', async () => {
    const auth = (await latch(['authorize', '--card', card(1), '--amount', '2.00', '--merchant', 'cancel.example.com', '--json'])).json();
    const run = await latch(['revoke', auth.policy_id, '--reason', 'user changed their mind', '--json']);
    assert.equal(run.code, EXIT.ok);
    const result = run.json();
    assert.equal(result.policy_id, auth.policy_id);
    assert.equal(result.status, 'revoked');
    assert.equal(result.agent, 'owner');
    assert.equal(stack.sandbox.state().authorizations.get(auth.policy_id)?.status, 'revoked', 'the cloud has it revoked');
    const again = await latch(['revoke', auth.policy_id, '--json']);
    assert.equal(again.code, EXIT.ok, again.stdout);
    assert.deepEqual(again.json(), result);
  });

  test('revoke of a used authorization is refused: authorization_not_active, exit 7', async () => {
    const auth = (await latch(['authorize', '--card', card(1), '--amount', '1.10', '--merchant', 'used.example.com', '--json'])).json();
    const charged = await stack.charge(card(1), 'used.example.com', '1.10');
    assert.equal(charged.body.decision, 'approved', charged.text);
    const run = await latch(['revoke', auth.policy_id]);
    assert.equal(run.code, EXIT.refused);
    assert.match(run.stderr, /Authorization not active \(authorization_not_active\)/);
    assert.match(run.stderr, /What to do: Nothing is left to revoke/);
  });

  test('an --idempotency-key repeats the same authorization instead of making a second', async () => {
    const args = ['authorize', '--card', card(1), '--amount', '1.25', '--merchant', 'once.example.com', '--idempotency-key', 'cli-test-key-1', '--json'];
    const first = (await latch(args)).json();
    const second = (await latch(args)).json();
    assert.equal(second.policy_id, first.policy_id);
  });
});

describe('wallet and transactions', () => {
  test('allocate: {card_id, allocated, new_balance}', async () => {
    const before = (await latch(['cards', card(1), '--json'])).json().balance;
    const run = await latch(['allocate', '--card', card(1), '--amount', '5', '--json']);
    assert.equal(run.code, EXIT.ok);
    const result = run.json();
    assert.equal(result.card_id, card(1));
    assert.equal(result.allocated, '5.00');
    assert.match(result.new_balance, MONEY);
    assert.notEqual(result.new_balance, before);
    assert.match((await latch(['allocate', '--card', card(1), '--amount', '0.50'])).stdout, /^Allocated 0\.50 to card_/);
  });

  test('allocate beyond the wallet: exit 7 insufficient_funds', async () => {
    const run = await latch(['allocate', '--card', card(1), '--amount', '900000.00', '--json']);
    assert.equal(run.code, EXIT.refused);
    assert.equal(run.json().error.code, 'insufficient_funds');
  });

  test('transactions: {transactions, has_more}, paging, filters, and one with its policy window', async () => {
    const page = (await latch(['transactions', '--limit', '2', '--json'])).json();
    assert.deepEqual(Object.keys(page).sort(), ['has_more', 'transactions']);
    assert.equal(page.transactions.length, 2);
    assert.equal(page.has_more, true);
    for (const t of page.transactions) assert.match(t.amount, MONEY);
    const next = (await latch(['transactions', '--limit', '2', '--starting-after', page.transactions[1].id, '--json'])).json();
    assert.ok(!next.transactions.some((t: { id: string }) => page.transactions.some((p: { id: string }) => p.id === t.id)));
    const human = await latch(['transactions', '--limit', '2']);
    assert.match(human.stdout, /More: latch transactions --starting-after tx_/);
    const revoked = (await latch(['transactions', '--status', 'revoked', '--json'])).json();
    assert.ok(revoked.transactions.length >= 1);
    assert.ok(revoked.transactions.every((t: { status: string }) => t.status === 'revoked'));
    const one = (await latch(['transactions', page.transactions[0].id, '--json'])).json();
    assert.equal(one.id, page.transactions[0].id);
    assert.ok(one.policy_window === null || typeof one.policy_window.jws === 'string');
    assert.match((await latch(['transactions', page.transactions[0].id])).stdout, /^transaction:\s+tx_/);
  });

  test('an unknown transaction: exit 7 transaction_not_found', async () => {
    const run = await latch(['transactions', 'tx_doesnotexist', '--json']);
    assert.equal(run.code, EXIT.refused);
    assert.equal(run.json().error.code, 'transaction_not_found');
  });
});

describe('audit', () => {
  test('shows the latest signatures, human and --json', async () => {
    const json = (await latch(['audit', '--limit', '50', '--json'])).json();
    assert.ok(json.file.endsWith('audit.log'));
    assert.ok(json.records.length > 0 && json.records.length <= 50);
    assert.ok(json.records.some((r: { operation: string; amount: string | null; user_agent: string }) => r.operation === 'authorize' && r.amount === '12.50' && r.user_agent.startsWith('latch-cli/')));
    const human = await latch(['audit', '--limit', '3']);
    assert.equal(human.code, EXIT.ok);
    assert.equal(human.stdout.trim().split('\n').length, 4, 'a header and three lines');
    assert.equal((await latch(['audit', 'verify'])).code, EXIT.ok, 'audit verify is still its own command');
  });
});

describe('availability', () => {
  test('no daemon at LATCH_URL: exit 8 with the local-availability class, for reads and writes', async () => {
    const port = await closedPort();
    const env = { LATCH_URL: `http://127.0.0.1:${port}` };
    for (const args of [['status'], ['cards'], ['wallet'], ['authorize', '--card', card(0), '--amount', '1', '--merchant', 'shop.example.com']]) {
      const run = await latch(args, env);
      assert.equal(run.code, EXIT.daemonUnreachable, args.join(' '));
      assert.match(run.stderr, /Local daemon unavailable \(daemon_unreachable\)/);
    }
    const json = await latch(['cards', '--json'], env);
    assert.equal(json.json().error.code, 'daemon_unreachable');
    assert.equal(json.json().error.status, null);
  });

  test('an unusable LATCH_URL is a usage error', async () => {
    const run = await latch(['status'], { LATCH_URL: 'http://example.com:7723' });
    assert.equal(run.code, EXIT.usage);
    assert.match(run.stderr, /LATCH_URL/);
  });
});

describe('secrets', () => {
  test('no output of any command above contained the daemon token', () => {
    const token = stack.token();
    assert.ok(outputs.length > 50);
    for (const output of outputs) assert.ok(!output.includes(token));
  });
});

/** closedPort returns a loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
