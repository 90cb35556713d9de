/**
 * policy.json's x402 parts (shared/spec/x402.md §1–2): the `x402.assets` that count, and the two
 * rule conditions `networks` and `pay_to`. Without `x402.assets` the built-in table applies
 * (x402's default USDC entries); a declared table replaces it.
 */
import type { JsonValue } from '../json/parse-json.js';
import { currencyDecimals } from '../money/amount.js';
import { addressKey, BUILT_IN_X402_ASSETS, X402_ASSET_DECIMALS_MAX, X402_ASSETS_MAX, type X402Asset } from '../x402/assets.js';
import { elementPath, memberPath, refuse } from './policy-invalid-error.js';
import { readArray, readInteger, readList, readObject, readPattern } from './policy-json-reader.js';

const CAIP2 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/;
const PRINTABLE_ADDRESS = /^[\x21-\x7e]{1,128}$/;
const SYMBOL = /^[A-Za-z0-9.$_-]{1,16}$/;
const CURRENCY = /^[A-Z]{3,4}$/;
export const NETWORKS_MAX = 50;
export const PAY_TO_MAX = 200;

/** readX402 reads the top-level `x402` object: its `assets`, or the built-in table. */
export function readX402Assets(value: JsonValue | undefined): readonly X402Asset[] {
  if (value === undefined) return BUILT_IN_X402_ASSETS;
  const object = readObject(value, 'x402', ['assets']);
  if (object.assets === undefined) return BUILT_IN_X402_ASSETS;
  const seen = new Set<string>();
  return readArray(object.assets, 'x402.assets', X402_ASSETS_MAX).map((element, index) => {
    const field = elementPath('x402.assets', index);
    const entry = readObject(element, field, ['network', 'asset', 'symbol', 'decimals', 'counts_as']);
    for (const name of ['network', 'asset', 'symbol', 'decimals', 'counts_as']) if (entry[name] === undefined) refuse(memberPath(field, name), 'is required.');
    const asset: X402Asset = {
      network: readPattern(entry.network as JsonValue, memberPath(field, 'network'), CAIP2, 'a CAIP-2 network id like eip155:8453'),
      asset: readPattern(entry.asset as JsonValue, memberPath(field, 'asset'), PRINTABLE_ADDRESS, 'an asset address of 1 to 128 printable characters'),
      symbol: readPattern(entry.symbol as JsonValue, memberPath(field, 'symbol'), SYMBOL, 'a symbol like USDC'),
      decimals: readInteger(entry.decimals as JsonValue, memberPath(field, 'decimals'), 0, X402_ASSET_DECIMALS_MAX),
      countsAs: readPattern(entry.counts_as as JsonValue, memberPath(field, 'counts_as'), CURRENCY, 'a currency the budgets use, like USD'),
    };
    // Latch counts only in currencies whose minor unit it knows; any other would be a guess.
    if (currencyDecimals(asset.countsAs) === undefined) refuse(memberPath(field, 'counts_as'), 'must be a currency Latch handles (USD or USDT).');
    const key = `${asset.network} ${addressKey(asset.asset)}`;
    if (seen.has(key)) refuse(field, 'declares the same network and asset as an earlier entry.');
    seen.add(key);
    return asset;
  });
}

/** readNetworks reads a rule's `networks`: CAIP-2 ids. */
export function readNetworks(value: JsonValue, field: string): string[] {
  return readList(value, field, NETWORKS_MAX, (v, f) => readPattern(v, f, CAIP2, 'a CAIP-2 network id like eip155:8453'));
}

/** readPayTo reads a rule's `pay_to`: payee addresses, kept in their comparison form (EVM lower case). */
export function readPayTo(value: JsonValue, field: string): string[] {
  return readList(value, field, PAY_TO_MAX, (v, f) => addressKey(readPattern(v, f, PRINTABLE_ADDRESS, 'a payee address of 1 to 128 printable characters')));
}
