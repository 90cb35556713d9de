/** Wallet allocation: a money-moving call, kept apart from the reads. */
import { cloudCall, idempotencyKeyOf, type CoreDeps, type OperationContext } from './core-deps.js';
import type { Allocation } from './model.js';
import { refuseWhilePaused } from './signing-pause.js';

/** allocate moves wallet funds to a card, under the caller's Idempotency-Key or a fresh one. */
export function allocate(deps: CoreDeps, cardId: string, amountMinor: number, context: OperationContext): Promise<Allocation> {
  refuseWhilePaused(deps.paused);
  const device = deps.device();
  return device.cloud.allocate(cardId, amountMinor, cloudCall(device, context, idempotencyKeyOf(context)));
}
