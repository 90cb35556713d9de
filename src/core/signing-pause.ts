/**
 * The owner's emergency brake as the core sees it: while signing is paused, nothing that
 * authorizes spending or moves money is signed, for anyone — authorization windows of every
 * kind, wallet allocations, and money-moving requests through the proxy. Revocations stay
 * possible (they only take authority away), and so do reads.
 */
import { LatchError } from '../errors/latch-error.js';

/** Since when signing is paused, and the owner's note. */
export interface SigningPause {
  since: string;
  reason: string | null;
}

/** neverPaused is a brake that is never pulled, for a caller (a test) that says so by name. */
export const neverPaused = (): SigningPause | undefined => undefined;

/** refuseWhilePaused throws daemon_paused when the brake is pulled. */
export function refuseWhilePaused(paused: () => SigningPause | undefined): void {
  const pause = paused();
  if (pause === undefined) return;
  const why = pause.reason === null ? '' : ` (${pause.reason})`;
  throw new LatchError('daemon_paused', {
    message: `The owner paused signing at ${pause.since}${why}: nothing that authorizes spending or moves money is signed until they run latch resume.`,
  });
}
