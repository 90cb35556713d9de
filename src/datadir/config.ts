import { cloudOrigin } from '../cloud/cloud-origin.js';
import { writeFileAtomic } from './atomic-file.js';
import { DataDirError, shellQuote } from './data-dir-error.js';
import { DATA_FILES, dataFilePath } from './data-files.js';
import { readPrivateFile } from './read-private-file.js';

/** The settings kept in config.json. Every field is optional until setup has run. */
export interface LatchConfig {
  /** The cloud API origin, e.g. `https://api.latch.example` (LATCH_CLOUD_URL overrides it). */
  cloud_url?: string;
  device_id?: string;
  key_id?: string;
  account_id?: string;
  device_name?: string;
  /**
   * A program to run on each new approval, as argv (never through a shell): an absolute program
   * path and up to 15 arguments, e.g. `["/usr/bin/notify-send", "Latch"]` (docs/decisions.md §15.4).
   */
  approval_notify?: string[];
  /**
   * How long an owner session lives at most, in whole seconds from 60 to 3600 (default 3600;
   * docs/decisions.md §21). It still ends 300 s after its last use.
   */
  owner_session_seconds?: number;
  /** The owner console's port (docs/decisions.md §25); 7724 when absent. */
  console_port?: number;
  /**
   * How long `latch mcp` holds a payment tool call open for the owner's decision once the person
   * accepted to open the console (URL-mode elicitation, docs/decisions.md §37), in whole seconds
   * from 0 to 600; 50 when absent (under the official SDK client's 60-second request timeout).
   */
  mcp_approval_wait_seconds?: number;
  /**
   * How many pending approvals one caller (an agent, or the owner) may have at once; beyond it an
   * ask is 429 too_many_pending_approvals (docs/decisions.md §17.6). 1 to 1000; 20 when absent.
   */
  approvals_pending_max_per_agent?: number;
  /**
   * Where the owner publishes the agents' key directory (`latch identity directory`), an `https`
   * URL; Web Bot Auth signatures name it in Signature-Agent (docs/decisions.md §23.2).
   */
  identity_directory_url?: string;
}

/** The bounds of owner_session_seconds. */
export const OWNER_SESSION_SECONDS_CONFIG_MIN = 60;
export const OWNER_SESSION_SECONDS_CONFIG_MAX = 3600;
/** The bounds of mcp_approval_wait_seconds, and its value when config.json does not say. */
export const MCP_APPROVAL_WAIT_SECONDS_MAX = 600;
export const MCP_APPROVAL_WAIT_SECONDS_DEFAULT = 50;
/** The pending approvals one caller may have when config.json does not say. */
export const APPROVALS_PENDING_MAX_PER_AGENT_DEFAULT = 20;
const APPROVALS_PENDING_MAX_PER_AGENT_LIMIT = 1000;

/** The environment variable that overrides config.json's cloud_url at use time. */
export const CLOUD_URL_ENV = 'LATCH_CLOUD_URL';

const CONFIG_FILE_BYTES_MAX = 64 * 1024;
const ID_SHAPE = /^[A-Za-z0-9_-]{1,128}$/;
const KEY_ID_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const DEVICE_NAME_CHARS_MAX = 64;

type Check = (value: string) => string | undefined;

// Each check returns the value to store (normalized) or undefined when it is invalid.
type StringField = Exclude<keyof LatchConfig, 'approval_notify' | 'approvals_pending_max_per_agent' | 'owner_session_seconds' | 'console_port' | 'mcp_approval_wait_seconds'>;

const FIELD_CHECKS: Record<StringField, Check> = {
  cloud_url: normalizeCloudUrl,
  device_id: (value) => (ID_SHAPE.test(value) ? value : undefined),
  key_id: (value) => (KEY_ID_SHAPE.test(value) ? value : undefined),
  account_id: (value) => (ID_SHAPE.test(value) ? value : undefined),
  device_name: (value) => (validDeviceName(value) ? value : undefined),
  identity_directory_url: normalizeDirectoryUrl,
};

