/**
 * The x402 guard for an agent's x402Client (`latch/x402`, docs/x402.md): the owner's policy,
 * budgets, approvals and pause before each payment, the payment bound to what was authorized, and
 * the settled amount learned. Structural types only: this module imports no `@x402/*` package
 * (the agent's client is passed in), and the daemon never loads it.
 *
 * @example
 *   import { latchX402Guard } from 'latch/x402';
 *   const client = new x402Client().register('eip155:84532', new ExactEvmScheme(account));
 *   latchX402Guard({ waitSeconds: 30 }).install(client);
 *   const pay = wrapFetchWithPayment(fetch, client);
 */
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { LatchClient, type LatchClientOptions } from '../client/latch-client.js';
import { LatchClientError } from '../client/client-errors.js';
import { isPendingApproval } from '../client/pending-approval.js';
import type { X402Authorization } from '../client/types.js';
import { canonicalJson } from '../core/approval.js';
import type { X402Requirements, X402Resource } from '../x402/requirements.js';

/** x402 v2's PaymentRequirements as the agent's client passes them (any scheme: the daemon refuses one it does not decide). */
export type X402PaymentRequirements = X402Requirements<string>;

/** x402 v2's ResourceInfo. */
export type X402ResourceInfo = X402Resource;

/** The hook contexts @x402/core 2.27.0 passes (structurally). */
export interface X402BeforeContext {
  paymentRequired: { x402Version: number; resource?: X402ResourceInfo };
  selectedRequirements: X402PaymentRequirements;
}
export interface X402AfterContext extends X402BeforeContext {
  paymentPayload: { accepted?: unknown };
}
export interface X402FailureContext extends X402BeforeContext {
  error: unknown;
}
export interface X402ResponseContext {
  paymentPayload: { accepted?: unknown };
  requirements: X402PaymentRequirements;
  settleResponse?: Record<string, unknown>;
  paymentRequired?: unknown;
}

/** The x402Client methods the guard installs on (a structural x402Client). */
export interface X402ClientLike {
  onBeforePaymentCreation(hook: (context: X402BeforeContext) => Promise<void | { abort: true; reason: string }>): unknown;
  onAfterPaymentCreation(hook: (context: X402AfterContext) => Promise<void>): unknown;
  onPaymentCreationFailure(hook: (context: X402FailureContext) => Promise<void>): unknown;
  onPaymentResponse?(hook: (context: X402ResponseContext) => Promise<void>): unknown;
  setSpendControls?(controls: false | Record<string, unknown>): unknown;
}

/** The daemon calls the guard makes (LatchClient has them all). */
export interface X402Daemon {
  x402Authorize(input: Record<string, unknown>, options: { idempotencyKey: string; waitSeconds?: number }): Promise<unknown>;
  x402Bind(id: string, input: { accepted: unknown; payload_sha256: string }): Promise<X402Authorization>;
  x402Settlement(id: string, input: { settle_response: Record<string, unknown> } | { outcome: 'verify_failed' | 'transport_error' }): Promise<X402Authorization>;
  x402Release(id: string): Promise<X402Authorization>;
}

export interface LatchX402GuardOptions extends LatchClientOptions {
  /** How long to hold on for the owner's approval (`Prefer: wait`, 1..60); without it a 202 aborts at once. */
  waitSeconds?: number;
  /** Let Latch's policy be the only cap: x402's own spendControls are turned off (setSpendControls(false)). */
  replaceSpendControls?: boolean;
  /** The daemon to call; default a LatchClient with these options (the agent's token as everywhere else). */
  daemon?: X402Daemon;
  /** How many times a settlement report is tried (with backoff) before it is left: the amount stays counted. */
  reportAttempts?: number;
}

