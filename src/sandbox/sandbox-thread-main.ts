/**
 * The sandbox cloud's side of its thread (docs/decisions.md §39.5): what runs inside the worker
 * `latch start` makes, so the quick start's sandbox has an event loop (and so a core) of its own.
 * It opens the sandbox, says where it listens, answers the two questions the quick start asks
 * of its state, and closes it when told, within the deadline it is given.
 *
 * Loaded as the worker's own module (from sources), it serves at once; the CommonJS bundle, which
 * has no separate file to load, runs itself as the worker and calls serveSandboxThread from
 * src/cli/bin-entry.ts.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../log/logger.js';
import { createSandbox, type Sandbox } from './create-sandbox.js';

/** What marks a worker as the sandbox's thread, in workerData. */
export const SANDBOX_THREAD_ROLE = 'latch-sandbox-thread';

/** What the quick start gives the thread. */
export interface SandboxThreadOptions {
  role: typeof SANDBOX_THREAD_ROLE;
  dataDir: string;
  port: number;
}

/** A question about the sandbox's state, answered from inside its thread. */
export type SandboxQuestion = { kind: 'device_known'; deviceId: string } | { kind: 'first_card'; accountId: string | undefined };

/** The messages from the thread: ready (or failed to start), an answer, closed. */
export type FromSandboxThread =
  | { type: 'ready'; url: string; port: number; adminKey: string; adminKeyPath: string; journalPath: string }
  | { type: 'failed'; error: ThreadError }
  | { type: 'answer'; id: number; value: boolean | string | null }
  | { type: 'closed' };

/** The messages to the thread. */
export type ToSandboxThread = { type: 'ask'; id: number; question: SandboxQuestion } | { type: 'close'; deadlineMs: number };

/** An error as it crosses the thread: its class's name and the fields the CLI reports from. */
export interface ThreadError {
  name: string;
  message: string;
  code?: string;
  syscall?: string;
  port?: number;
  address?: string;
  file?: string;
  fix?: string;
}

/** isSandboxThread reports whether this code runs as the quick start's sandbox thread. */
export function isSandboxThread(): boolean {
  return !isMainThread && (workerData as Partial<SandboxThreadOptions> | null)?.role === SANDBOX_THREAD_ROLE;
}

let serving = false;

/** serveSandboxThread opens the sandbox in this thread and serves the quick start's messages. */
export function serveSandboxThread(): void {
  if (serving || !isSandboxThread() || parentPort === null) return;
  serving = true;
  const port = parentPort;
  const options = workerData as SandboxThreadOptions;
  const send = (message: FromSandboxThread): void => port.postMessage(message);
  createSandbox({ dataDir: options.dataDir, port: options.port, log: createLogger({ stream: process.stderr }) }).then(
    (sandbox) => {
      port.on('message', (message: ToSandboxThread) => {
        if (message.type === 'ask') send({ type: 'answer', id: message.id, value: answer(sandbox, message.question) });
        else
          void sandbox.close({ deadlineMs: message.deadlineMs }).finally(() => {
            send({ type: 'closed' });
            // Nothing is left to keep this thread: it ends, and its loop with it.
            port.close();
          });
      });
      send({ type: 'ready', url: sandbox.url, port: sandbox.port, adminKey: sandbox.adminKey, adminKeyPath: sandbox.adminKeyPath, journalPath: sandbox.journalPath });
    },
    (error: unknown) => {
      send({ type: 'failed', error: threadError(error) });
      port.close();
    },
  );
}

/** answer reads the sandbox's live state: whether it knows a device, an account's first open card. */
function answer(sandbox: Sandbox, question: SandboxQuestion): boolean | string | null {
  const state = sandbox.state();
  if (question.kind === 'device_known') return state.devices.has(question.deviceId);
  for (const card of state.cards.values()) {
    if (card.account_id === question.accountId && !card.closed) return card.card_id;
  }
  return null;
}

function threadError(error: unknown): ThreadError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const fields = error as Error & Partial<Omit<ThreadError, 'name' | 'message'>>;
  const copy: ThreadError = { name: error.name, message: error.message };
  for (const key of ['code', 'syscall', 'address', 'file', 'fix'] as const) if (typeof fields[key] === 'string') copy[key] = fields[key];
  if (typeof fields.port === 'number') copy.port = fields.port;
  return copy;
}

// Started as the worker's module (from sources): serve at once.
serveSandboxThread();
