import { lstatSync, statSync, watch, type BigIntStats, type FSWatcher } from 'node:fs';
import path from 'node:path';

/**
 * How long a file's identity, once checked, is trusted without a watch event (docs/decisions.md
 * §39.3). A change the watch reports is seen on the next call; one it cannot report (a repointed
 * link to a directory, a file system without inotify, a watch the system refused) within this.
 */
export const RECHECK_AFTER_MS = 100;

/** How a getter notices a change: on every call (credentials), or through a watch and an interval. */
export interface ReloadOptions {
  /**
   * Check the file's identity on every call: for the bearer tokens, whose rotation must refuse the
   * old token on the very next request (SECURITY.md), which a watch's event could reach a turn late.
   */
  everyCall?: boolean;
  /** The clock of the recheck interval (performance.now); tests pass their own. */
  clockMs?: () => number;
}

/**
 * reloadOnChange returns a getter for a value loaded from a file, which loads it again whenever
 * the file's identity (inode, size, modification and change times, mode, owner) differs from the
 * last load. Unless everyCall, the identity is checked again when a watch on the file's directory
 * reports an event for its name (a rename into place, a deletion, a chmod, a write), and otherwise
 * at most once per RECHECK_AFTER_MS, instead of one lstat per call (docs/decisions.md §39.3). A
 * file made unsafe while the daemon runs is re-checked and refused rather than served from memory.
 * A load that throws is not cached: the next call tries again. A call with fresh checks the
 * identity now, whatever the watch and the interval say: for a reader that has seen two files
 * disagree (config.json naming a key device.key is not yet) and must see them as they stand.
 */
export function reloadOnChange<T>(file: string, load: () => T, options: ReloadOptions = {}): (fresh?: boolean) => T {
  let loadedIdentity: FileIdentity | undefined;
  let value: T;
  let checkedAtMs = -Infinity;
  const clockMs = options.clockMs ?? (() => performance.now());
  const watched = options.everyCall === true ? alwaysChanged({ changed: true }) : watchName(file);
  return (fresh = false) => {
    const nowMs = clockMs();
    if (!fresh && loadedIdentity !== undefined && !watched.changed && nowMs - checkedAtMs < RECHECK_AFTER_MS) return value;
    watched.changed = false;
    const identity = fileIdentity(file);
    if (loadedIdentity === undefined || !sameIdentity(identity, loadedIdentity)) {
      loadedIdentity = undefined;
      value = load();
      loadedIdentity = identity;
    }
    checkedAtMs = nowMs;
    return value;
  };
}

/** A name's flag, set by its directory's watch (or at once when there is no watch). */
interface WatchedName {
  changed: boolean;
}

/** One watch per directory, shared by every getter of a name in it; each name's flags. */
const directories = new Map<string, { watcher: FSWatcher | undefined; names: Map<string, Set<WatchedName>> }>();

/**
 * watchName returns the flag that the watch of file's directory sets when an event names the file
 * (or names nothing, which may be anything). Without a watch (refused, closed, failed) the flag
 * stays set, so every call checks the identity as before this change.
 */
function watchName(file: string): WatchedName {
  const directory = path.dirname(path.resolve(file));
  const name = path.basename(file);
  let entry = directories.get(directory);
  if (entry === undefined) {
    const created = { watcher: undefined as FSWatcher | undefined, names: new Map<string, Set<WatchedName>>() };
    entry = created;
    directories.set(directory, created);
    try {
      // Not persistent: a watch never keeps a process alive.
      created.watcher = watch(directory, { persistent: false }, (_event, changedName) => {
        const flags = changedName === null ? [...created.names.values()].flatMap((set) => [...set]) : [...(created.names.get(changedName.toString()) ?? [])];
        for (const flag of flags) flag.changed = true;
      });
      created.watcher.on('error', () => stopWatching(directory));
    } catch {
      created.watcher = undefined;
    }
  }
  const flag: WatchedName = { changed: true };
  if (entry.watcher === undefined) return alwaysChanged(flag);
  let flags = entry.names.get(name);
  if (flags === undefined) entry.names.set(name, (flags = new Set()));
  flags.add(flag);
  return flag;
}

/** alwaysChanged makes a flag that cannot be cleared: every call checks the file. */
function alwaysChanged(flag: WatchedName): WatchedName {
  return Object.defineProperty(flag, 'changed', { get: () => true, set: () => undefined });
}

/** stopWatching closes a directory's watch that failed (the directory was removed, the watch limit); its names are checked on every call from then on. */
function stopWatching(directory: string): void {
  const entry = directories.get(directory);
  if (entry === undefined) return;
  directories.delete(directory);
  entry.watcher?.close();
  for (const flags of entry.names.values()) for (const flag of flags) alwaysChanged(flag);
}

/** A path's stats (undefined when absent) and, when it is a symbolic link, its target's. */
interface FileIdentity {
  path: BigIntStats | undefined;
  target?: BigIntStats | undefined;
}

/**
 * fileIdentity describes the path itself and, when it is a symbolic link (a data directory may
 * be reached through one), its target too, so that a chmod or chown of either counts as a change.
 * An absent file is an identity too (no exception: a thrown ENOENT costs several times the lstat).
 */
function fileIdentity(file: string): FileIdentity {
  const stats = lstatSync(file, { bigint: true, throwIfNoEntry: false });
  return stats?.isSymbolicLink() === true ? { path: stats, target: statSync(file, { bigint: true, throwIfNoEntry: false }) } : { path: stats };
}

function sameIdentity(now: FileIdentity, before: FileIdentity): boolean {
  return sameStats(now.path, before.path) && sameStats(now.target, before.target);
}

/** sameStats compares what identifies a file's content and safety: inode, size, times, mode, owner. */
function sameStats(now: BigIntStats | undefined, before: BigIntStats | undefined): boolean {
  if (now === undefined || before === undefined) return now === before;
  return (
    now.dev === before.dev &&
    now.ino === before.ino &&
    now.size === before.size &&
    now.mtimeNs === before.mtimeNs &&
    now.ctimeNs === before.ctimeNs &&
    now.mode === before.mode &&
    now.uid === before.uid
  );
}

/**
 * oncePerTurn runs check at most once per synchronous run of the event loop: the calls made
 * before the current code yields share one run of it. Nothing else can run in between, in this
 * process or in how the daemon sees the files, so it only drops repeats (resolving the device key
 * asks for the data directory's check once per file it reads). The first call after the turn
 * ends runs it again.
 */
export function oncePerTurn(check: () => void): () => void {
  let checkedThisTurn = false;
  return () => {
    if (checkedThisTurn) return;
    check();
    checkedThisTurn = true;
    queueMicrotask(() => {
      checkedThisTurn = false;
    });
  };
}
