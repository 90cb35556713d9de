/**
 * Which x402 assets count (shared/spec/x402.md §1): a (network, asset) pair with its decimals and
 * the budget currency it counts as. Without a declaration in policy.json the table is x402's own
 * default USDC entries for Base and Base Sepolia (as @x402/evm 2.27.0 lists them); anything not in
 * the table is refused with rule `x402_asset`: Latch never guesses a price.
 */

/** One asset that counts: `counts_as` is a currency the budgets use. */
export interface X402Asset {
  /** A CAIP-2 network id, e.g. `eip155:84532`. */
  readonly network: string;
  /** The token's contract address (EVM) or id, as the requirements name it. */
  readonly asset: string;
  readonly symbol: string;
  /** Atomic units per whole token: 10^decimals. */
  readonly decimals: number;
  readonly countsAs: string;
}

/** x402's default USDC entries for Base (eip155:8453) and Base Sepolia (eip155:84532). */
export const BUILT_IN_X402_ASSETS: readonly X402Asset[] = Object.freeze([
  Object.freeze({ network: 'eip155:8453', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', symbol: 'USDC', decimals: 6, countsAs: 'USD' }),
  Object.freeze({ network: 'eip155:84532', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', symbol: 'USDC', decimals: 6, countsAs: 'USD' }),
]);

/** The most decimals an asset may declare (ETH-like tokens use 18; 36 leaves room and bounds the arithmetic). */
export const X402_ASSET_DECIMALS_MAX = 36;
/** At most this many assets in policy.json. */
export const X402_ASSETS_MAX = 100;

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * sameAddress reports whether two asset or payee identifiers are the same: EVM addresses compare
 * case-insensitively (EIP-55 checksums are only a display form), anything else exactly.
 */
export function sameAddress(a: string, b: string): boolean {
  if (EVM_ADDRESS.test(a) && EVM_ADDRESS.test(b)) return a.toLowerCase() === b.toLowerCase();
  return a === b;
}

/** addressKey is the form an address is compared and indexed in: lower case for EVM, as given otherwise. */
export function addressKey(address: string): string {
  return EVM_ADDRESS.test(address) ? address.toLowerCase() : address;
}

/** findAsset returns the asset that counts for (network, asset), or undefined. */
export function findAsset(assets: readonly X402Asset[], network: string, asset: string): X402Asset | undefined {
  return assets.find((candidate) => candidate.network === network && sameAddress(candidate.asset, asset));
}

/** assetWire is an asset as GET /x402/assets shows it. */
export function assetWire(asset: X402Asset): Record<string, unknown> {
  return { network: asset.network, asset: asset.asset, symbol: asset.symbol, decimals: asset.decimals, counts_as: asset.countsAs };
}
