import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { LatchError } from '../errors/latch-error.js';
import { AUTHORIZATION_AMOUNT_MAX_MINOR } from '../money/amount.js';
import { parseJson, type JsonObject, type JsonValue } from '../json/parse-json.js';
import { ROOT_FIELD, elementPath, memberPath, refuse } from './policy-invalid-error.js';
import { readArray, readChoice, readInteger, readObject, readPattern } from './policy-json-reader.js';
import { SCOPE_FIELDS, amountDecimals, readAmount, readKinds, readScope } from './policy-scope-fields.js';
import { readNetworks, readPayTo, readX402Assets } from './policy-x402.js';
import {
  BUDGET_WINDOW_SECONDS,
  POLICY_WINDOW_SECONDS_MAX,
  type BudgetPeriod,
  type OverDecision,
  type Policy,
  type PolicyBudget,
  type PolicyDecision,
  type PolicyRule,
  type PolicyVelocity,
} from './policy-types.js';

/** The largest policy.json accepted. */
export const POLICY_FILE_BYTES_MAX = 256 * 1024;
export const RULES_MAX = 1_000;
export const BUDGETS_MAX = 100;
export const VELOCITY_MAX = 100;
/** A budget's limit may exceed one authorization's maximum, up to 100,000,000.00 in minor units. */
export const BUDGET_LIMIT_MAX_MINOR = 10_000_000_000;
export const VELOCITY_COUNT_MAX = 1_000_000;
export const APPROVAL_TTL_SECONDS_DEFAULT = 900;
export const APPROVAL_TTL_SECONDS_MIN = 60;
export const APPROVAL_TTL_SECONDS_MAX = 86_400;

/** Ids of rules and limits; `default` and `new_merchant` are what the reported rule says for the settings. */
const ENTRY_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const RESERVED_IDS = ['default', 'new_merchant'];
const DECISIONS: readonly PolicyDecision[] = ['allow', 'ask', 'deny'];
const OVER_DECISIONS: readonly OverDecision[] = ['ask', 'deny'];
const PERIODS = Object.keys(BUDGET_WINDOW_SECONDS) as BudgetPeriod[];

const TOP_FIELDS = ['v', 'default', 'new_merchant', 'approval_ttl_seconds', 'rules', 'budgets', 'velocity', 'x402'];
const RULE_FIELDS = ['id', ...SCOPE_FIELDS, 'kinds', 'networks', 'pay_to', 'min_amount', 'max_amount', 'decision'];
const BUDGET_FIELDS = ['id', ...SCOPE_FIELDS, 'per', 'limit', 'over'];
const VELOCITY_FIELDS = ['id', ...SCOPE_FIELDS, 'per_seconds', 'max_count', 'over'];

/** Deep enough for every valid file (4 levels) and for a wrong shape to be named by its field. */
const JSON_LIMITS = { depthMax: 6, membersMax: RULES_MAX };

/**
 * parsePolicyBytes validates the exact bytes of policy.json into a Policy whose `sha256` is the
 * hash of those bytes. It throws PolicyInvalidError naming the first offending field.
 */
export function parsePolicyBytes(bytes: Uint8Array): Policy {
  if (bytes.length > POLICY_FILE_BYTES_MAX) refuse(ROOT_FIELD, `the file is larger than ${POLICY_FILE_BYTES_MAX} bytes.`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    refuse(ROOT_FIELD, 'the file is not UTF-8 text.');
  }
  return readPolicy(parseText(text), bytesToHex(sha256(bytes)), 'file');
}

/** parsePolicyText validates policy.json given as text (hashed as its UTF-8 bytes). */
export function parsePolicyText(text: string): Policy {
  return parsePolicyBytes(new TextEncoder().encode(text));
}

function parseText(text: string): JsonValue {
  try {
    // A person edits this file: a syntax error names its line and column, not a byte offset.
    return parseJson(text, JSON_LIMITS, 'line-column');
  } catch (error) {
    if (error instanceof LatchError) refuse(ROOT_FIELD, error.message.replace(/^The body is/, 'the file is'));
    throw error;
  }
}

function readPolicy(value: JsonValue, sha256Hex: string, source: Policy['source']): Policy {
  const top = readObject(value, ROOT_FIELD, TOP_FIELDS);
  if (top.v === undefined) refuse('v', 'is required and must be 1.');
  readInteger(top.v, 'v', 1, 1);
  const ids = new Set<string>();
  return {
    source,
    sha256: sha256Hex,
    v: 1,
    default: top.default === undefined ? 'allow' : readChoice(top.default, 'default', DECISIONS),
    newMerchant: top.new_merchant === undefined ? 'allow' : readChoice(top.new_merchant, 'new_merchant', DECISIONS),
    approvalTtlSeconds:
      top.approval_ttl_seconds === undefined
        ? APPROVAL_TTL_SECONDS_DEFAULT
        : readInteger(top.approval_ttl_seconds, 'approval_ttl_seconds', APPROVAL_TTL_SECONDS_MIN, APPROVAL_TTL_SECONDS_MAX),
    rules: readEntries(top, 'rules', RULES_MAX, (object, field) => readRule(object, field, ids)),
    budgets: readEntries(top, 'budgets', BUDGETS_MAX, (object, field) => readBudget(object, field, ids)),
    velocity: readEntries(top, 'velocity', VELOCITY_MAX, (object, field) => readVelocity(object, field, ids)),
    x402Assets: readX402Assets(top.x402),
  };
}

