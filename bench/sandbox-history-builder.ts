/**
 * The sandbox half of `npm run bench -- --history`: a sandbox journal of many records, as the
 * sandbox would have journaled a year of one account's payments, built directly with the store's
 * own frame encoder (no HTTP, no fsync per record) and bounded in records, bytes and time.
 *
 * It starts from a copy of an existing sandbox data directory (the bench's: its account, cards
 * and enrolled device), replays it to learn where the journal stands, and appends cycles of the
 * records the live routes write: an authorization created through `POST /v1/authorizations`
 * (with its nonce and stored idempotent answer), the charge that settles it, and declined charges
 * (a frozen card, the commonest answer of the bench's charge load). Every record goes through the
 * ledger's own apply() before it is written, so the journal is one the sandbox replays as its own.
 * The window JWS is random text of a real one's length: replay does not verify it.
 */
import { copyFileSync, closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { randomId } from '../src/ids/random-id.js';
import { apply } from '../src/sandbox/ledger/apply.js';
import type { JournalRecord, LedgerEvent } from '../src/sandbox/ledger/events.js';
import { replay } from '../src/sandbox/ledger/ledger.js';
import { utcDay } from '../src/sandbox/ledger/periods.js';
import type { Authorization, Device, SandboxState, Transaction } from '../src/sandbox/ledger/state.js';
import { authorizationView } from '../src/sandbox/http/views.js';
import { JOURNAL_FILE } from '../src/sandbox/create-sandbox.js';
import { DEFAULT_JOURNAL_LIMITS, readFrames } from '../src/store/journal.js';
import { encodeFrame } from '../src/store/frame.js';

/** The most records and seconds one built history may take. */
export const SANDBOX_HISTORY_RECORDS_MAX = 1_000_000;
export const SANDBOX_HISTORY_BUILD_MS_MAX = 300_000;
/**
 * The journal stops this far below its file limit, so that the sandbox started on it still
 * accepts the bench's own requests (and a user's) instead of refusing every change.
 */
export const SANDBOX_HISTORY_HEADROOM_BYTES = 64 * 1024 * 1024;
/** Records encoded per write call. */
const RECORDS_PER_WRITE = 5_000;
/**
 * Ledger seconds between two generated records: 1,000,000 records span about 81 days, inside the
 * daemon's 90-day retention of its own authorization entries, which are built from these.
 */
const RECORD_SPACING_SECONDS = 7;
/** One cycle: an authorization, its settling charge, then this many declined charges. */
const DECLINES_PER_CYCLE = 3;
/** The length of a real window JWS from `latch` (header, payload, Ed25519 signature). */
const JWS_CHARS = 780;

/** What a built sandbox history holds. */
export interface SandboxHistory {
  records: number;
  bytes: number;
  transactions: number;
  /** The generated authorizations, oldest first, for the daemon's own record of them. */
  authorizations: HistoryAuthorization[];
  buildMs: number;
}

/** What the daemon's record of a generated authorization needs (all were settled: `used`). */
export type HistoryAuthorization = Pick<Authorization, 'policy_id' | 'card_id' | 'merchant' | 'amount' | 'created_at' | 'not_after'>;

/** A generated cycle's moving parts: the account's device and the card it pays with. */
interface Scene {
  state: SandboxState;
  device: Device;
  accountId: string;
  cardIds: string[];
  /** The authorization the next approved charge settles. */
  open: Authorization | undefined;
  made: HistoryAuthorization[];
}

/**
 * buildSandboxHistory copies sourceDir's journal and admin key into targetDir (created 0700) and
 * appends `records` generated records to the copy. The source must hold one account with at least
 * one card and an enrolled device. The whole journal stays under the file limit less headroom.
 */
export function buildSandboxHistory(sourceDir: string, targetDir: string, records: number): SandboxHistory {
  if (!Number.isSafeInteger(records) || records < 1 || records > SANDBOX_HISTORY_RECORDS_MAX) throw new RangeError(`sandbox history: 1..${SANDBOX_HISTORY_RECORDS_MAX} records`);
  const startMs = performance.now();
  mkdirSync(targetDir, { recursive: true, mode: 0o700 });
  for (const name of ['admin_key', JOURNAL_FILE]) copyFileSync(path.join(sourceDir, name), path.join(targetDir, name));
  const journalPath = path.join(targetDir, JOURNAL_FILE);
  const existing = readFileSync(journalPath);
  const state = replay(readFrames(existing, journalPath).payloads);
  const scene = sceneOf(state);
  if (scene.state.seq === 0) throw new Error('sandbox history: the source journal is empty');
  const bytesMax = DEFAULT_JOURNAL_LIMITS.fileBytesMax - SANDBOX_HISTORY_HEADROOM_BYTES;
  const lastAt = Math.floor(Date.now() / 1000) - 2 * 86_400;
  const firstAt = lastAt - records * RECORD_SPACING_SECONDS;
  let bytes = existing.length;
  const fd = openSync(journalPath, 'a');
  try {
    for (let written = 0; written < records; ) {
      const frames: Buffer[] = [];
      const count = Math.min(RECORDS_PER_WRITE, records - written);
      for (let n = 0; n < count; n += 1) {
        const index = written + n;
        const record = nextRecord(scene, index, firstAt + index * RECORD_SPACING_SECONDS);
        apply(state, record);
        frames.push(encodeFrame(Buffer.from(JSON.stringify(record))));
      }
      const chunk = Buffer.concat(frames);
      bytes += chunk.length;
      if (bytes > bytesMax) throw new Error(`sandbox history: ${written + count} records need more than ${bytesMax} bytes (the journal's limit less headroom)`);
      writeSync(fd, chunk);
      written += count;
      if (performance.now() - startMs > SANDBOX_HISTORY_BUILD_MS_MAX) throw new Error(`sandbox history: not built within ${SANDBOX_HISTORY_BUILD_MS_MAX} ms`);
    }
  } finally {
    closeSync(fd);
  }
  return { records, bytes, transactions: state.transactions.size, authorizations: scene.made, buildMs: performance.now() - startMs };
}

/** sceneOf finds the one account, its cards and its device in a replayed state. */
function sceneOf(state: SandboxState): Scene {
  const device = state.devices.values().next().value as Device | undefined;
  if (device === undefined) throw new Error('sandbox history: the source sandbox has no enrolled device');
  const cardIds = [...state.cards.values()].filter((card) => card.account_id === device.account_id && !card.closed).map((card) => card.card_id);
  if (cardIds.length === 0) throw new Error('sandbox history: the account has no open card');
  return { state, device, accountId: device.account_id, cardIds, open: undefined, made: [] };
}

/** nextRecord makes record `index` of the cycle: authorize, settle, then declines. */
function nextRecord(scene: Scene, index: number, at: number): JournalRecord {
  const step = index % (2 + DECLINES_PER_CYCLE);
  const cardId = scene.cardIds[Math.floor(index / (2 + DECLINES_PER_CYCLE)) % scene.cardIds.length] as string;
  let events: LedgerEvent[];
  if (step === 0) events = authorizeEvents(scene, cardId, at);
  else if (step === 1 && scene.open !== undefined) events = [settleEvent(scene.open, at)];
  else events = [declineEvent(scene, cardId, at)];
  return { seq: scene.state.seq + 1, at, real_at: at, events };
}

/** authorizeEvents are what `POST /v1/authorizations` with an Idempotency-Key journals. */
function authorizeEvents(scene: Scene, cardId: string, at: number): LedgerEvent[] {
  const policyId = randomId('pw');
  const amount = 100 + (at % 9_900);
  const transaction: Transaction = {
    id: randomId('tx'),
    account_id: scene.accountId,
    card_id: cardId,
    amount,
    currency: 'USD',
    merchant: 'shop.example.com',
    status: 'authorized',
    created_at: at,
    policy_id: policyId,
    decline_code: null,
    limit_day: null,
  };
  const authorization: Authorization = {
    policy_id: policyId,
    account_id: scene.accountId,
    card_id: cardId,
    device_id: scene.device.device_id,
    key_id: scene.device.key_id,
    merchant: 'shop.example.com',
    amount,
    currency: 'USD',
    authorization_type: 'exact',
    kind: 'one_time',
    not_before: at,
    not_after: at + 600,
    status: 'active',
    created_at: at,
    transaction_id: transaction.id,
    hold: amount,
    hold_day: utcDay(at),
    jws: randomBytes((JWS_CHARS * 3) / 4).toString('base64url'),
    recurrence: null,
  };
  scene.open = authorization;
  scene.made.push({ policy_id: policyId, card_id: cardId, merchant: authorization.merchant, amount, created_at: at, not_after: authorization.not_after });
  const body = JSON.parse(JSON.stringify(authorizationView(authorization, at))) as unknown;
  return [
    { type: 'nonce_seen', key: `${scene.device.key_id}\u0000${randomBytes(16).toString('base64url')}`, forget_at_real: at + 360 },
    { type: 'authorization_created', authorization, transaction },
    { type: 'idempotency_stored', key: `${scene.device.key_id}\u0000${randomId('idem')}`, record: { fingerprint: randomBytes(32).toString('hex'), status: 201, body, created_at: at } },
  ];
}

/** settleEvent is the approved charge that settles the open authorization's own transaction. */
function settleEvent(open: Authorization, at: number): LedgerEvent {
  const transaction: Transaction = {
    id: open.transaction_id as string,
    account_id: open.account_id,
    card_id: open.card_id as string,
    amount: open.amount,
    currency: open.currency,
    merchant: open.merchant,
    status: 'settled',
    created_at: open.created_at,
    policy_id: open.policy_id,
    decline_code: null,
    limit_day: open.hold_day,
  };
  return { type: 'charge_approved', policy_id: open.policy_id, period: null, transaction };
}

/** declineEvent is a charge on a card no window applies to: declined `card_frozen`. */
function declineEvent(scene: Scene, cardId: string, at: number): LedgerEvent {
  return {
    type: 'charge_declined',
    transaction: {
      id: randomId('tx'),
      account_id: scene.accountId,
      card_id: cardId,
      amount: 100 + (at % 9_900),
      currency: 'USD',
      merchant: 'shop.example.com',
      status: 'declined',
      created_at: at,
      policy_id: null,
      decline_code: 'card_frozen',
      limit_day: null,
    },
  };
}
