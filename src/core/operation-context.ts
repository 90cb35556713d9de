import type { Principal } from './principal.js';

/** The local request a core operation serves: its request id and the caller's User-Agent. */
export interface LocalCaller {
  requestId: string;
  userAgent: string;
}

/** How a core operation was asked for: by whom, for which local request, with which key. */
export interface OperationContext {
  principal: Principal;
  caller: LocalCaller;
  idempotencyKey: string | undefined;
  signal?: AbortSignal;
}
