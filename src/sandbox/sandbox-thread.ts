/**
 * The quick start's sandbox on a thread of its own (docs/decisions.md §39.5): `latch start` (and so
 * `npm start`) runs the daemon on the main thread and the sandbox cloud in a worker, so the
 * embedded default uses two cores instead of sharing one event loop. One process, one command, one
 * Ctrl-C: signals reach the main thread, which stops the daemon and then closes the sandbox within
 * what is left of the same deadline; a thread that has not ended by then is terminated.
 *
 * Where a worker cannot load the sandbox's code (the single binary, whose script is not a file),
 * it runs on the main thread as before, with the same interface.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DataDirError } from '../datadir/data-dir-error.js';
import type { EventLog } from '../http/event-log.js';
import { createSandbox } from './create-sandbox.js';
import { SANDBOX_THREAD_ROLE, type FromSandboxThread, type SandboxQuestion, type SandboxThreadOptions, type ThreadError, type ToSandboxThread } from './sandbox-thread-main.js';

/** The quick start's sandbox, wherever it runs: what `latch start` needs of it. */
export interface QuickStartSandbox {
  url: string;
  adminKey: string;
  adminKeyPath: string;
  /** Where it runs: 'worker' (its own thread) or 'main' (this thread; the single binary). */
  thread: 'worker' | 'main';
  /** knowsDevice reports whether the sandbox's ledger has the device. */
  knowsDevice(deviceId: string): Promise<boolean>;
  /** firstCard is the account's first open card, for the printed curl commands. */
  firstCard(accountId: string | undefined): Promise<string | undefined>;
  /** close stops it within deadlineMs (connections still open then are cut; a thread still running is terminated). */
  close(options: { deadlineMs: number }): Promise<void>;
}

/** What the quick start asks for. */
export interface QuickStartSandboxOptions {
  dataDir: string;
  port: number;
  /** Where a sandbox on this thread logs (a worker's log goes to this process's stderr). */
  log: EventLog;
  /** Told when the thread ends while it should be serving (a crash), with the reason. */
  onUnexpectedExit?: (reason: string) => void;
}

/** startQuickStartSandbox opens the sandbox on its own thread where it can, else on this one. */
export async function startQuickStartSandbox(options: QuickStartSandboxOptions): Promise<QuickStartSandbox> {
  const entry = workerEntry();
  return entry === undefined ? onThisThread(options) : onItsOwnThread(entry, options);
}

/**
 * workerEntry is the module the worker loads: from sources, a plain-JavaScript module beside this
 * one that registers tsx's loader first (Node 20 does not pass a loader given with --import on to
 * workers; sandbox-thread-tsx.mjs); from an ESM build, the thread's module itself; from the
 * CommonJS bundle, the bundle (bin-entry.ts serves the sandbox when it is loaded as this worker);
 * none in a single binary, whose script is not a file.
 */
function workerEntry(): URL | undefined {
  const meta = import.meta as Partial<ImportMeta>;
  if (typeof meta.url === 'string' && meta.url !== '') {
    const fromSources = path.extname(new URL(meta.url).pathname) === '.ts';
    return new URL(fromSources ? './sandbox-thread-tsx.mjs' : './sandbox-thread-main.js', meta.url);
  }
  const getBuiltinModule = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  const sea = getBuiltinModule?.call(process, 'node:sea') as { isSea?: () => boolean } | undefined;
  if (sea?.isSea?.() === true || typeof __filename !== 'string') return undefined;
  return pathToFileURL(__filename);
}

async function onThisThread(options: QuickStartSandboxOptions): Promise<QuickStartSandbox> {
  const sandbox = await createSandbox({ dataDir: options.dataDir, port: options.port, log: options.log });
  return {
    url: sandbox.url,
    adminKey: sandbox.adminKey,
    adminKeyPath: sandbox.adminKeyPath,
    thread: 'main',
    knowsDevice: async (deviceId) => sandbox.state().devices.has(deviceId),
    firstCard: async (accountId) => [...sandbox.state().cards.values()].find((card) => card.account_id === accountId && !card.closed)?.card_id,
    close: (closeOptions) => sandbox.close(closeOptions),
  };
}

async function onItsOwnThread(entry: URL, options: QuickStartSandboxOptions): Promise<QuickStartSandbox> {
  const workerData: SandboxThreadOptions = { role: SANDBOX_THREAD_ROLE, dataDir: options.dataDir, port: options.port };
  const worker = new Worker(entry, { workerData });
  let closing = false;
  let nextId = 0;
  const answers = new Map<number, (value: boolean | string | null) => void>();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let failStart: ((error: unknown) => void) | undefined;
  const endedEarly = (code: number): void => failStart?.(new Error(`the sandbox thread ended before it was ready (exit code ${code})`));
  const failedEarly = (error: unknown): void => failStart?.(error);
  worker.once('error', failedEarly);
  worker.once('exit', endedEarly);
  const ready = await new Promise<Extract<FromSandboxThread, { type: 'ready' }>>((resolve, reject) => {
    failStart = reject;
    worker.on('message', (message: FromSandboxThread) => {
      if (message.type === 'ready') resolve(message);
      else if (message.type === 'failed') reject(rebuilt(message.error));
      else if (message.type === 'answer') answers.get(message.id)?.(message.value);
    });
  }).finally(() => {
    worker.off('error', failedEarly);
    worker.off('exit', endedEarly);
  });
  worker.on('error', (error) => {
    if (!closing) options.onUnexpectedExit?.(error instanceof Error ? error.message : String(error));
  });
  worker.on('exit', (code) => {
    for (const settle of answers.values()) settle(null);
    if (!closing) options.onUnexpectedExit?.(`exit code ${code}`);
  });
  const ask = (question: SandboxQuestion): Promise<boolean | string | null> =>
    new Promise((resolve) => {
      const id = nextId++;
      answers.set(id, (value) => {
        answers.delete(id);
        resolve(value);
      });
      worker.postMessage({ type: 'ask', id, question } satisfies ToSandboxThread);
    });
  let closed: Promise<void> | undefined;
  return {
    url: ready.url,
    adminKey: ready.adminKey,
    adminKeyPath: ready.adminKeyPath,
    thread: 'worker',
    knowsDevice: async (deviceId) => (await ask({ kind: 'device_known', deviceId })) === true,
    firstCard: async (accountId) => {
      const card = await ask({ kind: 'first_card', accountId });
      return typeof card === 'string' ? card : undefined;
    },
    close: ({ deadlineMs }) => {
      closed ??= (async () => {
        closing = true;
        worker.postMessage({ type: 'close', deadlineMs } satisfies ToSandboxThread);
        // The sandbox cuts what is still open at its deadline; a thread not ended shortly after is stopped.
        const cut = setTimeout(() => void worker.terminate(), Math.max(0, deadlineMs) + 250);
        await exited;
        clearTimeout(cut);
      })();
      return closed;
    },
  };
}

/** rebuilt turns an error from the thread back into what the CLI reports: a DataDirError, or an Error with its code. */
function rebuilt(error: ThreadError): Error {
  if (error.name === 'DataDirError' && error.file !== undefined && error.fix !== undefined) {
    return Object.assign(Object.create(DataDirError.prototype) as DataDirError, { name: error.name, message: error.message, code: error.code, file: error.file, fix: error.fix });
  }
  return Object.assign(new Error(error.message), error);
}
