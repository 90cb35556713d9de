/**
 * The daemon's serving gate: connections are accepted once a port is bound, but requests wait on
 * `ready` until listen() has regenerated the credentials (see daemon-lifecycle.ts). Every listener
 * of one daemon waits on the same gate.
 */

/** ServingGate is a promise the daemon resolves (open) or rejects (fail) once. */
export interface ServingGate {
  /** Resolves when the daemon serves; rejects when the start failed (held requests are dropped). */
  ready: Promise<void>;
  open(): void;
  fail(error: unknown): void;
}

/** createServingGate makes a closed gate; a failed gate never counts as an unhandled rejection. */
export function createServingGate(): ServingGate {
  let open: () => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const ready = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  ready.catch(() => undefined);
  return { ready, open, fail };
}
