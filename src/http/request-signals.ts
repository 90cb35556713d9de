import type { ServerResponse } from 'node:http';
import { followSignals } from '../runtime/follow-signals.js';

/**
 * RequestSignals are a request's two abort signals, made only when a handler asks for one (most
 * answer without a cloud call or a wait, and an AbortSignal costs more to make than the rest of
 * this): `signal` aborts when the client goes away before the answer or the server shuts down;
 * `holdSignal` also when a stop begins (docs/decisions.md §24.3). Once the response closes they
 * stop following the server's signals, so no listener stays on them.
 */
export class RequestSignals {
  private clientGone = false;
  private closed = false;
  private client: AbortController | undefined;
  private request: ReturnType<typeof followSignals> | undefined;
  private hold: ReturnType<typeof followSignals> | undefined;

  constructor(
    response: ServerResponse,
    private readonly shutdown: AbortSignal,
    private readonly stopping: AbortSignal | undefined,
  ) {
    response.once('close', () => {
      this.closed = true;
      if (!response.writableFinished) {
        this.clientGone = true;
        this.client?.abort();
      }
      this.request?.release();
      this.hold?.release();
    });
  }

  get signal(): AbortSignal {
    if (this.request === undefined) {
      this.client = new AbortController();
      if (this.clientGone) this.client.abort();
      this.request = followSignals([this.client.signal, this.shutdown]);
      // Asked for after the response closed: nothing will release it later.
      if (this.closed) this.request.release();
    }
    return this.request.signal;
  }

  get holdSignal(): AbortSignal {
    if (this.stopping === undefined) return this.signal;
    if (this.hold === undefined) {
      this.hold = followSignals([this.signal, this.stopping]);
      if (this.closed) this.hold.release();
    }
    return this.hold.signal;
  }
}
