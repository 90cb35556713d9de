/**
 * The daemon's side of the owner console (docs/decisions.md §25): its sessions and challenges, the
 * passkeys file, the event stream and the pictures. Nothing here calls a route or checks
 * presence: the console's listener has the one front door, which does (docs/decisions.md §29.2).
 */
import { dryRunPolicy, policyStandings } from '../policy-text/policy-reads.js';
import { policySummary } from '../policy-text/policy-summary.js';
import { policyWarnings } from '../policy-text/policy-warnings.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { OWNER } from '../core/principal.js';
import { utf8 } from '../crypto/base64url.js';
import { ACTIVITY_LINES_MAX, readActivity } from '../console/activity.js';
import type { ConsoleDeps } from '../console/console-deps.js';
import type { EventStreamResult } from '../http/route.js';
import { createConsoleSessions, type ConsoleSessions } from '../console/console-sessions.js';
import { createPresenceChallenges } from '../console/presence-challenges.js';
import { summarizeSpending, SPENDING_DAYS } from '../console/spending-summary.js';
import { verifyAudit } from '../verify/audit-verify.js';
import { cleanLabel, PASSKEYS_MAX, readPasskeys, writePasskeys } from '../datadir/passkeys.js';
import { readPause } from '../datadir/pause.js';
import { invalidRequest, LatchError } from '../errors/latch-error.js';
import { isJsonObject, type JsonObject } from '../json/parse-json.js';
import { parsePolicyText } from '../policy/policy-file.js';
import { PolicyInvalidError } from '../policy/policy-invalid-error.js';
import { OWNER_AGENT } from '../policy/policy-scope-fields.js';
import { requestOfKind } from '../variant-a/policy-routes.js';
import type { CoreBinding } from './core-binding.js';
import type { DaemonServices } from './services.js';
import { approvalOperations } from '../operations/approval-operations.js';

/** At most this many live event streams at once (TigerStyle: a limit on everything). */
const EVENT_STREAMS_MAX = 8;
/** How often a stream looks for changed approvals, and sends a keep-alive comment. */
const EVENT_POLL_MS = 500;
const EVENT_KEEPALIVE_MS = 15_000;

export interface ConsoleBinding {
  deps: ConsoleDeps;
  sessions: ConsoleSessions;
}

/** bindConsole makes the console's dependencies for one daemon; `apiRouter` is Variant A's table. */
export function bindConsole(services: DaemonServices, core: CoreBinding, port: () => number): ConsoleBinding {
  const { home } = services;
  const sessions = createConsoleSessions();
  const challenges = createPresenceChallenges();
  const approvals = approvalOperations(core.deps);
  let streams = 0;

  const pendingSignature = async (): Promise<string> => {
    const page = await approvals.listApprovals({ status: 'pending_approval', limit: 100 }, ownerContext());
    return page.approvals.map((approval) => `${approval.id}:${approval.status}`).join(',');
  };

  const events = (): EventStreamResult => {
    if (streams >= EVENT_STREAMS_MAX) throw new LatchError('console_busy');
    streams += 1;
    return {
      status: 200,
      pump: async (write, signal) => {
        try {
          let last = await pendingSignature();
          write('approvals', JSON.stringify({ changed: true }));
          let quietMs = 0;
          while (!signal.aborted) {
            await delay(EVENT_POLL_MS, signal);
            if (signal.aborted) break;
            const now = await pendingSignature();
            if (now !== last) {
              last = now;
              write('approvals', JSON.stringify({ changed: true }));
              quietMs = 0;
            } else if ((quietMs += EVENT_POLL_MS) >= EVENT_KEEPALIVE_MS) {
              write('keepalive', '{}');
              quietMs = 0;
            }
          }
        } finally {
          streams -= 1;
        }
      },
    };
  };

  const deps: ConsoleDeps = {
    sessions,
    challenges,
    signinChallenges: createPresenceChallenges(),
    port,
    presence: {
      factors: () => core.presence.factors(),
      checkPassphrase: (passphrase) => core.presence.provePassphrase(passphrase),
    },
    passkeys: {
      list: () => readPasskeys(home),
      add(credential, label) {
        const current = readPasskeys(home);
        if (current.length >= PASSKEYS_MAX) throw invalidRequest('label', `At most ${PASSKEYS_MAX} passkeys; remove one first.`);
        if (current.some((key) => key.id === credential.id)) throw invalidRequest('attestation_object', 'This passkey is registered already.');
        const stored = { ...credential, label: cleanLabel(label), createdAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') };
        writePasskeys(home, [...current, stored]);
        services.logger.info('passkey_added', { credential_id: stored.id });
        return { id: stored.id, label: stored.label, created_at: stored.createdAt };
      },
      remove(id) {
        const current = readPasskeys(home);
        if (!current.some((key) => key.id === id)) throw new LatchError('not_found', { message: 'No passkey with that id.' });
        writePasskeys(home, current.filter((key) => key.id !== id));
        services.logger.info('passkey_removed', { credential_id: id });
      },
      recordUse(id, signCount) {
        const current = readPasskeys(home);
        writePasskeys(home, current.map((key) => (key.id === id ? { ...key, signCount } : key)));
      },
    },
    approvals: { get: (id) => approvals.getApproval(id, ownerContext()) },
    events,
    activity: (options) => readActivity(home, ACTIVITY_LINES_MAX, options),
    verifyAudit: () => verifyAudit(home),
    paused: () => {
      const pause = readPause(home);
      return pause === undefined ? null : { since: pause.since, reason: pause.reason ?? null };
    },
    spending: () => {
      const nowSeconds = core.deps.nowSeconds();
      return summarizeSpending(core.authorizationLedger.since(nowSeconds - SPENDING_DAYS * 86_400), policyStandings(core.policy, nowSeconds), nowSeconds);
    },
    policy: {
      validate(text) {
        const policy = candidatePolicy(text);
        return { summary: policySummary(policy), sha256: bytesToHex(sha256(utf8(text))), warnings: policyWarnings(policy) };
      },
      dryRun(text, sample) {
        const policy = candidatePolicy(text);
        const { agent, ...rest } = sample;
        if (agent !== undefined && typeof agent !== 'string') throw invalidRequest('agent', 'agent must be an agent name.');
        const body: JsonObject = { ...rest };
        if (!isJsonObject(body)) throw invalidRequest('request', 'request must be an object.');
        const evaluation = dryRunPolicy(core.policy, policy, requestOfKind('one_time', body), agent ?? OWNER_AGENT, core.deps.nowSeconds());
        return { decision: evaluation.decision, rule: evaluation.rule, reasons: evaluation.reasons };
      },
    },
  };
  return { deps, sessions };
}

/** candidatePolicy parses the editor's text like policy.json; the error names the field. */
function candidatePolicy(text: string) {
  try {
    return parsePolicyText(text);
  } catch (error) {
    if (error instanceof PolicyInvalidError) throw new LatchError('policy_invalid', { status: 400, param: error.field, message: error.message });
    throw error;
  }
}

function ownerContext() {
  return { principal: OWNER, caller: { requestId: 'console', userAgent: 'latch-console' } } as Parameters<ReturnType<typeof approvalOperations>['getApproval']>[1];
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}
