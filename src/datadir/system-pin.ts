/**
 * The system pin of the separate-user setup (docs/decisions.md §30): the daemon's key id and
 * address, written by root (`latch service install --system`, `latch daemon|start --user NAME`)
 * where only root can write, `/etc/latch/daemon.json`. The owner's client prefers it to anything
 * in the owner's own data directory, which every program running as the owner can rewrite.
 *
 * One file may pin several daemons, one per service user, and each names the accounts it is for
 * (docs/decisions.md §36): an account no entry names is not redirected. An entry without
 * `accounts` (the one-daemon format an older Latch wrote, `{"v":1,…}`) is for every account.
 *
 * A pin is trusted only when root alone could have put it there: the file is a regular file owned
 * by root and writable by nobody else, and every directory above it is owned by root and
 * writable by nobody else (a root-owned sticky directory such as /tmp counts: in it nobody but
 * root can rename or remove a root-owned entry). A pin that fails the check is an error, never
 * "no pin", so a client fails closed.
 */
import { closeSync, constants, fstatSync, fsyncSync, ftruncateSync, lstatSync, mkdirSync, openSync, readSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import path from 'node:path';

/**
 * Where root writes the pin. On macOS /etc is a symbolic link to /private/etc, and no link is
 * followed on the way to a pin, so the real path is named there.
 */
export const SYSTEM_PIN_PATH = process.platform === 'darwin' ? '/private/etc/latch/daemon.json' : '/etc/latch/daemon.json';
/**
 * The environment variable naming another pin file (for tests). The file it names must pass the
 * same root-ownership checks, so it can point only at a pin root wrote.
 */
export const SYSTEM_PIN_ENV = 'LATCH_SYSTEM_PIN';

/** What root pinned for one daemon: its key id, where it listens and keeps its data, and for whom. */
export interface SystemPin {
  /** The RFC 7638 thumbprint of the daemon's device key. */
  key_id: string;
  /** Variant A's origin, e.g. http://127.0.0.1:7723; absent when the port was not fixed. */
  url?: string;
  /** The daemon's data directory. */
  data_dir: string;
  /** The account the daemon runs as. */
  user: string;
  /**
   * The accounts whose latch commands this pin redirects (the owner, agents' own accounts);
   * undefined in a pin an older Latch wrote, which is for every account.
   */
  accounts?: string[];
}

/** Every daemon a pin file holds, in the file's order. */
export interface SystemPins {
  daemons: SystemPin[];
}

/** SystemPinError is a pin file that cannot be trusted or read; its message names the file and why. */
export class SystemPinError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SystemPinError';
  }
}

const PIN_BYTES_MAX = 16_384;
const DAEMONS_MAX = 32;
const ACCOUNTS_MAX = 64;
const ACCOUNT_SHAPE = /^[a-z_][a-z0-9_-]{0,31}$/;
const KEY_ID_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const URL_SHAPE = /^http:\/\/127\.0\.0\.1:[0-9]{1,5}$/;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** systemPinPath is LATCH_SYSTEM_PIN when set, else /etc/latch/daemon.json. */
export function systemPinPath(env: NodeJS.ProcessEnv): string {
  const named = env[SYSTEM_PIN_ENV];
  return named !== undefined && named !== '' ? named : SYSTEM_PIN_PATH;
}

/**
 * readSystemPins returns the daemons root pinned, or undefined when there is no pin file (or the
 * platform has no uids). It throws a SystemPinError when the file exists but could have been
 * written by someone other than root, or is not a pin, and when LATCH_SYSTEM_PIN names a file that
 * does not exist: a pin someone named and removed (or misspelled) must not quietly become "no
 * pin", which would send the client to the owner's own ~/.latch (issue 43).
 */
