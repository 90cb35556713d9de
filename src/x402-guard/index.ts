/**
 * `latch/x402`: the x402 guard for an agent's x402Client (docs/x402.md). Structural types only;
 * no `@x402/*` package is imported, and the daemon never loads this entry.
 */
export { latchX402Guard, type LatchX402Guard, type LatchX402GuardOptions, type X402ClientLike, type X402Daemon, type X402PaymentRequirements, type X402ResourceInfo } from './guard.js';
export type { X402Authorization } from '../client/types.js';