function readEntries<T>(top: JsonObject, key: string, lengthMax: number, read: (value: JsonValue, field: string) => T): T[] {
  if (top[key] === undefined) return [];
  return readArray(top[key], key, lengthMax).map((value, index) => read(value, elementPath(key, index)));
}

/** readId reads an entry's id, unique across rules, budgets and velocity, since `rule` reports it alone. */
function readId(object: JsonObject, field: string, ids: Set<string>): string {
  const idField = memberPath(field, 'id');
  if (object.id === undefined) refuse(idField, 'is required.');
  const id = readPattern(object.id, idField, ENTRY_ID, 'an id of lower-case letters, digits, "-" and "_" ([a-z0-9][a-z0-9_-]{0,63})');
  if (RESERVED_IDS.includes(id)) refuse(idField, `is reserved: ${RESERVED_IDS.join(' and ')} name the settings.`);
  if (ids.has(id)) refuse(idField, 'is already the id of another rule, budget or velocity limit.');
  ids.add(id);
  return id;
}

function required(object: JsonObject, field: string, key: string): JsonValue {
  const value = object[key];
  if (value === undefined) refuse(memberPath(field, key), 'is required.');
  return value;
}

function readRule(value: JsonValue, field: string, ids: Set<string>): PolicyRule {
  const object = readObject(value, field, RULE_FIELDS);
  const id = readId(object, field, ids);
  const scope = readScope(object, field);
  const decimals = amountDecimals(scope, field);
  const bounds = { allowZero: true, maxMinor: AUTHORIZATION_AMOUNT_MAX_MINOR };
  const rule: { -readonly [K in keyof PolicyRule]: PolicyRule[K] } = {
    id,
    ...scope,
    decision: readChoice(required(object, field, 'decision'), memberPath(field, 'decision'), DECISIONS),
  };
  if (object.kinds !== undefined) rule.kinds = readKinds(object.kinds, memberPath(field, 'kinds'));
  if (object.networks !== undefined) rule.networks = readNetworks(object.networks, memberPath(field, 'networks'));
  if (object.pay_to !== undefined) rule.payTo = readPayTo(object.pay_to, memberPath(field, 'pay_to'));
  if (object.min_amount !== undefined) rule.minAmountMinor = readAmount(object.min_amount, memberPath(field, 'min_amount'), decimals, bounds);
  if (object.max_amount !== undefined) rule.maxAmountMinor = readAmount(object.max_amount, memberPath(field, 'max_amount'), decimals, bounds);
  if (rule.minAmountMinor !== undefined && rule.maxAmountMinor !== undefined && rule.minAmountMinor > rule.maxAmountMinor) {
    refuse(memberPath(field, 'min_amount'), 'is above max_amount, so the rule could never match.');
  }
  return rule;
}

function readBudget(value: JsonValue, field: string, ids: Set<string>): PolicyBudget {
  const object = readObject(value, field, BUDGET_FIELDS);
  const id = readId(object, field, ids);
  const scope = readScope(object, field);
  const per = readChoice(required(object, field, 'per'), memberPath(field, 'per'), PERIODS);
  const limitMinor = readAmount(required(object, field, 'limit'), memberPath(field, 'limit'), amountDecimals(scope, field), {
    allowZero: false,
    maxMinor: BUDGET_LIMIT_MAX_MINOR,
  });
  const over = readChoice(required(object, field, 'over'), memberPath(field, 'over'), OVER_DECISIONS);
  return { id, ...scope, per, windowSeconds: BUDGET_WINDOW_SECONDS[per], limitMinor, over };
}

function readVelocity(value: JsonValue, field: string, ids: Set<string>): PolicyVelocity {
  const object = readObject(value, field, VELOCITY_FIELDS);
  const id = readId(object, field, ids);
  const scope = readScope(object, field);
  const perSeconds = readInteger(required(object, field, 'per_seconds'), memberPath(field, 'per_seconds'), 1, POLICY_WINDOW_SECONDS_MAX);
  const maxCount = readInteger(required(object, field, 'max_count'), memberPath(field, 'max_count'), 1, VELOCITY_COUNT_MAX);
  const over = readChoice(required(object, field, 'over'), memberPath(field, 'over'), OVER_DECISIONS);
  return { id, ...scope, perSeconds, maxCount, over };
}

/** The text the default policy stands for: no file, every request allowed. */
export const DEFAULT_POLICY_TEXT = '{"v":1,"default":"allow","new_merchant":"allow"}';

/** DEFAULT_POLICY is in force when policy.json is absent: every request is allowed, as without a policy. */
export const DEFAULT_POLICY: Policy = Object.freeze(
  readPolicy(parseJson(DEFAULT_POLICY_TEXT), bytesToHex(sha256(new TextEncoder().encode(DEFAULT_POLICY_TEXT))), 'default'),
);
