import { StringDecoder } from 'node:string_decoder';

/** Standard input as the CLI sees it: a stream that, on a terminal, can be put in raw mode. */
export interface TerminalInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(raw: boolean): unknown;
}

/** The keys prompts act on. In raw mode the terminal sends these bytes instead of signals or edits. */
export const KEY = { enter: '\r', newline: '\n', ctrlC: '\u0003', ctrlD: '\u0004', ctrlU: '\u0015', backspace: '\u007f', ctrlH: '\b' } as const;

// Escape sequences (arrow keys, function keys, bracketed paste markers) are not input to any prompt.
const ESCAPE_SEQUENCE = /\u001b(?:\[[0-9;?]*[ -/]*[@-~]|O.|.)?/g;
// A prompt never needs more than this many keys waiting; a flood beyond it is dropped.
const QUEUED_KEYS_MAX = 8192;

/**
 * KeyInput reads standard input key by key. On a terminal it switches raw mode on (so nothing is
 * echoed by the terminal, and Ctrl-C arrives as a key rather than SIGINT) and always back off in
 * stop(). Keys typed while no prompt is waiting are kept until discardPending(): a prompt that
 * decides something first throws them away, so a stray key can never answer a question that was
 * not on the screen yet.
 */
/** What next() resolves with after withdraw(): longer than one key, so never typed. */
export const WITHDRAWN = '\u0000withdrawn';

export class KeyInput {
  private readonly queue: string[] = [];
  private waiter: ((key: string | null) => void) | undefined;
  private ended = false;
  private interruptListeners: Array<() => void> = [];
  private readonly decoder = new StringDecoder('utf8');
  private readonly onData = (chunk: Buffer | string): void => this.push(typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
  private readonly onEnd = (): void => {
    this.ended = true;
    this.deliver(null);
  };

  constructor(private readonly stream: TerminalInput) {}

  /** isTerminal reports whether standard input is a terminal (only then can input go unechoed). */
  get isTerminal(): boolean {
    return this.stream.isTTY === true && typeof this.stream.setRawMode === 'function';
  }

  /** start begins reading; on a terminal it turns raw mode on. */
  start(): void {
    if (this.isTerminal) this.stream.setRawMode?.(true);
    this.stream.on('data', this.onData);
    this.stream.on('end', this.onEnd);
    this.stream.resume();
  }

  /** stop restores the terminal and stops reading, so the process can exit. */
  stop(): void {
    this.stream.off('data', this.onData);
    this.stream.off('end', this.onEnd);
    if (this.isTerminal) this.stream.setRawMode?.(false);
    this.stream.pause();
  }

  /** onInterrupt calls listener at every Ctrl-C, whether or not a prompt is waiting. */
  onInterrupt(listener: () => void): void {
    this.interruptListeners.push(listener);
  }

  /** next resolves with the next key, or null when the input has ended. */
  next(): Promise<string | null> {
    const key = this.queue.shift();
    if (key !== undefined) return Promise.resolve(key);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /**
   * withdraw ends the wait of a prompt that no longer applies (the question was answered
   * elsewhere): the waiting next() resolves with WITHDRAWN, which no key can be.
   */
  withdraw(): void {
    this.deliver(WITHDRAWN);
  }

  /**
   * discardPending drops the keys typed before the question they would otherwise answer. It first
   * lets input already waiting to be read arrive (setImmediate runs after the event loop's I/O
   * poll), so type-ahead that reaches the process just after raw mode went on is dropped too.
   */
  async discardPending(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.queue.length = 0;
  }

  private push(text: string): void {
    // A terminal sends Enter as \r; a pipe or a pasted Windows line ends with \r\n: one Enter.
    for (const key of Array.from(text.replace(ESCAPE_SEQUENCE, '').replace(/\r\n/g, '\r'))) {
      if (key === KEY.ctrlC) for (const listener of this.interruptListeners) listener();
      if (this.waiter !== undefined) this.deliver(key);
      else if (this.queue.length < QUEUED_KEYS_MAX) this.queue.push(key);
    }
  }

  private deliver(key: string | null): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(key);
  }
}
