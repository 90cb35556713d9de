/**
 * Variant A's routes over the spending policy (docs/decisions.md §15.3): `GET /policy`, the effective
 * policy for the owner, and `POST /policy/check`, which answers what the policy would decide
 * about a request without signing, reserving or recording anything. The policy gate does the
 * work; these handlers only read the wire shape and write the answer.
 */
import type { AuthorizationRequest } from '../core/authorization-request.js';
import { AGENT_NAME_PATTERN } from '../datadir/agents.js';
import { invalidRequest } from '../errors/latch-error.js';
import { callerOf } from '../http/caller-of.js';
import type { RequestContext, RouteHandler } from '../http/route.js';
import { isJsonObject, type JsonObject } from '../json/parse-json.js';
import { currencyDecimals, formatMinor } from '../money/amount.js';
import type { PolicyEvaluation } from '../policy/evaluate.js';
import { policyToJson } from '../policy-text/policy-json-writer.js';
import type { Policy } from '../policy/policy-types.js';
import { OWNER_AGENT } from '../policy/policy-scope-fields.js';
import { oneOf, str, validateBody, validateQuery } from '../validate/schema.js';
import { ok, operationContext } from '../variant-common/operation-context.js';
import type { OperationContext } from '../core/core-deps.js';
import { merchantVerificationRequest, oneTimeRequest, recurringRequest } from './handlers.js';
import { authorizeRules, merchantBindRules, recurringRules } from '../requests/request-rules.js';
import { AUTHORIZATION_KINDS } from '../core/model.js';
import { ap2MandateRules } from '../requests/ap2-mandate-rules.js';
import { ap2MandateRequest } from './ap2-routes.js';

/** What the policy routes call; PolicyGate provides both. */
export interface PolicyOperations {
  /** The policy in force; throws 503 policy_invalid while policy.json is invalid. */
  effective(): Policy;
  /**
   * What the policy would decide for `agent` (`owner` or an agent's name); reserves nothing. With a
   * context, a merchant the policy would call new is first looked up as a real request's is.
   */
  check(request: AuthorizationRequest, agent: string, context?: OperationContext): PolicyEvaluation | Promise<PolicyEvaluation>;
}

/** The members /policy/check reads itself; every other member is the chosen kind's request body. */
const checkRules = {
  // Every kind the pipeline decides with a window, AP2 mandates included (shared/spec/ap2-mandates.md §6);
  // an x402 payment is checked by its own route's rules (docs/x402.md), not here.
  kind: oneOf([...AUTHORIZATION_KINDS, 'ap2_mandate'] as const, { default: 'one_time' }),
  agent: str({ pattern: AGENT_NAME_PATTERN, describe: 'an agent name (or owner)' }),
};

/** The handlers of the two routes. */
export interface PolicyHandlers {
  show: RouteHandler;
  check: RouteHandler;
}

/** policyHandlers maps GET /policy and POST /policy/check to the policy gate. */
export function policyHandlers(operations: PolicyOperations): PolicyHandlers {
  return {
    show: (request) => {
      validateQuery(request.query, {});
      const policy = operations.effective();
      return ok({ policy: policyToJson(policy), sha256: policy.sha256, source: policy.source });
    },
    check: async (request) => {
      validateQuery(request.query, {});
      const { own, rest } = splitBody(request.body);
      const input = validateBody(own, checkRules);
      const checked = requestOfKind(input.kind, rest);
      const evaluation = await operations.check(checked, checkedAgent(request, input.agent), operationContext(request));
      return ok(evaluationJson(evaluation, checked.currency));
    },
  };
}

/** requestOfKind validates the body with the rules of the route that makes that kind of request. */
export function requestOfKind(kind: (typeof checkRules)['kind'] extends { defaultValue: infer K } ? NonNullable<K> : never, body: JsonObject): AuthorizationRequest {
  switch (kind) {
    case 'one_time':
      return oneTimeRequest(validateBody(body, authorizeRules));
    case 'merchant_verification':
      return merchantVerificationRequest(validateBody(body, merchantBindRules));
    case 'recurring':
      return recurringRequest(validateBody(body, recurringRules));
    case 'ap2_mandate':
      return ap2MandateRequest(validateBody(body, ap2MandateRules));
  }
}

/**
 * checkedAgent is whom the check is for: an agent always checks for itself (naming anyone,
 * itself included, is refused, so an agent cannot probe another's budgets); the owner checks
 * for itself or for the agent it names.
 */
function checkedAgent(request: RequestContext, named: string | undefined): string {
  const caller = callerOf(request);
  if (caller.kind === 'agent') {
    if (named !== undefined) throw invalidRequest('agent', 'agent may be sent by the owner only; an agent checks its own requests.');
    return caller.name;
  }
  return named ?? OWNER_AGENT;
}

/** splitBody separates `kind` and `agent` from the members of the authorization request. */
function splitBody(body: RequestContext['body']): { own: JsonObject; rest: JsonObject } {
  if (!isJsonObject(body)) throw invalidRequest('body', 'The body must be a JSON object.');
  const own: JsonObject = {};
  const rest: JsonObject = {};
  for (const [name, value] of Object.entries(body)) {
    if (Object.hasOwn(checkRules, name)) own[name] = value;
    else rest[name] = value;
  }
  return { own, rest };
}

/** evaluationJson writes an evaluation with its amounts as decimal strings of the request's currency. */
function evaluationJson(evaluation: PolicyEvaluation, currency: string) {
  const money = (minor: number) => formatMinor(minor, currencyDecimals(currency) ?? 2);
  return {
    decision: evaluation.decision,
    rule: evaluation.rule,
    reasons: evaluation.reasons,
    budgets: evaluation.budgets.map((budget) => ({ id: budget.id, limit: money(budget.limit), exposure: money(budget.exposure), remaining: money(budget.remaining) })),
  };
}
