/**
 * The MCP stdio transport: newline-delimited JSON-RPC messages on the input stream, responses on
 * the output stream, one message per line and nothing else on it (logs go to stderr).
 */
import { LatchError } from '../errors/latch-error.js';
import { parseJson, type JsonLimits, type JsonValue } from '../json/parse-json.js';
import type { Logger } from '../log/logger.js';
import { classifyMessage, errorLine, RPC_ERROR, type Incoming, type RpcId } from './json-rpc.js';
import { LineReader, LINE_BYTES_MAX } from './line-reader.js';
import type { McpSession } from './mcp-session.js';

/** Requests handled at once; more is refused with a JSON-RPC error rather than queued without bound. */
export const IN_FLIGHT_MAX = 16;
/** The most messages in one JSON-RPC batch. */
export const BATCH_MESSAGES_MAX = 32;
/** JSON limits for incoming messages: roomy for initialize's capabilities, tight enough to bound work. */
const MESSAGE_JSON_LIMITS: JsonLimits = { depthMax: 16, membersMax: 256 };

export interface StdioServerOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  session: McpSession;
  log: Logger;
  lineBytesMax?: number;
}

/**
 * serveStdio reads messages until the input ends, answers each request on the output, and
 * resolves once every request in flight has been answered.
 */
export function serveStdio(options: StdioServerOptions): Promise<void> {
  const lineBytesMax = options.lineBytesMax ?? LINE_BYTES_MAX;
  const reader = new LineReader(lineBytesMax);
  const dispatcher = new Dispatcher(options.session, outputLines(options.output, options.log), options.log);
  // The session's own requests (elicitation/create) and notifications go out on the same lines.
  options.session.connect(dispatcher.write);
  return new Promise((resolve) => {
    const finish = (): void => {
      // Nobody is left to answer a question or hear a decision: calls waiting for the owner end now.
      options.session.close();
      void dispatcher.drained().then(() => resolve());
    };
    options.input.on('data', (chunk: Buffer | string) => {
      for (const event of reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) {
        if (event.kind === 'line') dispatcher.line(event.text);
        else dispatcher.write(errorLine(null, RPC_ERROR.parseError, `Parse error: a message line is longer than ${lineBytesMax} bytes.`));
      }
    });
    options.input.on('end', () => {
      for (const event of reader.end()) if (event.kind === 'line') dispatcher.line(event.text);
      finish();
    });
    options.input.on('error', (error: NodeJS.ErrnoException) => {
      options.log.warn('mcp_input_failed', { code: error.code ?? 'ERROR' });
      finish();
    });
  });
}

/** outputLines writes one line per message until the client goes away (EPIPE), then nothing. */
function outputLines(output: NodeJS.WritableStream, log: Logger): (line: string) => void {
  let closed = false;
  output.on('error', (error: NodeJS.ErrnoException) => {
    // The client went away; there is nobody left to answer.
    closed = true;
    log.warn('mcp_output_closed', { code: error.code ?? 'ERROR' });
  });
  return (line) => {
    if (!closed) output.write(`${line}\n`);
  };
}

/**
 * Dispatcher turns input lines into session calls and their answers into output lines. Requests
 * being handled are counted one by one: a batch's members count like single messages, so a batch
 * cannot carry more work past IN_FLIGHT_MAX than the same requests sent one per line.
 */
class Dispatcher {
  private requestsInFlight = 0;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly session: McpSession,
    readonly write: (line: string) => void,
    private readonly log: Logger,
  ) {}

  /** line handles one input line: a message, a batch, or a parse error. */
  line(text: string): void {
    if (text.trim() === '') return;
    let value: JsonValue;
    try {
      value = parseJson(text, MESSAGE_JSON_LIMITS);
    } catch (error) {
      const detail = error instanceof LatchError ? error.message.replace('The body is not valid JSON: ', '') : 'invalid JSON';
      this.write(errorLine(null, RPC_ERROR.parseError, `Parse error: ${detail}`));
      return;
    }
    if (Array.isArray(value)) this.batch(value);
    else this.single(classifyMessage(value));
  }

  /** drained resolves once every answer under way has been written. */
  drained(): Promise<void> {
    return Promise.allSettled([...this.pending]).then(() => undefined);
  }

  private single(message: Incoming): void {
    // Notifications are always taken: they are cheap, and dropping notifications/initialized would stall the session.
    if (message.kind === 'request' && this.requestsInFlight >= IN_FLIGHT_MAX) {
      this.write(this.busyLine(message.id));
      return;
    }
    this.track(this.counted(message, false));
  }

  /**
   * batch answers with one array of the requests' responses (none for notifications only);
   * members past the in-flight limit are answered "server busy", as single requests would be.
   */
  private batch(messages: JsonValue[]): void {
    if (this.requestsInFlight >= IN_FLIGHT_MAX) {
      this.write(this.busyLine(null));
      return;
    }
    if (messages.length === 0 || messages.length > BATCH_MESSAGES_MAX) {
      this.write(errorLine(null, RPC_ERROR.invalidRequest, `Invalid Request: a batch holds 1 to ${BATCH_MESSAGES_MAX} messages.`));
      return;
    }
    const answers = messages.map((element) => this.counted(classifyMessage(element), true));
    this.track(
      Promise.all(answers).then((lines) => {
        const present = lines.filter((line): line is string => line !== undefined);
        return present.length === 0 ? undefined : `[${present.join(',')}]`;
      }),
    );
  }

  /** counted hands a message to the session, counting a request while it is handled (or refusing it when too many are). */
  private counted(message: Incoming, inBatch: boolean): Promise<string | undefined> {
    if (message.kind !== 'request') return this.session.handle(message, inBatch);
    if (this.requestsInFlight >= IN_FLIGHT_MAX) return Promise.resolve(this.busyLine(message.id));
    this.requestsInFlight++;
    return this.session.handle(message, inBatch).finally(() => this.requestsInFlight--);
  }

  /** track writes an answer when it is ready and keeps it in `pending` until then. */
  private track(work: Promise<string | undefined>): void {
    const done: Promise<void> = work
      .then(
        (line) => {
          if (line !== undefined) this.write(line);
        },
        (error: unknown) => this.log.error('mcp_handler_failed', { error }),
      )
      .finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  private busyLine(id: RpcId | null): string {
    return errorLine(id, RPC_ERROR.serverBusy, `Server busy: at most ${IN_FLIGHT_MAX} requests at once.`);
  }
}
