import { REDACTED, redactString, redactValue } from './redact.js';

/** Log levels in increasing severity; `silent` writes nothing. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** Where log lines go: anything with a `write(text)` method, process.stderr by default. */
export interface LogStream {
  write(chunk: string): unknown;
}

/** What createLogger accepts. */
export interface LoggerOptions {
  stream?: LogStream;
  /** The least severe level written; `info` by default. */
  level?: LogLevel;
  /** The clock for each line's `time`; tests pass a fixed one. */
  now?: () => Date;
}

/**
 * Logger writes one JSON object per line: `{"time", "level", "event", ...fields}`. Field values
 * are redacted (see redactValue) and never carry registered secrets, secret-named fields, card
 * numbers or stack traces. Logging never throws.
 */
export interface Logger {
  debug(event: string, fields?: Record<string, unknown>): void;
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
  /**
   * addSecret registers a value (the daemon token, the sandbox admin key) that is replaced by
   * "[redacted]" wherever it appears in any later line. Values shorter than 8 characters are a
   * programmer error: redacting them would mangle ordinary text.
   */
  addSecret(value: string): void;
}

const SEVERITY: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_CHARS_MIN = 8;
// Rotations add a secret each time; the oldest are dropped beyond this many.
const SECRETS_MAX = 256;
const EVENT_SHAPE = /^[a-z][a-z0-9_.]{0,63}$/;
const LINE_CHARS_MAX = 64 * 1024;
const RESERVED_FIELDS: ReadonlySet<string> = new Set(['time', 'level', 'event']);

/** createLogger returns a Logger that writes structured JSON lines to options.stream (stderr by default). */
export function createLogger(options: LoggerOptions = {}): Logger {
  const stream = options.stream ?? process.stderr;
  const threshold = SEVERITY[options.level ?? 'info'];
  const now = options.now ?? (() => new Date());
  const secrets = new Set<string>();

  const write = (level: Exclude<LogLevel, 'silent'>, event: string, fields: Record<string, unknown> | undefined): void => {
    if (SEVERITY[level] < threshold) return;
    try {
      stream.write(`${formatLine(now(), level, event, fields, secrets)}\n`);
    } catch {
      // A closed stderr must not take the daemon down with it; there is nowhere left to report to.
    }
  };

  return {
    debug: (event, fields) => write('debug', event, fields),
    info: (event, fields) => write('info', event, fields),
    warn: (event, fields) => write('warn', event, fields),
    error: (event, fields) => write('error', event, fields),
    addSecret(value: string): void {
      if (typeof value !== 'string' || value.length < SECRET_CHARS_MIN) {
        throw new TypeError(`addSecret: a secret must be a string of at least ${SECRET_CHARS_MIN} characters`);
      }
      secrets.delete(value);
      secrets.add(value);
      if (secrets.size > SECRETS_MAX) secrets.delete(secrets.values().next().value as string);
    },
  };
}

/**
 * formatLine renders one log line (without the newline). Field names that collide with `time`,
 * `level` or `event` are prefixed with `field_` so that a field can never forge them.
 */
export function formatLine(time: Date, level: string, event: string, fields: Record<string, unknown> | undefined, secrets: ReadonlySet<string>): string {
  const line: Record<string, unknown> = { time: time.toISOString(), level, event: safeEvent(event, secrets) };
  const redacted = fields === undefined ? {} : redactValue(fields, secrets);
  if (typeof redacted === 'object' && redacted !== null && !Array.isArray(redacted)) {
    for (const [key, value] of Object.entries(redacted)) {
      const name = RESERVED_FIELDS.has(key) ? `field_${key}` : key;
      Object.defineProperty(line, name, { value, enumerable: true, writable: true, configurable: true });
    }
  }
  const text = JSON.stringify(line);
  if (text.length <= LINE_CHARS_MAX) return text;
  return JSON.stringify({ time: line['time'], level, event: line['event'], truncated: true });
}

function safeEvent(event: string, secrets: ReadonlySet<string>): string {
  // Event names are constants in code; anything else is written redacted rather than dropped.
  if (typeof event === 'string' && EVENT_SHAPE.test(event) && !containsSecret(event, secrets)) return event;
  return typeof event === 'string' ? redactString(event, secrets).slice(0, 64) : REDACTED;
}

function containsSecret(text: string, secrets: ReadonlySet<string>): boolean {
  for (const secret of secrets) if (text.includes(secret)) return true;
  return false;
}
