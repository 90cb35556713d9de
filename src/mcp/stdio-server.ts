/**
 * The MCP stdio transport: newline-delimited JSON-RPC messages on the input stream, responses on
 * the output stream, one message per line and nothing else on it (logs go to stderr).
 */
import { LatchError } from '../errors/latch-error.js';
import { parseJson, type JsonLimits } from '../json/parse-json.js';
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
  const { input, output, session, log } = options;
  const reader = new LineReader(options.lineBytesMax ?? LINE_BYTES_MAX);
  const inFlight = new Set<Promise<void>>();
  let outputClosed = false;

  const write = (line: string): void => {
    if (outputClosed) return;
    output.write(`${line}\n`);
  };
  output.on('error', (error: NodeJS.ErrnoException) => {
    // The client went away (EPIPE); there is nobody left to answer.
    outputClosed = true;
    log.warn('mcp_output_closed', { code: error.code ?? 'ERROR' });
  });

  // Requests being handled, counted one by one: a batch's members count like single messages, so a
  // batch cannot carry more work past the limit than the same requests sent one per line.
  let requestsInFlight = 0;
  const busyLine = (id: RpcId | null): string => errorLine(id, RPC_ERROR.serverBusy, `Server busy: at most ${IN_FLIGHT_MAX} requests at once.`);
  const handleCounted = (message: Incoming, inBatch: boolean): Promise<string | undefined> => {
    if (message.kind !== 'request') return session.handle(message, inBatch);
    if (requestsInFlight >= IN_FLIGHT_MAX) return Promise.resolve(busyLine(message.id));
    requestsInFlight++;
    return session.handle(message, inBatch).finally(() => requestsInFlight--);
  };

  const track = (work: Promise<string | undefined>): void => {
    const done: Promise<void> = work.then(
      (line) => {
        if (line !== undefined) write(line);
      },
      (error: unknown) => log.error('mcp_handler_failed', { error }),
    ).finally(() => inFlight.delete(done));
    inFlight.add(done);
  };

  const onLine = (line: string): void => {
    if (line.trim() === '') return;
    let value;
    try {
      value = parseJson(line, MESSAGE_JSON_LIMITS);
    } catch (error) {
      const detail = error instanceof LatchError ? error.message.replace('The body is not valid JSON: ', '') : 'invalid JSON';
      write(errorLine(null, RPC_ERROR.parseError, `Parse error: ${detail}`));
      return;
    }
    if (!Array.isArray(value)) {
      const message = classifyMessage(value);
      // Notifications are always taken: they are cheap, and dropping notifications/initialized would stall the session.
      if (message.kind === 'request' && requestsInFlight >= IN_FLIGHT_MAX) {
        write(busyLine(message.id));
        return;
      }
      track(handleCounted(message, false));
      return;
    }
    if (requestsInFlight >= IN_FLIGHT_MAX) {
      write(busyLine(null));
      return;
    }
    if (value.length === 0 || value.length > BATCH_MESSAGES_MAX) {
      write(errorLine(null, RPC_ERROR.invalidRequest, `Invalid Request: a batch holds 1 to ${BATCH_MESSAGES_MAX} messages.`));
      return;
    }
    // Batches are answered with one array of the requests' responses (none for notifications only);
    // members past the in-flight limit are answered "server busy", as single requests would be.
    const answers = value.map((element) => handleCounted(classifyMessage(element), true));
    track(Promise.all(answers).then((lines) => {
      const present = lines.filter((line): line is string => line !== undefined);
      return present.length === 0 ? undefined : `[${present.join(',')}]`;
    }));
  };

  return new Promise((resolve) => {
    input.on('data', (chunk: Buffer | string) => {
      for (const event of reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)) {
        if (event.kind === 'line') onLine(event.text);
        else write(errorLine(null, RPC_ERROR.parseError, `Parse error: a message line is longer than ${options.lineBytesMax ?? LINE_BYTES_MAX} bytes.`));
      }
    });
    input.on('end', () => {
      for (const event of reader.end()) if (event.kind === 'line') onLine(event.text);
      void Promise.allSettled([...inFlight]).then(() => resolve());
    });
    input.on('error', (error: NodeJS.ErrnoException) => {
      log.warn('mcp_input_failed', { code: error.code ?? 'ERROR' });
      void Promise.allSettled([...inFlight]).then(() => resolve());
    });
  });
}
