/**
 * An in-process harness over the sandbox ledger (no HTTP) for unit and randomized tests: a
 * controllable clock, accounts, devices with real keys, signed windows, charges, restarts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toBase64Url } from '../../src/crypto/base64url.js';
import { signJwsCompact } from '../support/raw-signing.js';
import { LatchError } from '../../src/errors/latch-error.js';
import { randomId } from '../../src/ids/random-id.js';
import { Ledger, type Txn } from '../../src/sandbox/ledger/ledger.js';
import { SNAPSHOT_FILE } from '../../src/sandbox/ledger/snapshot.js';
import type { Authorization } from '../../src/sandbox/ledger/state.js';
import { createCard, createSetupToken, deposit, allocate, updateCard } from '../../src/sandbox/ops/accounts.js';
import { createWindow } from '../../src/sandbox/ops/authorize.js';
import { charge, type ChargeDecision, type ChargeRequest } from '../../src/sandbox/ops/charge.js';
import { enrollDevice } from '../../src/sandbox/ops/devices.js';
import { expireDue } from '../../src/sandbox/ops/expiry.js';
import { DEFAULT_LIMITS } from '../../src/sandbox/ops/limits.js';
import { revokeWindow } from '../../src/sandbox/ops/revoke.js';
import type { WindowTyp } from '../../src/sandbox/ops/window-payload.js';
import { newTestKey, type TestKey } from '../support/sandbox-client.js';

/** A fixed start: 2030-01-15T12:00:00Z. */
export const START_SECONDS = 1_894_708_800;

export interface HarnessDevice {
  deviceId: string;
  accountId: string;
  key: TestKey;
}

export class LedgerHarness {
  /** The base clock in seconds; tests move it directly. */
  clockSeconds = START_SECONDS;

  /** Ledgers left open by crash(), closed by dispose(). */
  private readonly crashed: Ledger[] = [];

  private constructor(
    readonly dir: string,
    public ledger: Ledger,
    private readonly snapshots: boolean,
  ) {}

  /** create opens a ledger in a fresh directory; with snapshots, it reads and writes SNAPSHOT_FILE there. */
  static async create(options: { snapshots?: boolean } = {}): Promise<LedgerHarness> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'latch-ledger-'));
    const harness = new LedgerHarness(dir, undefined as unknown as Ledger, options.snapshots ?? false);
    harness.ledger = await harness.openLedger();
    return harness;
  }

  get journalPath(): string {
    return path.join(this.dir, 'journal');
  }

  get snapshotPath(): string {
    return path.join(this.dir, SNAPSHOT_FILE);
  }

  openLedger(): Promise<Ledger> {
    return Ledger.open({ journalPath: this.journalPath, now: () => this.clockSeconds * 1000, beforeEach: expireDue, ...(this.snapshots && { snapshotPath: this.snapshotPath }) });
  }

  /** crash opens the ledger again without closing the running one, as a restart after the process was killed. */
  async crash(): Promise<void> {
    this.crashed.push(this.ledger);
    this.ledger = await this.openLedger();
  }

  /** restart closes the ledger and opens it again from the journal. */
  async restart(): Promise<void> {
    await this.ledger.close();
    this.ledger = await this.openLedger();
  }

  async dispose(): Promise<void> {
    for (const ledger of this.crashed) await ledger.close().catch(() => undefined);
    await this.ledger.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  run<T>(task: (txn: Txn) => T): Promise<T> {
    return this.ledger.run(task);
  }

  /** device makes an account (or uses accountId) and enrolls a fresh key on it. */
  async device(accountId?: string): Promise<HarnessDevice> {
    const key = newTestKey();
    return this.run((txn) => {
      const token = createSetupToken(txn, accountId, 900);
      const device = enrollDevice(txn, { setupToken: token.token, keyId: key.keyId, publicKeyX: key.jwk.x, name: null });
      return { deviceId: device.device_id, accountId: device.account_id, key };
    });
  }

  async card(accountId: string, balance: number, dailyLimit = 100_000): Promise<string> {
    return this.run((txn) => createCard(txn, { accountId, label: 'card', dailyLimit, balance }).card_id);
  }

  deposit(accountId: string, amount: number): Promise<unknown> {
    return this.run((txn) => deposit(txn, accountId, amount));
  }

  allocate(accountId: string, cardId: string, amount: number): Promise<unknown> {
    return this.run((txn) => allocate(txn, accountId, cardId, amount));
  }

  closeCard(cardId: string): Promise<unknown> {
    return this.run((txn) => updateCard(txn, cardId, { close: true }));
  }

  /** payload builds a window payload signed by device; times relative to the harness clock. */
  payload(device: HarnessDevice, overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const now = this.ledger.now();
    return {
      v: 1,
      typ: 'card_policy_window',
      policy_id: randomId('pw'),
      device_id: device.deviceId,
      merchant: 'shop.example.com',
      amount: '10.00',
      currency: 'USD',
      authorization_type: 'exact',
      kind: 'one_time',
      not_before: now,
      not_after: now + 1800,
      nonce: toBase64Url(randomBytes(12)),
      iat: now,
      ...overrides,
    };
  }

  sign(device: HarnessDevice, payload: object): string {
    return signJwsCompact(payload, device.key.keyId, device.key.secretKey);
  }

  /**
   * window signs and records a window; resolves with the authorization or the LatchError. The
   * endpoint follows the payload's typ unless given.
   */
  window(device: HarnessDevice, overrides: Record<string, unknown> = {}, endpoint?: WindowTyp): Promise<Authorization | LatchError> {
    const payload = this.payload(device, overrides);
    const typ = endpoint ?? (payload['typ'] === 'policy_window' ? 'policy_window' : 'card_policy_window');
    const jws = this.sign(device, payload);
    return this.run((txn) => createWindow(txn, device.accountId, jws, typ, DEFAULT_LIMITS)).catch(asLatchError);
  }

  revoke(device: HarnessDevice, policyId: string): Promise<Authorization | LatchError> {
    const jws = this.sign(device, { v: 1, typ: 'revocation', policy_id: policyId, device_id: device.deviceId, nonce: toBase64Url(randomBytes(12)), iat: Math.floor(Date.now() / 1000) });
    return this.run((txn) => revokeWindow(txn, device.accountId, policyId, jws)).catch(asLatchError);
  }

  charge(request: ChargeRequest): Promise<ChargeDecision> {
    return this.run((txn) => charge(txn, request));
  }
}

function asLatchError(error: unknown): LatchError {
  if (error instanceof LatchError) return error;
  throw error;
}
