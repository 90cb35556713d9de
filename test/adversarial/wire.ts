/**
 * Raw bytes on a loopback socket, for attacks that an HTTP client library would refuse to send
 * (smuggling shapes, obs-fold, bare LF) and for counting how many answers one connection got.
 */
import net from 'node:net';

/** What came back on one connection. */
export interface Exchange {
  /** Everything the server wrote, as latin1 text. */
  text: string;
  /** The status code of every response on the connection, in order (interim 100s included). */
  statuses: number[];
  /** The `error.code` of every JSON error body, in order. */
  codes: string[];
  /** The server ended the connection (rather than our timeout). */
  closedByServer: boolean;
}

/**
 * exchange writes bytes on a fresh connection to 127.0.0.1:port and collects the answer until
 * the server closes the connection or, at the latest, idleMs after the last byte arrived. A
 * connection still open at that point is reported with closedByServer false.
 */
export function exchange(port: number, bytes: string | Buffer, idleMs = 1_500): Promise<Exchange> {
  const data = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes;
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    let timer = setTimeout(() => finish(false), idleMs);
    const finish = (closedByServer: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parseExchange(Buffer.concat(chunks).toString('latin1'), closedByServer));
    };
    socket.on('connect', () => socket.write(data));
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      clearTimeout(timer);
      timer = setTimeout(() => finish(false), idleMs);
    });
    socket.on('close', () => finish(true));
    // A reset after (or instead of) an answer is the server closing too.
    socket.on('error', () => finish(true));
  });
}

/** parseExchange finds every status line and error code in a connection's output. */
export function parseExchange(text: string, closedByServer: boolean): Exchange {
  const statuses = [...text.matchAll(/HTTP\/1\.[01] (\d{3}) /g)].map((match) => Number(match[1]));
  const codes = [...text.matchAll(/"code":"([a-z_]+)"/g)].map((match) => match[1] as string);
  return { text, statuses, codes, closedByServer };
}

/** requestText builds one HTTP/1.1 request with CRLF line ends; the body goes in as is. */
export function requestText(method: string, target: string, headers: Array<[string, string]>, body = ''): string {
  return `${method} ${target} HTTP/1.1\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body}`;
}

/** A socket held open by a test, with what it received and whether it was closed. */
export interface HeldSocket {
  socket: net.Socket;
  received(): string;
  /** Resolves when the connection closes, for any reason. */
  closed: Promise<void>;
  isClosed(): boolean;
}

/** holdSocket opens a connection and keeps track of it; the test writes (or not) as it likes. */
export function holdSocket(port: number): HeldSocket {
  const socket = net.connect(port, '127.0.0.1');
  let text = '';
  let isClosed = false;
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  // Errors (resets, EPIPE on a write after the server closed) are expected here; close follows.
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      isClosed = true;
      resolve();
    }),
  );
  return { socket, received: () => text, closed, isClosed: () => isClosed };
}

/** waitFor polls until check() is true, or fails after timeoutMs with the message. */
export async function waitFor(check: () => boolean, timeoutMs: number, message: string, pollMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${message}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** sleep waits ms milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
