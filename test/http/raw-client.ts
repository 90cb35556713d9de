import net from 'node:net';

/** A parsed HTTP response as seen on the wire. */
export interface RawResponse {
  status: number;
  /** Header names in lower case; repeated headers keep every value. */
  headers: Record<string, string[]>;
  body: string;
  /** The whole response text, for asserting that something appears nowhere. */
  raw: string;
  /** Whether the server closed the connection after the response. */
  closedByServer: boolean;
}

export interface RawRequest {
  method?: string;
  target?: string;
  /** Header lines in order; a Host header is NOT added automatically. */
  headers?: Array<[string, string]>;
  body?: string | Buffer;
  version?: string;
  /** Add `Connection: close` (default true), so the answer ends with the connection. */
  close?: boolean;
}

/** sendRaw writes exactly the given request on a fresh connection and reads the answer until the server closes or the message is complete. */
export function sendRaw(port: number, request: RawRequest | string, timeoutMs = 5_000): Promise<RawResponse> {
  const text = typeof request === 'string' ? Buffer.from(request, 'latin1') : buildRequest(request);
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (closedByServer: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseResponse(Buffer.concat(chunks));
      if (parsed === undefined) reject(new Error(`no complete HTTP response: ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 200))}`));
      else resolve({ ...parsed, closedByServer });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('connect', () => socket.write(text));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    // A reset after the answer arrived (the server refusing the rest of a body) still counts.
    socket.on('error', () => finish(true));
  });
}

function buildRequest(request: RawRequest): Buffer {
  const lines = [`${request.method ?? 'GET'} ${request.target ?? '/'} HTTP/${request.version ?? '1.1'}`];
  const headers = [...(request.headers ?? [])];
  const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
  const hasFraming = headers.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name));
  if (body !== undefined && !hasFraming) headers.push(['Content-Length', String(body.length)]);
  if (request.close ?? true) headers.push(['Connection', 'close']);
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return body === undefined ? head : Buffer.concat([head, body]);
}

function parseResponse(data: Buffer): Omit<RawResponse, 'closedByServer'> | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine, ...headerLines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '');
  if (match === null) return undefined;
  const headers: Record<string, string[]> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    (headers[name] ??= []).push(line.slice(colon + 1).trim());
  }
  const length = Number(headers['content-length']?.[0] ?? '0');
  const body = data.subarray(end + 4, end + 4 + length).toString('utf8');
  return { status: Number(match[1]), headers, body, raw: data.toString('latin1') };
}

/** errorCode returns the `error.code` of a JSON error body, or undefined. */
export function errorCode(response: RawResponse): string | undefined {
  try {
    return (JSON.parse(response.body) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

/** corsHeaders lists any Access-Control-* header names of a response (there must be none). */
export function corsHeaders(response: RawResponse): string[] {
  return Object.keys(response.headers).filter((name) => name.startsWith('access-control-'));
}
