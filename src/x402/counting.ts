/**
 * The counting rule (shared/spec/x402.md §2): an atomic amount counts as amount / 10^decimals in the
 * asset's `counts_as` currency, rounded UP to that currency's minor unit, so 0.001 USDC counts 0.01
 * USD — a documented overcount, never an undercount. Integer arithmetic only (BigInt): the atomic
 * amount can have 78 digits, and no binary floating point value ever stands for money.
 */

/** ATOMIC_AMOUNT is x402's atomic amount text: 1–78 digits, no sign or leading zero (0 is refused separately). */
export const ATOMIC_AMOUNT = /^(0|[1-9][0-9]{0,77})$/;

/**
 * countedMinor is the atomic amount of an asset with assetDecimals, in minor units of a currency
 * with currencyDecimals, rounded up; undefined when the result is larger than limitMinor (the caller
 * refuses it rather than count a number it cannot hold exactly).
 */
export function countedMinor(atomic: string, assetDecimals: number, currencyDecimals: number, limitMinor: number): number | undefined {
  if (!ATOMIC_AMOUNT.test(atomic)) throw new Error('countedMinor: not an atomic amount');
  const units = BigInt(atomic);
  let minor: bigint;
  if (assetDecimals <= currencyDecimals) {
    minor = units * 10n ** BigInt(currencyDecimals - assetDecimals);
  } else {
    const divisor = 10n ** BigInt(assetDecimals - currencyDecimals);
    // Ceiling division: anything left over counts one more minor unit.
    minor = (units + divisor - 1n) / divisor;
  }
  if (minor > BigInt(limitMinor)) return undefined;
  return Number(minor);
}

/** compareAtomic compares two atomic amounts exactly: negative, zero or positive. */
export function compareAtomic(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