/** configPath returns the path of config.json. */
export function configPath(home: string): string {
  return dataFilePath(home, DATA_FILES.config);
}

/**
 * loadConfig reads config.json, or returns `{}` when it does not exist. Unknown fields and invalid
 * values are refused with a DataDirError naming the field, rather than ignored, so that a typo
 * such as `cloud_ur1` is not silently a default.
 */
export function loadConfig(home: string): LatchConfig {
  const file = configPath(home);
  const text = readPrivateFile(file, CONFIG_FILE_BYTES_MAX);
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corruptFile(file, 'config.json is not valid JSON');
  }
  return validateConfig(value, file);
}

/** saveConfig validates config and writes config.json atomically at 0600. */
export function saveConfig(home: string, config: LatchConfig): void {
  const file = configPath(home);
  const valid = validateConfig(config, file, 'invalid_value');
  writeFileAtomic(file, `${JSON.stringify(valid, null, 2)}\n`);
}

/**
 * validateConfig returns a checked, normalized copy of a config value. The file argument names
 * where the value came from, and code says whether a failure means a `corrupt` file (reading) or
 * an `invalid_value` given by the caller (saving).
 */
export function validateConfig(value: unknown, file: string, code: 'corrupt' | 'invalid_value' = 'corrupt'): LatchConfig {
  const invalid = code === 'corrupt' ? corruptFile : invalidValue;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(file, 'config.json must hold a JSON object');
  const config: LatchConfig = {};
  for (const [field, fieldValue] of Object.entries(value)) {
    if (field === 'approval_notify') {
      if (fieldValue === undefined) continue;
      const argv = approvalNotifyArgv(fieldValue);
      if (argv === undefined) throw invalid(file, 'invalid value for "approval_notify" in config.json: it must be an array of 1 to 16 strings, the first an absolute program path');
      config.approval_notify = argv;
      continue;
    }
    if (field === 'owner_session_seconds') {
      if (fieldValue === undefined) continue;
      const valid = Number.isSafeInteger(fieldValue) && (fieldValue as number) >= OWNER_SESSION_SECONDS_CONFIG_MIN && (fieldValue as number) <= OWNER_SESSION_SECONDS_CONFIG_MAX;
      if (!valid) throw invalid(file, `invalid value for "owner_session_seconds" in config.json: it must be a whole number of seconds from ${OWNER_SESSION_SECONDS_CONFIG_MIN} to ${OWNER_SESSION_SECONDS_CONFIG_MAX}`);
      config.owner_session_seconds = fieldValue as number;
      continue;
    }
    if (field === 'console_port') {
      if (fieldValue === undefined) continue;
      const valid = Number.isSafeInteger(fieldValue) && (fieldValue as number) >= 1 && (fieldValue as number) <= 65535;
      if (!valid) throw invalid(file, 'invalid value for "console_port" in config.json: it must be a port number from 1 to 65535');
      config.console_port = fieldValue as number;
      continue;
    }
    if (field === 'mcp_approval_wait_seconds') {
      if (fieldValue === undefined) continue;
      const valid = Number.isSafeInteger(fieldValue) && (fieldValue as number) >= 0 && (fieldValue as number) <= MCP_APPROVAL_WAIT_SECONDS_MAX;
      if (!valid) throw invalid(file, `invalid value for "mcp_approval_wait_seconds" in config.json: it must be a whole number of seconds from 0 to ${MCP_APPROVAL_WAIT_SECONDS_MAX}`);
      config.mcp_approval_wait_seconds = fieldValue as number;
      continue;
    }
    if (field === 'approvals_pending_max_per_agent') {
      if (fieldValue === undefined) continue;
      if (!Number.isSafeInteger(fieldValue) || (fieldValue as number) < 1 || (fieldValue as number) > APPROVALS_PENDING_MAX_PER_AGENT_LIMIT) {
        throw invalid(file, `invalid value for "approvals_pending_max_per_agent" in config.json: it must be a whole number from 1 to ${APPROVALS_PENDING_MAX_PER_AGENT_LIMIT}`);
      }
      config.approvals_pending_max_per_agent = fieldValue as number;
      continue;
    }
    if (!Object.hasOwn(FIELD_CHECKS, field)) throw invalid(file, `unknown field "${printable(field)}" in config.json`);
    const name = field as StringField;
    if (fieldValue === undefined) continue;
    const checked = typeof fieldValue === 'string' ? FIELD_CHECKS[name](fieldValue) : undefined;
    // The value is not echoed: config.json holds no secrets, but a pasted one must not spread.
    if (checked === undefined) throw invalid(file, `invalid value for "${name}" in config.json`);
    config[name] = checked;
  }
  return config;
}

