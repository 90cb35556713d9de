/**
 * The daemon's side of the owner routes (docs/decisions.md §21): sessions from the one passphrase
 * check, the brake, policy.json and agents/ written by the daemon itself, so that an owner who
 * cannot write the data directory (the separate-user setup) needs none of its files. Every change
 * is audited with who made it; no token, passphrase or hash of either is ever written to a line.
 */
import { readIdentityKey } from '../identity/identity-keys.js';
import { policyWarnings } from '../policy-text/policy-warnings.js';
import type { Policy } from '../policy/policy-types.js';
import { readFileSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { AuthorizationListOperations } from '../operations/authorization-list.js';
import type { OperationContext } from '../core/operation-context.js';
import { principalName } from '../core/principal.js';
import { addAgent, listAgents, readAgentToken, removeAgent, rotateAgent, type AgentInfo } from '../datadir/agents.js';
import { writeFileAtomic } from '../datadir/atomic-file.js';
import { DataDirError } from '../datadir/data-dir-error.js';
import { pauseSigning, resumeSigning } from '../datadir/pause.js';
import { LatchError } from '../errors/latch-error.js';
import { parsePolicyBytes } from '../policy/policy-file.js';
import { PolicyInvalidError } from '../policy/policy-invalid-error.js';
import type { AgentView, OwnerOperations } from '../variant-a/owner-routes.js';
import type { CoreBinding } from './core-binding.js';
import { policyPath } from './policy-source.js';
import type { DaemonServices } from './services.js';

/** bindOwner makes the owner operations of one daemon. */
export function bindOwner(services: DaemonServices, core: CoreBinding, authorizations: AuthorizationListOperations): OwnerOperations {
  const { home } = services;
  const audit = (operation: string, context: OperationContext, fields: Record<string, string | null> = {}) =>
    core.appendAudit({ operation, request_id: context.caller.requestId, user_agent: context.caller.userAgent, agent: principalName(context.principal), ...fields });
  const agentView = (name: string): AgentView => {
    const found = listAgents(home).find((agent) => agent.name === name);
    if (found === undefined) throw new LatchError('agent_not_found');
    return viewOf(home, found);
  };
  return {
    openSession: (passphrase) => core.presence.openSession(passphrase),
    pause: async (reason, context) => {
      const state = mapAgentErrors(() => pauseSigning(home, reason));
      await audit('signing_paused', context);
      return state;
    },
    resume: async (context) => {
      const resumed = resumeSigning(home);
      if (resumed) await audit('signing_resumed', context);
      return resumed;
    },
    replacePolicy: async (bytes, context) => {
      let policy: Policy;
      try {
        policy = parsePolicyBytes(bytes);
      } catch (error) {
        if (error instanceof PolicyInvalidError) throw new LatchError('policy_invalid', { status: 400, param: error.field, message: `${error.message} Nothing was changed.` });
        throw error;
      }
      const file = policyPath(home);
      const previousSha256 = currentSha256(file);
      writeFileAtomic(file, bytes);
      const newSha256 = bytesToHex(sha256(bytes));
      await audit('policy_changed', context, { old_sha256: previousSha256, new_sha256: newSha256 });
      return { sha256: newSha256, previousSha256, warnings: policyWarnings(policy) };
    },
    addAgent: async (name, context) => {
      mapAgentErrors(() => addAgent(home, name));
      await audit('agent_added', context, { agent_name: name });
      return { agent: agentView(name), token: readAgentToken(home, name) };
    },
    listAgents: () => listAgents(home).map((agent) => viewOf(home, agent)),
    rotateAgent: async (name, context) => {
      mapAgentErrors(() => rotateAgent(home, name));
      await audit('agent_rotated', context, { agent_name: name });
      return { agent: agentView(name), token: readAgentToken(home, name) };
    },
    removeAgent: async (name, revoke, context) => {
      mapAgentErrors(() => removeAgent(home, name));
      await audit('agent_removed', context, { agent_name: name });
      if (revoke) await revokeActive(authorizations, name, context);
    },
  };
}

function viewOf(home: string, agent: AgentInfo): AgentView {
  return { name: agent.name, createdAt: agent.createdAt, lastUsedAt: agent.lastUsedAt, identityKeyId: identityKeyIdOf(home, agent.name) };
}

/** identityKeyIdOf is the agent's identity key id; a key it cannot read is shown as none (latch doctor names the file). */
function identityKeyIdOf(home: string, name: string): string | null {
  try {
    return readIdentityKey(home, name)?.keyId ?? null;
  } catch {
    return null;
  }
}

/** currentSha256 is the SHA-256 of policy.json as it is now, or null when there is none. */
function currentSha256(file: string): string | null {
  try {
    return bytesToHex(sha256(readFileSync(file)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** mapAgentErrors turns the data directory's answers about agents into the API's codes. */
function mapAgentErrors<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof DataDirError) {
      if (error.code === 'exists') throw new LatchError('agent_exists');
      if (error.code === 'missing') throw new LatchError('agent_not_found');
      // The problem only, without the file's path: the caller may be another OS user.
      if (error.code === 'invalid_value') throw new LatchError('invalid_request', { message: error.message.replace(/ \(file: .*$/s, '.') });
    }
    throw error;
  }
}

/** revokeActive cancels every active authorization of a removed agent (`?revoke=true`). */
async function revokeActive(authorizations: AuthorizationListOperations, agent: string, context: OperationContext): Promise<void> {
  let startingAfter: string | undefined;
  for (;;) {
    const page = await authorizations.listAuthorizations({ limit: 100, startingAfter, status: 'active', cardId: undefined, agent }, context);
    for (const owned of page.authorizations) await authorizations.cancelAuthorization(owned.authorization.policyId, 'agent removed', context);
    const last = page.authorizations[page.authorizations.length - 1];
    if (!page.hasMore || last === undefined) return;
    startingAfter = last.authorization.policyId;
  }
}
