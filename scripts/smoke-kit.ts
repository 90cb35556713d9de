/**
 * What the smoke scripts share: a checklist that prints one line per check and a closing
 * "smoke: N passed, M failed" line, JSON over HTTP with a deadline, and a watchdog that ends every
 * child and the script when a run takes too long, so that CI can never hang on a smoke test.
 */
import { killAll } from './latch-process.js';

/** CheckFailed ends a run after a failed check, which the checklist has already reported. */
class CheckFailed extends Error {
  constructor(name: string) {
    super(`check failed: ${name}`);
    this.name = 'CheckFailed';
  }
}

/** Checklist runs named checks in order and stops at the first failure. */
export class Checklist {
  private passed = 0;
  private failed = 0;

  constructor(private readonly title: string) {}

  /** check runs one check; a thrown error fails it and ends the run (CheckFailed), so later checks do not run. */
  async check<T>(name: string, body: () => Promise<T> | T): Promise<T> {
    const started = performance.now();
    try {
      const value = await body();
      this.passed += 1;
      console.log(`ok ${this.passed + this.failed} - ${this.title}: ${name} (${Math.round(performance.now() - started)} ms)`);
      return value;
    } catch (error) {
      this.failed += 1;
      console.log(`not ok ${this.passed + this.failed} - ${this.title}: ${name}`);
      console.log(`  ${error instanceof Error ? error.message : String(error)}`.replaceAll('\n', '\n  '));
      throw new CheckFailed(name);
    }
  }

  /**
   * settle takes an error that ended the run: a check's own failure is already counted, anything
   * thrown between checks (a missing binary, a bug in the script) is counted here.
   */
  settle(error: unknown): void {
    if (error instanceof CheckFailed) return;
    this.failed += 1;
    console.log(`not ok ${this.passed + this.failed} - ${this.title}: the run itself failed`);
    console.log(`  ${error instanceof Error ? error.message : String(error)}`);
  }

  /** summary prints the closing line and returns the exit code: 0 only when checks ran and all passed. */
  summary(): number {
    console.log(`smoke: ${this.passed} passed, ${this.failed} failed`);
    return this.failed === 0 && this.passed > 0 ? 0 : 1;
  }
}

/** An HTTP answer with its JSON body (undefined when the body is not JSON). */
export interface JsonAnswer {
  status: number;
  body: any;
}

/** requestJson sends one request with a 10 s deadline and parses the answer. */
export async function requestJson(url: string, options: { method?: string; body?: unknown; bearer?: string } = {}): Promise<JsonAnswer> {
  const headers: Record<string, string> = {};
  if (options.bearer !== undefined) headers['authorization'] = `Bearer ${options.bearer}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body };
}

/** expect throws with what was seen when a condition does not hold. */
export function expect(condition: boolean, what: string, seen?: unknown): asserts condition {
  if (!condition) throw new Error(`${what}${seen === undefined ? '' : `; got ${JSON.stringify(seen)}`}`);
}

/**
 * watchdog ends every child process and then this script after limitMs. The returned function
 * disarms it once the script finished on its own.
 */
export function watchdog(limitMs: number, name: string): () => void {
  const timer = setTimeout(() => {
    console.log(`not ok - ${name}: still running after ${limitMs / 1000} s; every child was killed`);
    console.log('smoke: 0 passed, 1 failed');
    killAll();
    process.exit(1);
  }, limitMs);
  return () => clearTimeout(timer);
}
