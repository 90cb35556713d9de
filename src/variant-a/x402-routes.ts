/**
 * Variant A's x402 routes (shared/spec/x402.md, docs/x402.md): the assets that count, an x402
 * payment through the authorization pipeline, and what happens to it after — the payload bound, the
 * settlement reported, the release. Each validates its wire shape and calls one operation.
 */
import type { AuthorizationEntry } from '../core/authorization-ledger.js';
import type { OperationContext } from '../core/core-deps.js';
import type { X402Result } from '../core/x402-authorize.js';
import type { X402Input } from '../core/x402-request.js';
import type { X402Report } from '../core/x402-states.js';
import { invalidRequest, LatchError } from '../errors/latch-error.js';
import type { RouteHandler } from '../http/route.js';
import { X402_ID_PATTERN } from '../ids/wire-ids.js';
import { isJsonObject, type JsonValue } from '../json/parse-json.js';
import { x402AuthorizeRules } from '../requests/x402-rules.js';
import { oneOf, str, validateBody, validateQuery } from '../validate/schema.js';
import { pendingAnswer } from '../variant-common/approval-shape.js';
import { ok, operationContext } from '../variant-common/operation-context.js';
import { assetWire, type X402Asset } from '../x402/assets.js';
import { x402EntryWire } from '../x402/x402-wire.js';
import type { FieldRule } from '../validate/field-rule.js';
import { wrongType } from '../validate/field-rule.js';

/** The most a reported SettleResponse may hold, as JSON (shared/spec/x402.md §6). */
export const SETTLE_RESPONSE_BYTES_MAX = 8192;
/** The most a payload binding's `accepted` may hold, as JSON: the requirements and their 4 KiB extra. */
const ACCEPTED_BYTES_MAX = 8192;

/** What A's x402 routes call. */
export interface X402Operations {
  assets(context: OperationContext): readonly X402Asset[];
  authorize(input: X402Input, context: OperationContext): Promise<X402Result>;
  bind(id: string, accepted: unknown, payloadSha256: string, context: OperationContext): Promise<AuthorizationEntry>;
  report(id: string, report: X402Report, context: OperationContext): Promise<AuthorizationEntry>;
  release(id: string, context: OperationContext): Promise<AuthorizationEntry>;
}

export interface X402Handlers {
  assets: RouteHandler;
  authorize: RouteHandler;
  payload: RouteHandler;
  settlement: RouteHandler;
  release: RouteHandler;
}

const payloadRules = {
  accepted: jsonObjectRule('accepted', ACCEPTED_BYTES_MAX, true),
  payload_sha256: str({ required: true, pattern: /^[0-9a-f]{64}$/, describe: 'the lowercase hex SHA-256 of the payment payload' }),
};

const settlementRules = {
  settle_response: jsonObjectRule('settle_response', SETTLE_RESPONSE_BYTES_MAX, false),
  outcome: oneOf(['verify_failed', 'transport_error'] as const),
};

/** x402AuthorizeInput maps the validated body to the core's input. */
export function x402AuthorizeInput(input: ReturnType<typeof validateBody<typeof x402AuthorizeRules>>): X402Input {
  return { resource: input.resource.resource, merchant: input.resource.merchant, requirements: input.requirements, ...(input.reference !== undefined && { reference: input.reference }) };
}

/** x402Handlers returns A's handlers of the x402 routes. */
export function x402Handlers(operations: X402Operations): X402Handlers {
  return {
    assets: (request) => {
      validateQuery(request.query, {});
      return ok({ assets: operations.assets(operationContext(request)).map(assetWire) });
    },
    authorize: async (request) => {
      validateQuery(request.query, {});
      const input = validateBody(request.body, x402AuthorizeRules);
      const result = await operations.authorize(x402AuthorizeInput(input), operationContext(request));
      switch (result.outcome) {
        case 'authorized':
          return { status: 201, body: x402EntryWire(result.entry) };
        case 'approval_pending':
          return pendingAnswer(result.approval, Math.floor(Date.now() / 1000));
      }
    },
    payload: async (request) => {
      validateQuery(request.query, {});
      const input = validateBody(request.body, payloadRules);
      return ok(x402EntryWire(await operations.bind(idParam(request.params['authorization_id']), input.accepted, input.payload_sha256, operationContext(request))));
    },
    settlement: async (request) => {
      validateQuery(request.query, {});
      const input = validateBody(request.body, settlementRules);
      if ((input.settle_response === undefined) === (input.outcome === undefined)) throw invalidRequest('body', 'Send exactly one of settle_response and outcome.');
      const report: X402Report = input.settle_response !== undefined ? settleReport(input.settle_response) : { kind: 'outcome', outcome: input.outcome as 'verify_failed' | 'transport_error' };
      return ok(x402EntryWire(await operations.report(idParam(request.params['authorization_id']), report, operationContext(request))));
    },
    release: async (request) => {
      validateQuery(request.query, {});
      validateBody(request.body ?? {}, {});
      return ok(x402EntryWire(await operations.release(idParam(request.params['authorization_id']), operationContext(request))));
    },
  };
}

/** settleReport checks x402's SettleResponse just enough to read it: `success` must be a boolean. */
function settleReport(settleResponse: Record<string, unknown>): X402Report {
  if (typeof settleResponse['success'] !== 'boolean') throw invalidRequest('settle_response.success', 'settle_response.success must be true or false.');
  for (const name of ['transaction', 'network', 'payer', 'amount'] as const) {
    const value = settleResponse[name];
    if (value !== undefined && value !== null && typeof value !== 'string') throw wrongType(`settle_response.${name}`, 'a string');
  }
  return { kind: 'settle_response', settleResponse };
}

/** A malformed id in the path is a missing authorization, like an unknown one. */
function idParam(value: string | undefined): string {
  const text = value ?? '';
  if (!X402_ID_PATTERN.test(text)) throw new LatchError('authorization_not_found');
  return text;
}

/** jsonObjectRule takes any JSON object of at most bytesMax, as plain JSON (stored as x402 sent it, never interpreted beyond the named members). */
function jsonObjectRule<const R extends boolean>(name: string, bytesMax: number, required: R): FieldRule<Record<string, unknown>, R extends true ? 'required' : 'optional'> {
  return {
    presence: (required ? 'required' : 'optional') as R extends true ? 'required' : 'optional',
    defaultValue: undefined,
    jsonSchema: { type: 'object' },
    fromJson: (value: JsonValue, param: string) => {
      if (!isJsonObject(value)) throw wrongType(param, 'an object');
      const plain = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
      if (new TextEncoder().encode(JSON.stringify(plain)).length > bytesMax) throw invalidRequest(param, `${name} must be at most ${bytesMax} bytes of JSON.`);
      return plain;
    },
    fromQuery: (_text: string, param: string) => {
      throw wrongType(param, 'an object');
    },
  };
}