/** What latchX402Guard returns. */
export interface LatchX402Guard {
  /** install registers the four hooks on client; it throws on a client without onPaymentResponse. */
  install<C extends X402ClientLike>(client: C): C;
  /** reportSettlement reports what became of a bound payment (transport_error included). */
  reportSettlement(authorizationId: string, report: Record<string, unknown> | 'verify_failed' | 'transport_error'): Promise<X402Authorization>;
  /** The authorization id of the payment for these requirements, once authorized (the same object the hooks saw). */
  authorizationFor(requirements: X402PaymentRequirements): string | undefined;
}

const REPORT_ATTEMPTS_DEFAULT = 4;
const REPORT_BACKOFF_MS = 200;

/** latchX402Guard makes the guard; see the file's comment. */
export function latchX402Guard(options: LatchX402GuardOptions = {}): LatchX402Guard {
  const daemon = options.daemon ?? (new LatchClient(options) as unknown as X402Daemon);
  // The client passes the same requirements object to every hook (@x402/core 2.27.0): keyed on it,
  // else on the canonical requirements' SHA-256 (canonicalJson is the daemon's own, core/approval.ts).
  const byObject = new WeakMap<object, string>();
  const byHash = new Map<string, string>();
  const remember = (requirements: X402PaymentRequirements, id: string): void => {
    byObject.set(requirements, id);
    byHash.set(sha256Hex(canonicalJson(requirements)), id);
  };
  const lookup = (requirements: X402PaymentRequirements | undefined): string | undefined => {
    if (requirements === undefined || requirements === null) return undefined;
    return byObject.get(requirements) ?? byHash.get(sha256Hex(canonicalJson(requirements)));
  };
  const keys = new IdempotencyKeys();
  const forget = (requirements: X402PaymentRequirements): void => {
    byObject.delete(requirements);
    byHash.delete(sha256Hex(canonicalJson(requirements)));
  };
  const report = async (id: string, first: { settle_response: Record<string, unknown> } | { outcome: 'verify_failed' | 'transport_error' }): Promise<X402Authorization> => {
    const attempts = options.reportAttempts ?? REPORT_ATTEMPTS_DEFAULT;
    let body = first;
    for (let attempt = 1; ; attempt++) {
      try {
        return await daemon.x402Settlement(id, body);
      } catch (error) {
        // A transaction hash is 64 hex digits, which hold a Luhn-valid run now and then, and the
        // card-data guard refuses it: what settled is reported without the hash (docs/decisions.md §40).
        if (error instanceof LatchClientError && error.code === 'card_data_not_accepted' && 'settle_response' in body && attempt < attempts) {
          const { success, network, amount } = body.settle_response;
          body = { settle_response: { success, ...(network !== undefined && { network }), ...(amount !== undefined && { amount }) } };
          continue;
        }
        // A refusal (4xx) is final; only an unreachable or failing daemon is tried again.
        const status = error instanceof LatchClientError ? error.status : null;
        if ((status !== null && status < 500) || attempt >= attempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, REPORT_BACKOFF_MS * 2 ** (attempt - 1) * (0.5 + randomInt(1000) / 1000)));
      }
    }
  };
  return {
    install(client) {
      if (typeof client.onPaymentResponse !== 'function') {
        throw new Error('latch: this @x402/core has no onPaymentResponse hook; report each settlement yourself with guard.reportSettlement(id, settleResponse)');
      }
      if (options.replaceSpendControls === true) {
        if (typeof client.setSpendControls !== 'function') throw new Error('latch: this x402Client has no setSpendControls; leave replaceSpendControls off');
        client.setSpendControls(false);
      }
      client.onBeforePaymentCreation(async (context) => {
        const requirements = context.selectedRequirements;
        const resource = context.paymentRequired.resource;
        const payment = keys.attempt(resource?.url ?? '', requirements);
        try {
          const answer = await daemon.x402Authorize(
            { x402_version: context.paymentRequired.x402Version, resource: resource ?? { url: '' }, requirements: { ...requirements } },
            { idempotencyKey: payment.key, ...(options.waitSeconds !== undefined && { waitSeconds: options.waitSeconds }) },
          );
          if (isPendingApproval(answer as never)) {
            // The next attempt at this payment sends the same key, and so finds this approval.
            payment.awaitApproval();
            const pending = answer as { approval_id?: unknown };
            return { abort: true, reason: `latch: approval_pending the owner has not approved this payment yet (approval ${String(pending.approval_id)})` };
          }
          payment.done();
          const authorized = answer as X402Authorization;
          if (typeof authorized.authorization_id !== 'string' || authorized.status !== 'authorized') {
            return { abort: true, reason: `latch: x402_authorization_not_bindable this payment's authorization is ${String(authorized.status)}` };
          }
          remember(requirements, authorized.authorization_id);
          return undefined;
        } catch (error) {
          payment.done();
          return { abort: true, reason: `latch: ${describe(error)}` };
        }
      });
      client.onAfterPaymentCreation(async (context) => {
        const id = lookup(context.selectedRequirements);
        if (id === undefined) throw new Error('latch: no authorization for this payment; nothing is sent');
        // Throws when the daemon refuses: the client then sends nothing.
        await daemon.x402Bind(id, { accepted: context.paymentPayload.accepted, payload_sha256: sha256Hex(JSON.stringify(context.paymentPayload)) });
      });
      client.onPaymentCreationFailure(async (context) => {
        const id = lookup(context.selectedRequirements);
        if (id === undefined) return;
        forget(context.selectedRequirements);
        // Releasing an entry already released (x402_terms_changed) answers 200; a failed release keeps it counted until it expires.
        await daemon.x402Release(id).catch(() => undefined);
      });
      client.onPaymentResponse(async (context) => {
        const id = lookup(context.requirements);
        if (id === undefined) return;
        forget(context.requirements);
        if (context.settleResponse !== undefined) await report(id, { settle_response: context.settleResponse }).catch(() => undefined);
        // The server answered 402 again without settling: the facilitator refused the payment.
        else if (context.paymentRequired !== undefined) await report(id, { outcome: 'verify_failed' }).catch(() => undefined);
        // Anything else is left unreported: the entry stays counted in full (never undercounted).
      });
      return client;
    },
    reportSettlement(authorizationId, settlement) {
      return report(authorizationId, typeof settlement === 'string' ? { outcome: settlement } : { settle_response: settlement });
    },
    authorizationFor: (requirements) => lookup(requirements),
  };
}

