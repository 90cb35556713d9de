import { createServer } from 'node:net';

/**
 * assertPortsFree binds and releases each non-zero port on 127.0.0.1, and rejects with the
 * listen error (EADDRINUSE …) of the first that cannot be had. `latch start` calls it before it
 * creates anything, so a busy port costs nothing: no account, no enrollment, no half-made data
 * directory. (A port can still be taken between this check and the real listen; that rare case
 * fails as before, just later.)
 */
export async function assertPortsFree(ports: readonly number[]): Promise<void> {
  for (const port of ports) {
    if (port === 0) continue;
    await new Promise<void>((resolve, reject) => {
      const probe = createServer();
      probe.once('error', reject);
      probe.listen({ host: '127.0.0.1', port, exclusive: true }, () => probe.close(() => resolve()));
    });
  }
}
