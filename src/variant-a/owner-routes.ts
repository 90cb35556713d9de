/**
 * Variant A's routes of the owner's own controls (docs/decisions.md §21): owner sessions, the
 * brake through the API, the policy through the API and agents through the API, so that an owner
 * who cannot write the daemon's files (the separate-user setup) still controls everything. The
 * front door has checked the access each route declares (presence for what could move money or
 * widen what agents may do); these handlers only read the wire shape and call the operations.
 */
import type { PolicyWarning } from '../policy-text/policy-warnings.js';
import type { NewOwnerSession } from '../owner/owner-sessions.js';
import type { OperationContext } from '../core/operation-context.js';
import { AGENT_NAME_PATTERN } from '../datadir/agents.js';
import { LatchError } from '../errors/latch-error.js';
import type { RouteHandler } from '../http/route.js';
import { isoSeconds } from '../time/iso-time.js';
import { bool, str, validateBody, validateQuery } from '../validate/schema.js';
import { ok, operationContext } from '../variant-common/operation-context.js';

/** An agent as the API shows it: never its token. */
export interface AgentView {
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** The key id of the agent's Web Bot Auth identity key (made with the agent), or null when it cannot be read. */
  identityKeyId: string | null;
}

/** What the owner routes call; the daemon binds them to its data directory (src/daemon/owner-binding.ts). */
export interface OwnerOperations {
  /** Checks the passphrase (the one lockout) and opens an owner session. */
  openSession(passphrase: string | undefined): Promise<NewOwnerSession>;
  pause(reason: string | undefined, context: OperationContext): Promise<{ since: string; reason: string | null }>;
  resume(context: OperationContext): Promise<boolean>;
  /** Validates the policy text like the file (400 policy_invalid), writes it atomically and audits the change. */
  /** The answer's warnings are the rules of the new policy that can never change a decision. */
  replacePolicy(bytes: Uint8Array, context: OperationContext): Promise<{ sha256: string; previousSha256: string | null; warnings: PolicyWarning[] }>;
  addAgent(name: string, context: OperationContext): Promise<{ agent: AgentView; token: string }>;
  listAgents(): AgentView[];
  rotateAgent(name: string, context: OperationContext): Promise<{ agent: AgentView; token: string }>;
  /** Removes the agent; with revoke, also cancels its active authorizations. */
  removeAgent(name: string, revoke: boolean, context: OperationContext): Promise<void>;
}

/** The handlers of the owner routes. */
export interface OwnerHandlers {
  openSession: RouteHandler;
  endSession: RouteHandler;
  pause: RouteHandler;
  resume: RouteHandler;
  putPolicy: RouteHandler;
  addAgent: RouteHandler;
  listAgents: RouteHandler;
  rotateAgent: RouteHandler;
  removeAgent: RouteHandler;
}

// The passphrase goes from the body to the one check and nowhere else (see approval-routes.ts).
const sessionRules = { passphrase: str({ maxLength: 4096 }) };
const pauseRules = { reason: str({ maxLength: 200 }) };
const agentRules = { name: str({ required: true, pattern: AGENT_NAME_PATTERN, describe: 'a name of 1 to 32 characters: a-z, 0-9, _ and -, starting with a letter or digit' }) };

/** ownerHandlers maps the owner routes to the owner operations. */
export function ownerHandlers(operations: OwnerOperations): OwnerHandlers {
  const agentAnswer = (status: number, created: { agent: AgentView; token: string }) => ({ status, body: { ...agentWire(created.agent), token: created.token } });
  return {
    openSession: async (request) => {
      validateQuery(request.query, {});
      const input = validateBody(request.body ?? {}, sessionRules);
      const session = await operations.openSession(input.passphrase);
      return { status: 201, body: { token: session.token, expires_at: isoSeconds(session.expiresAtSeconds) }, headers: { 'cache-control': 'no-store' } };
    },
    endSession: (request) => {
      validateQuery(request.query, {});
      // Only a request that came with a session has one to end; the daemon token has none.
      if (request.endOwnerSession === undefined || !request.endOwnerSession()) throw new LatchError('not_found', { message: 'This request carries no owner session to end (use the session token as the bearer).' });
      return noContent();
    },
    pause: async (request) => {
      validateQuery(request.query, {});
      const input = validateBody(request.body ?? {}, pauseRules);
      return ok({ paused: await operations.pause(input.reason, operationContext(request)) });
    },
    resume: async (request) => {
      validateQuery(request.query, {});
      validateBody(request.body ?? {}, {});
      return ok({ resumed: await operations.resume(operationContext(request)), paused: null });
    },
    putPolicy: async (request) => {
      validateQuery(request.query, {});
      const changed = await operations.replacePolicy(request.rawBody, operationContext(request));
      return ok({ sha256: changed.sha256, previous_sha256: changed.previousSha256, warnings: changed.warnings });
    },
    addAgent: async (request) => {
      validateQuery(request.query, {});
      const input = validateBody(request.body, agentRules);
      return agentAnswer(201, await operations.addAgent(input.name, operationContext(request)));
    },
    listAgents: (request) => {
      validateQuery(request.query, {});
      return ok({ agents: operations.listAgents().map(agentWire), has_more: false });
    },
    rotateAgent: async (request) => {
      validateQuery(request.query, {});
      validateBody(request.body ?? {}, {});
      return agentAnswer(200, await operations.rotateAgent(agentNameParam(request.params['name']), operationContext(request)));
    },
    removeAgent: async (request) => {
      const query = validateQuery(request.query, { revoke: bool({ default: false }) });
      await operations.removeAgent(agentNameParam(request.params['name']), query.revoke, operationContext(request));
      return noContent();
    },
  };
}

/** noContent is a 204 answer: no body at all. */
function noContent() {
  return { status: 204, rawBody: new Uint8Array(0), headers: {} };
}

function agentWire(agent: AgentView) {
  return { name: agent.name, created_at: agent.createdAt.toISOString(), last_used_at: agent.lastUsedAt?.toISOString() ?? null, identity_key_id: agent.identityKeyId };
}

/** A malformed name in the path is an agent that does not exist, like an unknown one. */
function agentNameParam(value: string | undefined): string {
  const text = value ?? '';
  if (!AGENT_NAME_PATTERN.test(text)) throw new LatchError('agent_not_found');
  return text;
}
