/**
 * Questions the CLI asks a person on the terminal: a secret read without echo, a line of text, a
 * single-key choice. Prompts go to stderr, so that stdout stays the command's output.
 */
import { KEY, WITHDRAWN, type KeyInput } from './key-input.js';

/** PromptInterrupted is Ctrl-C at a prompt: the command stops and exits 130. */
export class PromptInterrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'PromptInterrupted';
  }
}

/** InputEnded is the end of standard input (Ctrl-D on an empty line, or a closed pipe) at a prompt. */
export class InputEnded extends Error {
  constructor() {
    super('standard input ended');
    this.name = 'InputEnded';
  }
}

/** PromptWithdrawn is a question taken off the screen because it no longer applies (its signal aborted). */
export class PromptWithdrawn extends Error {
  constructor() {
    super('the question no longer applies');
    this.name = 'PromptWithdrawn';
  }
}

// Longer than any passphrase or reason the daemon accepts; typing beyond it is ignored.
const LINE_CHARS_MAX = 4096;

/**
 * readSecret reads a line without showing it: nothing is written for the keys typed (not even
 * asterisks, which would reveal the length). Backspace deletes, Ctrl-U clears, Enter ends,
 * Ctrl-C throws PromptInterrupted. The caller must have the terminal in raw mode (KeyInput.start).
 */
export function readSecret(keys: KeyInput, out: NodeJS.WritableStream, prompt: string): Promise<string> {
  return readLine(keys, out, prompt, false);
}

/** readText reads a line that is shown as it is typed (a reason, for example), with the same editing keys. */
export function readText(keys: KeyInput, out: NodeJS.WritableStream, prompt: string): Promise<string> {
  return readLine(keys, out, prompt, true);
}

async function readLine(keys: KeyInput, out: NodeJS.WritableStream, prompt: string, echo: boolean): Promise<string> {
  out.write(prompt);
  const chars: string[] = [];
  for (;;) {
    const key = await keys.next();
    if (key === null || (key === KEY.ctrlD && chars.length === 0)) {
      out.write('\n');
      throw new InputEnded();
    }
    if (key === KEY.ctrlC) {
      out.write('\n');
      throw new PromptInterrupted();
    }
    if (key === KEY.enter || key === KEY.newline) {
      out.write('\n');
      return chars.join('');
    }
    if (key === KEY.backspace || key === KEY.ctrlH) {
      if (chars.pop() !== undefined && echo) out.write('\b \b');
      continue;
    }
    if (key === KEY.ctrlU) {
      if (echo) out.write('\b \b'.repeat(chars.length));
      chars.length = 0;
      continue;
    }
    if (/\p{Cc}/u.test(key) || chars.length >= LINE_CHARS_MAX) continue;
    chars.push(key);
    if (echo) out.write(key);
  }
}

/**
 * readChoice asks for one key among choices (lower case) and returns it; keys typed before the
 * question are discarded first. Enter picks fallback when there is one (the [y/N] default). When
 * signal aborts, the question is withdrawn: PromptWithdrawn, and no key is taken.
 */
export async function readChoice<T extends string>(
  keys: KeyInput,
  out: NodeJS.WritableStream,
  prompt: string,
  choices: readonly T[],
  fallback?: T,
  signal?: AbortSignal,
): Promise<T> {
  await keys.discardPending();
  if (signal?.aborted === true) throw new PromptWithdrawn();
  out.write(prompt);
  const withdraw = (): void => keys.withdraw();
  signal?.addEventListener('abort', withdraw, { once: true });
  try {
    return await readChoiceKey(keys, out, choices, fallback, signal);
  } finally {
    signal?.removeEventListener('abort', withdraw);
  }
}

async function readChoiceKey<T extends string>(keys: KeyInput, out: NodeJS.WritableStream, choices: readonly T[], fallback: T | undefined, signal: AbortSignal | undefined): Promise<T> {
  for (;;) {
    // Checked before every wait too: an abort between two keys found no wait to end.
    const key = signal?.aborted === true ? WITHDRAWN : await keys.next();
    if (key === WITHDRAWN) {
      out.write('\n');
      throw new PromptWithdrawn();
    }
    if (key === null) {
      out.write('\n');
      throw new InputEnded();
    }
    if (key === KEY.ctrlC) {
      out.write('\n');
      throw new PromptInterrupted();
    }
    const choice = key === KEY.enter || key === KEY.newline ? fallback : (choices.find((c) => c === key.toLowerCase()) as T | undefined);
    if (choice === undefined) continue;
    out.write(`${choice}\n`);
    return choice;
  }
}