export function readSystemPins(env: NodeJS.ProcessEnv): SystemPins | undefined {
  if (process.platform === 'win32') return undefined;
  const file = systemPinPath(env);
  if (!path.isAbsolute(file)) throw new SystemPinError(`${SYSTEM_PIN_ENV} must be an absolute path`);
  try {
    lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      if (file === SYSTEM_PIN_PATH) return undefined;
      throw new SystemPinError(`${file}, which ${SYSTEM_PIN_ENV} names, does not exist; a named pin that is missing is no pin to trust (unset ${SYSTEM_PIN_ENV}, or pin the daemon there again as root)`);
    }
    throw new SystemPinError(`${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  assertRootOnlyDirectories(path.dirname(file));
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    throw new SystemPinError(`${file} cannot be opened (${(error as NodeJS.ErrnoException).code ?? 'error'}; a symbolic link is refused)`);
  }
  try {
    const stats = fstatSync(fd);
    assertRootOnly(stats, file, 'file');
    if (stats.size > PIN_BYTES_MAX) throw new SystemPinError(`${file} is larger than a pin`);
    const buffer = Buffer.alloc(PIN_BYTES_MAX);
    const read = readSync(fd, buffer, 0, PIN_BYTES_MAX, 0);
    const pin = parseSystemPins(buffer.subarray(0, read).toString('utf8'));
    if (pin === undefined) throw new SystemPinError(`${file} is not a Latch daemon pin; pin it again as root (sudo latch service install --system --force)`);
    return pin;
  } finally {
    closeSync(fd);
  }
}

/**
 * parseSystemPins returns the daemons a text pins, or undefined when it is not a pin: the
 * one-daemon format `{"v":1,key_id,url?,data_dir,user}` (for every account), or
 * `{"v":2,"daemons":[{key_id,url?,data_dir,user,accounts?}]}`.
 */
export function parseSystemPins(text: string): SystemPins | undefined {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  if (value['v'] === 1) {
    const pin = parseEntry({ ...value, accounts: undefined });
    return pin === undefined ? undefined : { daemons: [pin] };
  }
  const daemons = value['daemons'];
  if (value['v'] !== 2 || !Array.isArray(daemons) || daemons.length > DAEMONS_MAX) return undefined;
  const parsed = daemons.map((entry: unknown) => (entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? parseEntry(entry as Record<string, unknown>) : undefined));
  if (parsed.some((entry) => entry === undefined)) return undefined;
  const entries = parsed as SystemPin[];
  if (new Set(entries.map((entry) => entry.user)).size !== entries.length) return undefined;
  return { daemons: entries };
}

function parseEntry(value: Record<string, unknown>): SystemPin | undefined {
  const { key_id: keyId, url, data_dir: dataDir, user, accounts } = value;
  if (typeof keyId !== 'string' || !KEY_ID_SHAPE.test(keyId)) return undefined;
  if (url !== undefined && (typeof url !== 'string' || !URL_SHAPE.test(url))) return undefined;
  if (typeof dataDir !== 'string' || !path.isAbsolute(dataDir) || typeof user !== 'string' || user === '') return undefined;
  if (accounts !== undefined && (!Array.isArray(accounts) || accounts.length > ACCOUNTS_MAX || !accounts.every((name) => typeof name === 'string' && ACCOUNT_SHAPE.test(name)))) return undefined;
  return { key_id: keyId, ...(url !== undefined && { url }), data_dir: dataDir, user, ...(accounts !== undefined && { accounts: [...new Set(accounts as string[])] }) };
}

/** systemPinsText is the file's contents for the daemons pinned (always the format with accounts). */
export function systemPinsText(pins: SystemPins): string {
  const daemons = pins.daemons.map((pin) => ({ key_id: pin.key_id, ...(pin.url !== undefined && { url: pin.url }), data_dir: pin.data_dir, user: pin.user, ...(pin.accounts !== undefined && { accounts: pin.accounts }) }));
  return `${JSON.stringify({ v: 2, daemons }, null, 1)}\n`;
}

/**
 * mergeSystemPin puts one daemon's entry into what a pin file held: it replaces the entry of the
 * same service user, and an account it names is taken off every other entry, so each account is
 * redirected to one daemon. With `keep`, the accounts the replaced entry named are kept too.
 */
export function mergeSystemPin(existing: SystemPins | undefined, pin: SystemPin & { accounts: string[] }, keep: boolean): SystemPins {
  const previous = existing?.daemons.find((entry) => entry.user === pin.user);
  const accounts = [...new Set([...(keep ? (previous?.accounts ?? []) : []), ...pin.accounts])].filter((name) => name !== pin.user).sort();
  const others = (existing?.daemons ?? []).filter((entry) => entry.user !== pin.user).map((entry) => (entry.accounts === undefined ? entry : { ...entry, accounts: entry.accounts.filter((name) => !accounts.includes(name)) }));
  return { daemons: [...others, { ...pin, accounts }] };
}

/**
 * openSystemPinForWriting (root only) creates the pin's directory when missing (0755, root's),
 * checks that it and every directory above it are root's alone, and opens the pin file without
 * following a symbolic link (created 0644 when missing). The caller writes it with
 * writeSystemPinTo, possibly after dropping root: the descriptor keeps the right to write this one
 * file and nothing else.
 */
export function openSystemPinForWriting(env: NodeJS.ProcessEnv): { fd: number; file: string } {
  const file = systemPinPath(env);
  if (!path.isAbsolute(file)) throw new SystemPinError(`${SYSTEM_PIN_ENV} must be an absolute path`);
  const directory = path.dirname(file);
  assertRootOnlyDirectories(path.dirname(directory));
  try {
    mkdirSync(directory, { mode: 0o755 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  assertRootOnlyDirectories(directory);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o644);
  } catch (error) {
    throw new SystemPinError(`${file} cannot be opened for writing (${(error as NodeJS.ErrnoException).code ?? 'error'}; a symbolic link is refused)`);
  }
  try {
    assertRootOnly(fstatSync(fd), file, 'file');
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return { fd, file };
}

/**
 * writeSystemPinTo puts one daemon's entry into an open pin file (mergeSystemPin: the other
 * service users' daemons are kept), closes it, and returns what the file now pins. What the file
 * held is read through the same descriptor; a file that is not a pin is replaced.
 */
export function writeSystemPinTo(fd: number, pin: SystemPin & { accounts: string[] }, keep = true): SystemPins {
  try {
    const buffer = Buffer.alloc(PIN_BYTES_MAX);
    const read = readSync(fd, buffer, 0, PIN_BYTES_MAX, 0);
    const merged = mergeSystemPin(parseSystemPins(buffer.subarray(0, read).toString('utf8')), pin, keep);
    const bytes = Buffer.from(systemPinsText(merged), 'utf8');
    ftruncateSync(fd, 0);
    writeSync(fd, bytes, 0, bytes.length, 0);
    fsyncSync(fd);
    return merged;
  } finally {
    closeSync(fd);
  }
}

/** writeSystemPin (root only) writes one daemon's entry in one step. */
export function writeSystemPin(env: NodeJS.ProcessEnv, pin: SystemPin & { accounts: string[] }, keep = true): string {
  const { fd, file } = openSystemPinForWriting(env);
  writeSystemPinTo(fd, pin, keep);
  return file;
}

/**
 * removeSystemPin (root only) takes the daemon of a service user out of the pin file, and removes
 * the file when no daemon is left. It returns what it did, or undefined when nothing was pinned
 * for that user.
 */
export function removeSystemPin(env: NodeJS.ProcessEnv, user: string): 'removed_file' | 'removed_entry' | undefined {
  const existing = readSystemPins(env);
  if (existing === undefined || !existing.daemons.some((entry) => entry.user === user)) return undefined;
  const rest = existing.daemons.filter((entry) => entry.user !== user);
  const { fd, file } = openSystemPinForWriting(env);
  if (rest.length === 0) {
    closeSync(fd);
    unlinkSync(file);
    return 'removed_file';
  }
  try {
    const bytes = Buffer.from(systemPinsText({ daemons: rest }), 'utf8');
    ftruncateSync(fd, 0);
    writeSync(fd, bytes, 0, bytes.length, 0);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return 'removed_entry';
}

/**
 * assertRootOnlyDirectories checks directory and every directory above it: each a real directory
 * (not a symbolic link), owned by root, and writable by nobody else unless it is sticky.
 */
function assertRootOnlyDirectories(directory: string): void {
  for (let current = directory; ; current = path.dirname(current)) {
    let stats: Stats;
    try {
      stats = lstatSync(current);
    } catch (error) {
      throw new SystemPinError(`${current} cannot be checked (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (stats.isSymbolicLink() || !stats.isDirectory()) throw new SystemPinError(`${current} is not a directory (a symbolic link is refused): the daemon pin must be where only root can write`);
    const sticky = (stats.mode & 0o1000) !== 0;
    if (stats.uid !== 0 || ((stats.mode & 0o022) !== 0 && !sticky)) throw new SystemPinError(`${current} is not root's alone (owner uid ${stats.uid}, mode ${(stats.mode & 0o7777).toString(8)}): the daemon pin must be where only root can write`);
    if (current === path.dirname(current)) return;
  }
}

function assertRootOnly(stats: Stats, file: string, what: string): void {
  if (!stats.isFile()) throw new SystemPinError(`${file} is not a regular ${what}`);
  if (stats.uid !== 0 || (stats.mode & 0o022) !== 0) throw new SystemPinError(`${file} is not root's alone (owner uid ${stats.uid}, mode ${(stats.mode & 0o777).toString(8)}): only a pin root wrote is trusted`);
}
