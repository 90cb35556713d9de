// The quick start's sandbox thread when Latch runs from its TypeScript sources (npm start): Node 20
// does not hand a loader registered with --import on to a worker, so the worker registers tsx's
// own before it loads the thread's module (src/sandbox/sandbox-thread.ts, docs/decisions.md §39.5).
// Plain JavaScript, so that it loads without a loader; never part of a bundle.
import { register } from 'tsx/esm/api';

register();
await import('./sandbox-thread-main.ts');