/**
 * The Idempotency-Keys of the guard's payments, derived from the resource URL and the canonical
 * requirements (the daemon files each under the agent). A payment the owner was asked about keeps
 * its key, so the attempt after the approval finds the approved entry; every other attempt gets a
 * key of its own (a per-guard salt and a counter), so two purchases of the same resource — at once,
 * or one after the other — are two payments, each decided (docs/decisions.md §40).
 */
class IdempotencyKeys {
  private readonly salt = randomBytes(16).toString('hex');
  private next = 0;
  private readonly awaitingApproval = new Map<string, string>();

  attempt(url: string, requirements: X402PaymentRequirements): { key: string; awaitApproval(): void; done(): void } {
    const base = sha256Hex(`${url}\n${canonicalJson(requirements)}`);
    // base64url, not hex: the front door's card-data guard reads every header, and a long run of
    // hex digits is now and then Luhn-valid; a run of 13 digits in base64url practically never is.
    const key = this.awaitingApproval.get(base) ?? `x402-${createHash('sha256').update(`${this.salt}\n${base}\n${++this.next}`).digest('base64url')}`;
    return {
      key,
      awaitApproval: () => void this.awaitingApproval.set(base, key),
      done: () => {
        if (this.awaitingApproval.get(base) === key) this.awaitingApproval.delete(base);
      },
    };
  }
}

function describe(error: unknown): string {
  if (error instanceof LatchClientError) return `${error.code} ${error.message}`;
  return `daemon_unreachable ${error instanceof Error ? error.message : String(error)}`;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
