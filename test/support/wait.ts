/** Waiting in tests: every wait has a deadline and says what it waited for when it runs out. */

/** A generous default: the machine running the tests may be loaded. */
export const WAIT_MS_DEFAULT = 20_000;

/**
 * waitUntil polls `check` (sync or async) until it returns a value other than undefined or false,
 * and returns that value; past `timeoutMs` it fails with `message`.
 */
export async function waitUntil<T>(check: () => T | undefined | false | Promise<T | undefined | false>, message: string, timeoutMs = WAIT_MS_DEFAULT, pollMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${message}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
