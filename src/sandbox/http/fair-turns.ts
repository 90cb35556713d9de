/**
 * FairTurns hands out turns of the event loop one request at a time.
 *
 * Verifying a device request costs two Ed25519 verifications (about a millisecond each with
 * noble). When many requests arrive together, Node reads them all in one poll phase and, without
 * this, verifies them all back to back before it looks at the disk again: the fsync that made
 * the first one durable has long finished, but its answer waits behind the CPU work of every
 * later request, and the whole batch is answered at once. The client (the daemon) then idles
 * until the batch comes back, and sends the next batch together, so the two processes take turns
 * instead of working at the same time. Taking one request per turn lets the event loop answer
 * durable operations and read new requests between two verifications.
 */
export class FairTurns {
  private readonly waiting: Array<() => void> = [];
  private scheduled = false;

  /** next resolves in a turn of the event loop of its own, after every earlier caller's turn. */
  next(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.release);
      }
    });
  }

  /** waitingCount is how many callers wait for a turn (for tests). */
  get waitingCount(): number {
    return this.waiting.length;
  }

  private readonly release = (): void => {
    // The resolved caller's continuation runs as a microtask at the end of this callback, before
    // the next callback of the check phase; the next turn is queued for the next loop iteration.
    const resolve = this.waiting.shift();
    if (this.waiting.length > 0) setImmediate(this.release);
    else this.scheduled = false;
    resolve?.();
  };
}
