/**
 * followSignals is AbortSignal.any for the request path: a signal that aborts when any source
 * does, and a release that stops following the sources (call it once the signal is no longer
 * needed, so that no listener stays on a long-lived signal such as a server's shutdown).
 * AbortSignal.any costs about 15 µs a call on Node 20 (measured alone: 14.5 µs against 0.5 µs for
 * adding and removing a listener, docs/performance.md); this is a listener per source.
 */
export function followSignals(sources: readonly AbortSignal[]): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const release = () => {
    for (const source of sources) source.removeEventListener('abort', abort);
  };
  // Aborted with the reason of the source that fired, as AbortSignal.any does (a TimeoutError stays one).
  const abort = (event: Event) => {
    release();
    controller.abort((event.target as AbortSignal).reason);
  };
  const already = sources.find((source) => source.aborted);
  if (already !== undefined) controller.abort(already.reason);
  else for (const source of sources) source.addEventListener('abort', abort, { once: true });
  return { signal: controller.signal, release };
}