/** Bounds of approval_notify: 1..16 strings of at most 1024 characters, no NUL. */
const NOTIFY_ARGS_MAX = 16;
const NOTIFY_ARG_CHARS_MAX = 1024;

/** approvalNotifyArgv returns a valid approval_notify argv (a copy), or undefined. */
export function approvalNotifyArgv(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.length < 1 || value.length > NOTIFY_ARGS_MAX) return undefined;
  if (!value.every((arg): arg is string => typeof arg === 'string' && arg.length <= NOTIFY_ARG_CHARS_MAX && !arg.includes('\u0000'))) return undefined;
  const program = value[0] as string;
  if (!program.startsWith('/') || program.length < 2) return undefined;
  return [...value];
}

/**
 * effectiveCloudUrl returns the cloud origin to use: LATCH_CLOUD_URL when set and non-empty,
 * otherwise config.json's cloud_url, otherwise undefined. An invalid LATCH_CLOUD_URL is an error
 * naming the variable, not a silent fallback to the file.
 */
export function effectiveCloudUrl(config: LatchConfig, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env[CLOUD_URL_ENV];
  if (fromEnv === undefined || fromEnv === '') return config.cloud_url;
  const normalized = normalizeCloudUrl(fromEnv);
  if (normalized === undefined) {
    throw new DataDirError('invalid_value', CLOUD_URL_ENV, `${CLOUD_URL_ENV} is not a valid cloud origin`, `set ${CLOUD_URL_ENV} to an origin such as https://api.example.com (http is allowed only for 127.0.0.1, localhost and [::1])`);
  }
  return normalized;
}

/** normalizeCloudUrl returns the origin of a usable cloud URL, or undefined (see cloudOrigin, the one rule). */
export function normalizeCloudUrl(text: string): string | undefined {
  return cloudOrigin(text);
}

/** The longest identity_directory_url, in characters. */
const DIRECTORY_URL_CHARS_MAX = 2048;

/**
 * normalizeDirectoryUrl returns an absolute `https` URL without user info or fragment, as the URL
 * parser writes it (so it holds no quote or backslash that would break the Signature-Agent string), or undefined.
 */
export function normalizeDirectoryUrl(text: string): string | undefined {
  if (text.length > DIRECTORY_URL_CHARS_MAX || text.includes('#') || /[\s\x00-\x1f\x7f]/.test(text)) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || url.hostname === '') return undefined;
  return /["\\]/.test(url.href) || url.href.length > DIRECTORY_URL_CHARS_MAX ? undefined : url.href;
}

function validDeviceName(value: string): boolean {
  const chars = [...value];
  return chars.length >= 1 && chars.length <= DEVICE_NAME_CHARS_MAX && !/[\p{Cc}\p{Cf}]/u.test(value) && value.trim() === value;
}

function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, 40);
}

function corruptFile(file: string, problem: string): DataDirError {
  return new DataDirError('corrupt', file, problem, `edit or remove ${shellQuote(file)} (latch setup rewrites it)`);
}

function invalidValue(file: string, problem: string): DataDirError {
  return new DataDirError('invalid_value', file, problem, 'give a valid value; config.json was not changed');
}
