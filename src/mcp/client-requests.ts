/**
 * Requests this server sends to the MCP client (elicitation/create), and the client's answers
 * matched to them by id. Each has a deadline: a client that never answers costs a bounded wait,
 * and its late answer is dropped.
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../json/parse-json.js';
import { notificationLine, requestLine, type RpcId } from './json-rpc.js';

/** The most requests of ours awaiting an answer at once (TigerStyle: a limit on everything). */
const OUTSTANDING_MAX = 32;

/** What the client answered: its result object, or that it answered with an error, or nothing in time. */
export type ClientAnswer = { kind: 'result'; result: JsonObject } | { kind: 'error' } | { kind: 'timeout' };

/** ClientRequests writes requests and notifications to the client and matches its responses. */
export class ClientRequests {
  private nextId = 1;
  private readonly outstanding = new Map<string, (answer: ClientAnswer) => void>();
  private send: ((line: string) => void) | undefined;

  /** connect gives it the transport's writer; until then nothing can be sent. */
  connect(send: (line: string) => void): void {
    this.send = send;
  }

  /** connected reports whether requests can reach the client. */
  get connected(): boolean {
    return this.send !== undefined;
  }

  /** notify sends a notification; it is dropped when no transport is connected. */
  notify(method: string, params: unknown): void {
    this.send?.(notificationLine(method, params));
  }

  /** request sends a request and resolves with the client's answer, or timeout after timeoutMs or on abort. */
  request(method: string, params: unknown, timeoutMs: number, signal?: AbortSignal): Promise<ClientAnswer> {
    const send = this.send;
    if (send === undefined || this.outstanding.size >= OUTSTANDING_MAX || signal?.aborted === true) return Promise.resolve({ kind: 'timeout' });
    const id = `latch-${this.nextId++}`;
    return new Promise((resolve) => {
      const finish = (answer: ClientAnswer): void => {
        if (!this.outstanding.delete(id)) return;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(answer);
      };
      const onAbort = (): void => finish({ kind: 'timeout' });
      const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.outstanding.set(id, finish);
      send(requestLine(id, method, params));
    });
  }

  /** answer hands the client's response to the request it answers; one for no request of ours is dropped. */
  answer(id: RpcId | undefined, result: JsonValue | undefined, error: JsonValue | undefined): void {
    if (typeof id !== 'string') return;
    const finish = this.outstanding.get(id);
    if (finish === undefined) return;
    finish(error === undefined && isJsonObject(result) ? { kind: 'result', result } : { kind: 'error' });
  }
}
