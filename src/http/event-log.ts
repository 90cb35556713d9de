/**
 * EventLog is the part of the logger the HTTP layer needs: one structured line per event. The
 * fields it is given never hold a token, a body, a query value or a raw path.
 */
export interface EventLog {
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
}
