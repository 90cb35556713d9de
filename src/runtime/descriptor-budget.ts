/**
 * How many connections each listener may hold, from the file descriptors this process may open
 * (`ulimit -n`). The 256-connection cap means nothing under a limit of 64: the process runs out
 * of descriptors first, and then accept() fails silently and every request stalls — /health and
 * the other listener too. Derived from the limit, the cap refuses (and logs) new connections
 * while descriptors are still left for the files and cloud connections that serving needs
 * (docs/decisions.md §24.5).
 */
import type { LimitValue } from './process-limits.js';

/**
 * Descriptors kept for everything but inbound connections: about 25 once listening (stdio, epoll,
 * the listening sockets, state.journal), plus audit.log, audit.head, the audit lock, config and
 * key reads while serving.
 */
export const DESCRIPTORS_RESERVED = 48;

/** Descriptors one connection may need: its socket, and the cloud connection its request may open. */
export const DESCRIPTORS_PER_CONNECTION = 2;

/**
 * connectionsMaxFor returns each listener's connection cap: wanted (the configured cap), or less
 * when openFiles cannot hold that many for every listener; at least 1.
 */
export function connectionsMaxFor(openFiles: LimitValue, listeners: number, wanted: number): number {
  if (typeof openFiles !== 'number') return wanted;
  const fits = Math.floor((openFiles - DESCRIPTORS_RESERVED) / (DESCRIPTORS_PER_CONNECTION * Math.max(1, listeners)));
  return Math.max(1, Math.min(wanted, fits));
}
