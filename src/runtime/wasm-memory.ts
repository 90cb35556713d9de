/**
 * Whether this process can run Node's fetch. fetch parses HTTP with llhttp compiled to
 * WebAssembly, and on 64-bit Linux V8 reserves about 10 GiB of address space for every
 * WebAssembly memory (its bounds checks trap in guard pages). Under an address-space limit
 * (`ulimit -v`) of 8 GiB or less that reservation fails, and Node 20's fetch reports it as an
 * unhandled rejection (`RangeError: WebAssembly.instantiate(): Out of memory … lazyllhttp`),
 * which kills the process — an embedding host too, whatever its try/catch (nodejs/node#56596).
 *
 * Latch keeps fetch for the cloud client (docs/decisions.md §24.1) and asks first: a WebAssembly
 * memory of one page needs the same reservation. The daemon asks before it binds anything, and the
 * cloud client asks before its first request, so fetch is never called where it would crash.
 */
import { LatchError } from '../errors/latch-error.js';
import { readProcessLimits, type LimitValue } from './process-limits.js';

// The WebAssembly global, typed here: this project's compiler settings carry no DOM library.
const wasm = (globalThis as unknown as { WebAssembly: { Memory: new (descriptor: { initial: number }) => object } }).WebAssembly;

let memoryAllocates: boolean | undefined;

/** wasmMemoryAvailable reports whether a WebAssembly memory can be made here (asked once per process). */
export function wasmMemoryAvailable(): boolean {
  if (memoryAllocates === undefined) {
    try {
      new wasm.Memory({ initial: 1 });
      memoryAllocates = true;
    } catch {
      memoryAllocates = false;
    }
  }
  return memoryAllocates;
}

/** assertFetchCanRun throws fetch_unavailable, naming the limit and the remedy, when fetch would crash. */
export function assertFetchCanRun(): void {
  if (!wasmMemoryAvailable()) throw fetchUnavailable(readProcessLimits().addressSpaceBytes);
}

/** fetchUnavailable is the error, with the address-space limit when it is known. */
export function fetchUnavailable(limit: LimitValue): LatchError {
  const named = typeof limit === 'number' ? ` (ulimit -v ${Math.floor(limit / 1024)}, ${formatGiB(limit)})` : '';
  return new LatchError('fetch_unavailable', {
    message: `This process cannot run fetch, which the cloud client needs: its address-space limit${named} is below the ~10 GiB V8 reserves for fetch's WebAssembly HTTP parser (nodejs/node#56596).`,
  });
}

function formatGiB(bytes: number): string {
  return `${Math.round((bytes / 2 ** 30) * 10) / 10} GiB`;
}
