/**
 * POST /wallet/allocate on both variants. It moves money, so it is owner-only and kept apart from
 * the reads; each variant passes its wire shape.
 */
import type { CoreOperations } from '../operations/operations.js';
import type { Allocation } from '../core/model.js';
import type { RouteHandler } from '../http/route.js';
import { allocateRules } from '../requests/request-rules.js';
import { validateBody } from '../validate/schema.js';
import { ok, operationContext } from './operation-context.js';

/** allocateHandler is POST /wallet/allocate (owner only): it moves money, so it is no read. */
export function allocateHandler(operations: Pick<CoreOperations, 'allocate'>, shape: (allocation: Allocation) => unknown): RouteHandler {
  return async (request) => {
    const input = validateBody(request.body, allocateRules);
    return ok(shape(await operations.allocate(input.card_id, input.amount, operationContext(request))));
  };
}
